// Numbers for people and numbers for machines, and numbers a learner types (parseNumber).
//
// fmt(x):   what a learner reads — 4 significant digits, integers without ".0",
//           and nan / inf / -inf / -0 as themselves. It follows the engine's own
//           formatter (engine/text.py, Python's "%.4g"), so the graph, the table
//           and the engine's narration always write a number the same way.
//           With more digits on (a widget's "More digits" button, state.digits),
//           fmt(x) writes five decimals instead (-2.14112, -0.98999), and very small
//           or very large numbers with 6 significant digits. The setting is each
//           widget's own: its render draws inside withDigits(state.digits, draw), so
//           everything it writes then, the graph, the table, the details, agrees, and
//           another widget on the page keeps its own. A caller that asks for its own
//           digits, fmt(x, 8), keeps them.
// exact(x): what data-* attributes hold — JavaScript's String(Number(x)) of the
//           engine's value ("15", "-1.5", "0.7071067811865477", "NaN", "Infinity"),
//           or "" when the value is not known yet (null / undefined).

export function exact(x) {
  if (x === null || x === undefined) return "";
  return String(Number(x));
}

let moreDigits = false; // while a widget draws: its setting (withDigits); else the short format

// Run draw() with numbers written as a widget asks (on: more digits), then go back to
// what was in force before (JavaScript runs one widget's drawing at a time).
export function withDigits(on, draw) {
  const before = moreDigits;
  moreDigits = Boolean(on);
  try {
    return draw();
  } finally {
    moreDigits = before;
  }
}

export function showsMoreDigits() {
  return moreDigits;
}

export function fmt(x, digits = null) {
  if (x === null || x === undefined) return "";
  const v = Number(x);
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  if (digits === null && moreDigits) return fiveDecimals(v);
  return pythonG(v, digits ?? 4);
}

// A number as a factor of a written product: a negative one in brackets, as the engine's
// sentences write it ("(-0.5134) × (-0.3949)"), so a minus is never read as a subtraction.
export function factor(x, digits = null) {
  const text = fmt(x, digits);
  return text.startsWith("-") ? `(${text})` : text;
}

// Five decimals, as a lesson asks for them ("to five decimals: -2.14112"); below 0.01
// five decimals would keep fewer digits than the short format, and from 1e9 up they
// would be a long row of digits, so those use 6 significant digits.
function fiveDecimals(v) {
  const size = Math.abs(v);
  if (size >= 0.01 && size < 1e9) return stripZeros(v.toFixed(5));
  return pythonG(v, 6);
}

// Python's format(v, ".<digits>g") for a finite, non-zero number.
function pythonG(v, digits) {
  const [mantissa, expText] = v.toExponential(digits - 1).split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= digits) {
    const sign = exp < 0 ? "-" : "+";
    const e = String(Math.abs(exp)).padStart(2, "0");
    return `${stripZeros(mantissa)}e${sign}${e}`;
  }
  return stripZeros(v.toFixed(Math.max(0, digits - 1 - exp)));
}

function stripZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

// "×"-style operator names for the graph's op badges.
const OP_SYMBOLS = { "*": "×", "-": "−", "/": "÷", neg: "−x" };

export function opSymbol(op) {
  return OP_SYMBOLS[op] ?? op;
}

// A number typed by a learner: "3", "-1.5", "−1.5" (a typographic minus), ".5",
// "1e-3", "1/2". Returns a finite number or null.
export function parseNumber(text) {
  const t = String(text).trim().replace(/[\u2212\u2013]/g, "-").replace(/\s+/g, "");
  if (!t) return null;
  const plain = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  if (plain.test(t)) {
    const v = Number(t);
    return Number.isFinite(v) ? v : null;
  }
  const frac = t.match(/^([+-]?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/);
  if (frac && Number(frac[2]) !== 0) {
    const v = Number(frac[1]) / Number(frac[2]);
    return Number.isFinite(v) ? v : null;
  }
  return null;
}
