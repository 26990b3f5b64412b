// Permalinks: the page's state in its URL, short and readable, and versioned.
//
//   ?gw=1&preset=diamond&v=a:3&pass=backward&step=3&order=d,b,c,a&cp=0
//   ?gw=1&prog=<base64url of the deflate-raw compressed UTF-8 program>&pass=forward&step=2
//
//   gw      the link format's version (1); a link without it is read as version 1
//   preset  a preset id                       prog  a learner's program (compressed)
//   v       new input values, name:number,…   src   a program as plain base64url (read only)
//   program a program as its own text (the Embed dialog's snippets: readable, a:3 stays a:3)
//   pass    start | forward | backward | experiment   step  the frame index in that pass
//   order   a visit order that was run (node labels, first visited first)
//   cp      0 turns the checkpoint questions off (on is the default)
//   open    the groups drawn open, by id (g0,g4; empty for none), when they are not the
//           ones a grouped graph opens with (its outer groups)
//   embed   1 for the embedded widget; hide (parts to hide, comma-separated) and
//           start (forward | backward | end | order | code) go with it
//
//   start=code opens "Your code" (embedded or not); exercise (the id of a file
//   <n>_<id>.py of engine/exercises/) picks its exercise, and code holds the learner's code, compressed like prog
//   (actions/code.js reads and writes them)
//
//   why     the "Why reverse mode" tab (a mode's id)    run  the mode on the stepper
//   wstep   the step of that mode's frames
//   and each mode's own parameters, as its engine module declares them (?wrt=a, ?zero=1,
//   ?lr=0.1, ...; modes/registry.js, written by the build from engine/modes/)
//
// parseLink() only reads and checks the syntax; what needs the engine (does the
// preset exist, is `a` an input, is step 7 inside the pass) is checked when the
// state is restored (learn.js). Every problem becomes one short sentence.
// Other parameters (?boot=, ?sw=) are kept as they are.

import { MODES } from "./modes/registry.js";

const VERSION = "1";
export const MAX_SOURCE_CHARS = 50_000; // engine/program.py
export const MAX_LINES = 2_000;
const MAX_PARAM_CHARS = 100_000;
const MAX_VALUE = 1e12;
export const PASSES = ["start", "forward", "backward", "experiment"];
export const HIDEABLE = [
  "presets", "questions", "values", "nudge", "editor", "code", "table", "order", "why", "lesson", "share",
  "exercises",
];
const STARTS = ["forward", "backward", "end", "order", "code"];
// Every URL parameter a widget knows, in one table, by who reads and writes it:
//   link  the widget's state (parseLink and formatLink, below; learn.js and links.js)
//   why   the "Why reverse mode" section's state (modes/why-reverse.js and each mode's params)
//   code  "Your code" (actions/code.js): its exercise and the learner's code
//   boot  how the page starts, never rewritten (boot/engine-client.js, boot/sw-register.js,
//         the time limits in widget.js)
// A parameter not in the table passes through a rewritten link untouched.
// The modes' parameters: every link key a mode declares, with what it may hold.
const MODE_PARAMS = new Map(MODES.flatMap((mode) => mode.params.filter((p) => p.link).map((p) => [p.link, p])));
const PARAMETERS = {
  gw: "link", preset: "link", prog: "link", src: "link", program: "link", v: "link", pass: "link", step: "link",
  order: "link", open: "link", cp: "link", embed: "link", hide: "link", start: "link",
  why: "why", run: "why", wstep: "why", ...Object.fromEntries([...MODE_PARAMS.keys()].map((key) => [key, "why"])),
  exercise: "code", code: "code",
  boot: "boot", sw: "boot", boottimeout: "boot", calltimeout: "boot",
};
export const parametersOf = (owner) => Object.keys(PARAMETERS).filter((key) => PARAMETERS[key] === owner);
const OWN = new Set(parametersOf("link"));
const MODE_IDS = MODES.map((mode) => mode.id);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

