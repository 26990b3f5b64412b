// Shows every anywidget of a notebook exported by `python -m gradwalk.export`, with no
// kernel and nothing fetched from anywhere.
//
// nbconvert writes the notebook's saved widget state into the page (a script of type
// application/vnd.jupyter.widget-state+json) and, for each widget output, a placeholder
// naming its model (a script of type application/vnd.jupyter.widget-view+json). The saved
// state holds each model's attributes, and an anywidget's attributes include its own
// module (_esm) and stylesheet (_css): that is all it takes to show it. Each view gets a
// model made from those attributes, as anywidget's hosts give one (get, set, on, off,
// save_changes, send), with no kernel behind it: send() throws, and the widget decides
// what to say about that (Gradwalk's says that computing anything new needs a kernel).

const STATE_TYPE = "application/vnd.jupyter.widget-state+json";
const VIEW_TYPE = "application/vnd.jupyter.widget-view+json";

function savedState() {
  const script = document.querySelector(`script[type="${STATE_TYPE}"]`);
  return script ? JSON.parse(script.textContent).state ?? {} : {};
}

// A model over saved attributes: changes stay in this page, and nothing can reach a kernel.
function savedModel(attributes) {
  const listeners = new Map(); // event name -> its callbacks
  const fire = (event, value) => {
    for (const callback of listeners.get(event) ?? []) callback(value);
  };
  return {
    get: (key) => attributes[key],
    set(key, value) {
      attributes[key] = value;
      fire(`change:${key}`, value);
      fire("change");
    },
    on(events, callback) {
      for (const event of events.split(/\s+/)) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event).add(callback);
      }
    },
    off(events, callback) {
      if (!events) {
        listeners.clear();
        return;
      }
      for (const event of events.split(/\s+/)) {
        if (callback) listeners.get(event)?.delete(callback);
        else listeners.delete(event);
      }
    },
    save_changes() {},
    send() {
      throw new Error("This is a saved notebook: there is no kernel to send a message to.");
    },
  };
}

// One loaded widget definition per model (a module is imported, and initialize() run, once).
const loaded = new Map();

async function widgetOf(id, attributes, model) {
  if (!loaded.has(id)) {
    loaded.set(id, (async () => {
      const url = URL.createObjectURL(new Blob([attributes._esm], { type: "text/javascript" }));
      const module = await import(url);
      // anywidget's forms: a default object {initialize?, render}, a default function
      // returning one, or named exports.
      const definition = typeof module.default === "function" ? await module.default() : module.default ?? module;
      if (attributes._css) {
        const style = document.createElement("style");
        style.textContent = attributes._css;
        document.head.append(style);
      }
      await definition.initialize?.({ model });
      return definition;
    })());
  }
  return loaded.get(id);
}

const state = savedState();
const models = new Map();
for (const placeholder of document.querySelectorAll(`script[type="${VIEW_TYPE}"]`)) {
  const el = document.createElement("div");
  placeholder.after(el);
  const id = JSON.parse(placeholder.textContent).model_id;
  const saved = state[id];
  if (!saved || saved.model_module !== "anywidget" || typeof saved.state?._esm !== "string") {
    el.textContent = saved
      ? `This widget (${saved.model_name}) needs its own library and a kernel; this saved page shows only anywidgets.`
      : "This widget's state was not saved with the notebook, so it cannot be shown here.";
    continue;
  }
  if (!models.has(id)) models.set(id, savedModel({ ...saved.state }));
  const model = models.get(id);
  widgetOf(id, saved.state, model)
    .then((definition) => definition.render?.({ model, el }))
    .catch((error) => {
      el.textContent = `This widget could not be shown: ${error?.message ?? error}`;
    });
}
