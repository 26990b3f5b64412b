// Text in the graph: a text's width, measured once per font and string with a canvas
// (asking the layout would force one per call), so that a label too long for its box
// can be shortened.

// A text's width without asking the layout (getComputedTextLength forces one per
// call): one canvas measureText per (font, text), cached. The font is read from
// the element's computed style once per class (the stylesheet never changes).
const fontOfClass = new Map();
const widthCache = new Map();
let measurer;

function fontOf(textEl) {
  const key = textEl.getAttribute("class") ?? "";
  let font = fontOfClass.get(key);
  if (font === undefined) {
    font = null;
    try {
      const cs = getComputedStyle(textEl);
      if (cs.fontSize) {
        font = {
          css: `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`,
          spacing: parseFloat(cs.letterSpacing) || 0,
        };
      }
    } catch {
      // no style (detached)
    }
    if (font && textEl.isConnected) fontOfClass.set(key, font);
  }
  return font;
}

export function textWidth(textEl, text) {
  const font = fontOf(textEl);
  if (!font) return text.length * 6.2;
  const key = `${font.css}\u0000${text}`;
  let w = widthCache.get(key);
  if (w === undefined) {
    measurer ??= document.createElement("canvas").getContext("2d");
    if (!measurer) return text.length * 6.2;
    measurer.font = font.css;
    w = measurer.measureText(text).width + font.spacing * [...text].length;
    if (widthCache.size > 5000) widthCache.clear();
    widthCache.set(key, w);
  }
  return w;
}

// Show `text` in textEl, shortened with an ellipsis if it is wider than maxWidth
// (the whole of it is in the node's <title> and accessible name). Returns whether
// it was shortened.
export function fitText(textEl, text, maxWidth) {
  textEl.textContent = text;
  if (textWidth(textEl, text) <= maxWidth) return false;
  const chars = [...text];
  let lo = 0; // the longest prefix known to fit with the ellipsis
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(textEl, chars.slice(0, mid).join("") + "…") <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  textEl.textContent = chars.slice(0, Math.max(1, lo)).join("") + "…";
  return true;
}