// Read a URL's query. Returns {state, problems, encodedProgram, programFormat, other}.
export function parseLink(search) {
  const params = new URLSearchParams(search);
  const problems = [];
  const state = {
    preset: null, program: null, values: null, pass: null, step: null, order: null, open: null,
    cp: null, embed: false, hide: [], start: null,
  };
  const other = [];
  for (const [key, value] of params) if (!OWN.has(key)) other.push([key, value]);
  const get = (key) => params.get(key);
  const has = (key) => params.has(key);
  const result = { state, problems, encodedProgram: null, programFormat: null, other, any: false };
  result.any = [...params.keys()].some((k) => OWN.has(k));

  if (has("gw") && get("gw") !== VERSION) {
    problems.push(`the link is in format version ${short(get("gw"))}, which this page does not know`);
    result.fatal = true;
    return result;
  }

  // Embedding options first: they never depend on the rest.
  if (has("embed")) {
    if (get("embed") === "1") state.embed = true;
    else if (get("embed") !== "0") problems.push(`embed=${short(get("embed"))} is not 0 or 1`);
  }
  if (has("hide")) {
    for (const part of get("hide").split(",").filter(Boolean)) {
      if (HIDEABLE.includes(part)) {
        if (!state.hide.includes(part)) state.hide.push(part);
      } else {
        problems.push(`there is no part called "${short(part)}" to hide`);
      }
    }
  }
  if (has("start")) {
    if (STARTS.includes(get("start"))) state.start = get("start");
    else problems.push(`start=${short(get("start"))} is not one of ${STARTS.join(", ")}`);
  }

  const sources = ["preset", "prog", "src", "program"].filter(has);
  if (sources.length > 1) {
    problems.push(`the link names both ${sources.join(" and ")}`);
  } else if (has("preset")) {
    const id = get("preset");
    if (/^[a-z0-9][a-z0-9-]{0,63}$/.test(id)) state.preset = id;
    else problems.push(`"${short(id)}" is not a preset name`);
  } else if (has("program")) {
    const text = get("program");
    if (text.length > MAX_PARAM_CHARS) problems.push("the program in the link is too long");
    else {
      result.encodedProgram = text;
      result.programFormat = "text";
    }
  } else if (has("prog") || has("src")) {
    const key = has("prog") ? "prog" : "src";
    const text = get(key);
    if (text.length > MAX_PARAM_CHARS) problems.push("the program in the link is too long");
    else if (!/^[A-Za-z0-9_-]*$/.test(text)) problems.push("the program in the link is damaged");
    else {
      result.encodedProgram = text;
      result.programFormat = key === "prog" ? "deflate" : "plain";
    }
  }

  if (has("v")) {
    const values = {};
    let ok = true;
    for (const pair of get("v").split(",").filter(Boolean)) {
      const [name, number, extra] = pair.split(":");
      if (extra !== undefined || !NAME.test(name ?? "") || !NUMBER.test(number ?? "")) {
        ok = false;
        break;
      }
      const x = Number(number);
      if (!Number.isFinite(x) || Math.abs(x) > MAX_VALUE) {
        ok = false;
        break;
      }
      values[name] = x;
    }
    if (ok && Object.keys(values).length) state.values = values;
    else if (!ok) problems.push(`the input values "${short(get("v"))}" are not name:number pairs within ±1e12`);
  }

  if (has("pass")) {
    if (PASSES.includes(get("pass"))) state.pass = get("pass");
    else problems.push(`pass=${short(get("pass"))} is not one of ${PASSES.join(", ")}`);
  }
  if (has("step")) {
    if (/^\d{1,5}$/.test(get("step"))) state.step = Number(get("step"));
    else problems.push(`step=${short(get("step"))} is not a step number`);
  }
  if (state.step !== null && state.pass === null) {
    problems.push("a step was given without a pass");
    state.step = null;
  }

  if (has("order")) {
    const labels = get("order").split(",").map((l) => l.trim());
    if (labels.length > 2000 || labels.some((l) => !l || l.length > 64)) {
      problems.push("the visit order in the link is damaged");
    } else state.order = labels;
  }

  if (has("open")) {
    const ids = get("open").split(",").filter(Boolean);
    if (ids.length > 2000 || ids.some((id) => !/^g\d{1,6}$/.test(id))) {
      problems.push("the open groups in the link are damaged");
    } else state.open = ids;
  }

  if (has("cp")) {
    if (get("cp") === "0") state.cp = false;
    else if (get("cp") === "1") state.cp = true;
    else problems.push(`cp=${short(get("cp"))} is not 0 or 1`);
  }
  problems.push(...readModeLink(params).problems);
  return result;
}

