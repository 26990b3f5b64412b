// Numbers for people and numbers for machines.
//
// fmt(x):   what a learner reads — 4 significant digits, integers without ".0",
//           and nan / inf / -inf / -0 as themselves. It follows the engine's own
//           formatter (engine/text.py, Python's "%.4g"), so the graph, the table
//           and the engine's narration always write a number the same way.
// exact(x): what data-* attributes hold — JavaScript's String(Number(x)) of the
//           engine's value ("15", "-1.5", "0.7071067811865477", "NaN", "Infinity"),
//           or "" when the value is not known yet (null / undefined).

export function exact(x) {
  if (x === null || x === undefined) return "";
  return String(Number(x));
}

export function fmt(x, digits = 4) {
  if (x === null || x === undefined) return "";
  const v = Number(x);
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return pythonG(v, digits);
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
