// A stand-in for MyST's book theme, which cannot be installed here (mystmd downloads it from
// its own server at build time): a page that shows the content `myst build --site` wrote
// (content/<slug>.json) and hosts each {anywidget} node the way the theme's renderer does
// (@myst-theme/anywidget: import the node's `esm`, a read-only model over its `model`,
// initialize, then render into a <div> inside a shadow root of the node's own element).
// Its links navigate as the theme does, without a reload: the page's content is taken
// away, each widget's clean-up is called, and the next page's content is put in.
//
// The shell page of every slug is the same file; this script reads the slug from the address.

const base = new URL("./", import.meta.url); // the book's base path: this script sits at its root
const article = /** @type {HTMLElement} */ (document.getElementById("article"));
let cleanups = [];

// The theme's model for a kernel-less widget: get, set and on; off, save_changes and send throw.
class ReadOnlyModel {
  #state;
  #events = new EventTarget();
  constructor(state) {
    this.#state = { ...state };
  }
  get(name) {
    return this.#state[name];
  }
  set(name, value) {
    this.#state[name] = value;
    this.#events.dispatchEvent(new CustomEvent(`change:${name}`, { detail: value }));
  }
  on(name, callback) {
    this.#events.addEventListener(name, callback);
  }
  off() {
    throw new Error("model.off is not implemented by this host");
  }
  save_changes() {
    throw new Error("model.save_changes is not implemented by this host");
  }
  send() {
    throw new Error("model.send is not implemented by this host");
  }
}

async function hostWidget(node, container) {
  const module = await import(new URL(node.esm.replace(/^\//, ""), base).href);
  const widget = module.default;
  const model = new ReadOnlyModel(node.model);
  const cleanInitialize = await widget.initialize?.({ model });
  container.className = "myst-anywidget";
  const root = document.createElement("div");
  root.className = "myst-anywidget";
  root.style.position = "relative";
  (container.shadowRoot ?? container.attachShadow({ mode: "open" })).replaceChildren(root);
  const cleanRender = await widget.render?.({ model, el: root });
  cleanups.push(async () => {
    await cleanRender?.();
    await cleanInitialize?.();
  });
}

// Just enough of the MyST tree for the example book: headings, paragraphs, lists, code, links.
function draw(node, parent) {
  const tags = { heading: `h${node.depth}`, paragraph: "p", list: node.ordered ? "ol" : "ul", listItem: "li" };
  if (node.type === "text") parent.append(node.value);
  else if (node.type === "inlineCode") {
    parent.append(Object.assign(document.createElement("code"), { textContent: node.value }));
  }
  else if (node.type === "anywidget") {
    const container = document.createElement("div");
    parent.append(container);
    hostWidget(node, container).catch((error) => console.error("the widget's module failed:", error));
  } else if (node.type === "link" || node.type === "crossReference") {
    const link = document.createElement("a");
    link.href = new URL(slugOf(node.url ?? node.urlSource ?? ""), base).href;
    parent.append(link);
    for (const child of node.children ?? []) draw(child, link);
  } else {
    const element = tags[node.type] ? document.createElement(tags[node.type]) : parent;
    if (element !== parent) parent.append(element);
    for (const child of node.children ?? []) draw(child, element);
  }
}

function slugOf(url) {
  const name = url.split("/").pop().replace(/\.md$/, "");
  return name === "index" ? "" : `${name}/`;
}

async function show(slug) {
  // Leaving a page: its content goes, then each widget's clean-up runs (as a React page does).
  article.replaceChildren();
  const leaving = cleanups;
  cleanups = [];
  for (const clean of leaving) await clean();
  const page = await (await fetch(new URL(`content/${slug || "index"}.json`, base))).json();
  document.title = page.frontmatter?.title ?? slug;
  const title = document.createElement("h1");
  title.textContent = page.frontmatter?.title ?? "";
  article.append(title);
  draw(page.mdast, article);
  document.documentElement.dataset.slug = slug || "index";
}

// The theme's navigation: a link into the book changes the address and the content, nothing else.
document.addEventListener("click", (event) => {
  const link = /** @type {Element} */ (event.target).closest?.("a");
  if (!link || !link.href.startsWith(base.href)) return;
  event.preventDefault();
  history.pushState(null, "", link.href);
  show(new URL(link.href).pathname.slice(base.pathname.length).replace(/\/$/, ""));
});

async function drawNav() {
  const config = await (await fetch(new URL("config.json", base))).json();
  const nav = /** @type {HTMLElement} */ (document.getElementById("toc"));
  for (const entry of config.projects[0].pages.filter((p) => p.slug)) {
    const link = document.createElement("a");
    link.href = new URL(`${entry.slug}/`, base).href;
    link.textContent = entry.title;
    nav.append(link, " ");
  }
}

drawNav();
show(location.pathname.slice(base.pathname.length).replace(/\/$/, ""));