// The "Why reverse mode" part of a link, checked against what the modes declare:
// {values: Map(link key → its text, for the keys that hold what they may), problems}.
export function readModeLink(params) {
  const values = new Map();
  const problems = [];
  for (const key of parametersOf("why")) {
    const text = params.get(key);
    if (text === null) continue;
    const problem = linkProblem(key, text);
    if (problem) problems.push(problem);
    else values.set(key, text);
  }
  return { values, problems };
}

// Why a "Why reverse mode" key's text in a link is not what it may hold (a mode's id, a
// step, or what the parameter's declared kind allows), or null.
function linkProblem(key, text) {
  if (key === "why" || key === "run") {
    return MODE_IDS.includes(text) ? null : `there is no experiment called "${short(text)}"`;
  }
  if (key === "wstep") return /^\d{1,5}$/.test(text) ? null : `wstep=${short(text)} is not a step number`;
  const param = MODE_PARAMS.get(key);
  const label = /^[^,]{1,64}$/; // a node label, as a visit order writes it
  switch (param.kind) {
    case "flag": return text === "0" || text === "1" ? null : `${key}=${short(text)} is not 0 or 1`;
    case "choice":
      return param.values.includes(text) ? null : `${key}=${short(text)} is not one of ${param.values.join(", ")}`;
    case "number": {
      const x = NUMBER.test(text) ? Number(text) : NaN;
      return x > param.above && x <= param.at_most ? null
        : `${key}=${short(text)} is not a number above ${param.above} and at most ${param.at_most}`;
    }
    case "whole": {
      const x = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
      return x >= param.low && x <= param.high ? null
        : `${key}=${short(text)} is not a whole number from ${param.low} to ${param.high}`;
    }
    case "input": return label.test(text) ? null : `${key}=${short(text)} is not an input's name`;
    case "inputs":
      return text.split(",").every((name) => label.test(name)) ? null
        : `${key}=${short(text)} is not a list of input names`;
    case "moves": return new RegExp(`^[ad]{0,${param.most}}$`).test(text) ? null
      : `${key}=${short(text)} is not a list of at most ${param.most} moves (d descends, a ascends)`;
    default: return null; // a kind a link does not check (the engine does, when it runs)
  }
}

// A mode parameter's link text as the value the page keeps (a number, true or false, a list of names).
export function fromLinkText(param, text) {
  if (param.kind === "flag") return text === "1";
  if (param.kind === "number" || param.kind === "whole") return Number(text);
  if (param.kind === "inputs") return text.split(",");
  return text;
}

// ... and back: the text a link keeps for it.
export function toLinkText(param, value) {
  if (param.kind === "flag") return value ? "1" : "0";
  if (param.kind === "inputs") return value.join(",");
  return String(value);
}

// The query string (with "?") for a state. `program` is the compressed form of
// state.program (from encodeProgram), so this stays synchronous; with programFormat
// "text" it is the program's own text, written as program= (the Embed dialog's).
export function formatLink(state, { encodedProgram = null, programFormat = "deflate", other = [] } = {}) {
  const parts = [["gw", VERSION]];
  if (state.embed) parts.push(["embed", "1"]);
  if (state.embed && state.hide?.length) parts.push(["hide", state.hide.join(",")]);
  if (state.embed && state.start) parts.push(["start", state.start]);
  if (state.preset) parts.push(["preset", state.preset]);
  else if (encodedProgram !== null) parts.push([PROGRAM_KEYS[programFormat] ?? "prog", encodedProgram]);
  if (state.values && Object.keys(state.values).length) {
    parts.push(["v", Object.entries(state.values).map(([k, x]) => `${k}:${numberText(x)}`).join(",")]);
  }
  if (state.pass && state.pass !== "start") {
    parts.push(["pass", state.pass]);
    parts.push(["step", String(state.step ?? 0)]);
  }
  if (state.order?.length) parts.push(["order", state.order.map(encodeURIComponent).join(",")]);
  if (state.open) parts.push(["open", state.open.join(",")]);
  if (state.cp === false) parts.push(["cp", "0"]);
  const own = parts.map(([k, v]) => `${k}=${k === "order" ? v : k === "program" ? readableText(v) : readable(v)}`);
  const rest = other.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return `?${[...own, ...rest].join("&")}`;
}

function numberText(x) {
  const v = Number(x);
  return Object.is(v, -0) ? "-0" : String(v); // String(-0) is "0": keep the sign in the link
}

// encodeURIComponent, but ":" and "," (safe in a query) stay readable.
function readable(text) {
  return encodeURIComponent(text).replace(/%3A/gi, ":").replace(/%2C/gi, ",");
}

// A program's text in a query, as readable as a query allows: a space is "+" (a "+"
// of its own is %2B) and "=" stays itself, as URLSearchParams reads them back.
function readableText(text) {
  return readable(text).replace(/%20/g, "+").replace(/%3D/gi, "=");
}

// The parameter each format of a link's program is written as.
const PROGRAM_KEYS = { deflate: "prog", plain: "src", text: "program" };

function short(text) {
  const t = String(text);
  return t.length > 40 ? `${t.slice(0, 37)}…` : t;
}

// ---------------------------------------------------------------- program text

function canCompress() {
  return typeof CompressionStream === "function" && typeof DecompressionStream === "function";
}

// A program → base64url text for prog= (deflate-raw) or src= (plain).
export async function encodeProgram(text) {
  const bytes = new TextEncoder().encode(text);
  if (!canCompress()) return { encoded: toBase64url(bytes), format: "plain" };
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const packed = new Uint8Array(await new Response(stream).arrayBuffer());
  return { encoded: toBase64url(packed), format: "deflate" };
}

// base64url text (in the "text" format, the program itself) → the program, or throws an
// Error with a short reason. A damaged or oversized stream is refused without reading all
// of it (no decompression bomb).
export async function decodeProgram(encoded, format) {
  if (format === "text") {
    if (encoded.length > MAX_SOURCE_CHARS) throw new Error("the program in the link is too long");
    return encoded;
  }
  const bytes = fromBase64url(encoded);
  const limit = MAX_SOURCE_CHARS * 4; // UTF-8 bytes of the longest allowed program
  let raw;
  if (format === "plain") {
    if (bytes.length > limit) throw new Error("the program in the link is too long");
    raw = bytes;
  } else {
    if (!canCompress()) throw new Error("this browser cannot unpack the program in the link");
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
    const chunks = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.length;
        if (total > limit) {
          reader.cancel().catch(() => {});
          throw new Error("the program in the link is too long");
        }
        chunks.push(value);
      }
    } catch (error) {
      if (error.message === "the program in the link is too long") throw error;
      throw new Error("the program in the link is damaged", { cause: error });
    }
    raw = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      raw.set(c, at);
      at += c.length;
    }
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new Error("the program in the link is damaged");
  }
  if (text.length > MAX_SOURCE_CHARS) throw new Error("the program in the link is too long");
  return text;
}

export function toBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new Error("the program in the link is damaged");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  let binary;
  try {
    binary = atob(b64);
  } catch {
    throw new Error("the program in the link is damaged");
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
