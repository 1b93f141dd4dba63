// dom.js: what every view shares to build the page: elements with text (never markup: tokens may hold anything),
// escaping for Plotly's HTML subset, high-DPI canvases, the font family and size (larger in presentation mode),
// downloads and the clipboard.
import { SETTINGS } from "./settings.js";

export const FAMILY = 'system-ui, "Source Sans Pro", sans-serif';

// An element with a class and text.
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A button that calls `onClick` (until `signal`, an AbortSignal, ends the listener).
export function button(label, title, onClick, className, signal) {
  const b = el("button", "ae-btn " + (className || ""), label);
  b.type = "button";
  if (title) b.title = title;
  if (onClick) b.addEventListener("click", onClick, { signal: signal });
  return b;
}

// Plotly renders a subset of HTML in text: escape tokens so "<s>" or typed markup show as text.
export function escape(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// A view tells the viewer what the person asked for (a cell, a head, a candidate) as a bubbling DOM event.
export function emit(element, name, detail) {
  element.dispatchEvent(new CustomEvent(name, { detail: detail, bubbles: true }));
}

// A canvas of width x height CSS pixels, sharp on high-DPI screens (or `ratio` device pixels per CSS pixel, for a
// picture); returns its context in CSS pixels.
export function sizeCanvas(canvas, width, height, ratio) {
  const dpr = ratio || window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

// Presentation mode (a projector): larger type, and layouts for a narrower chart.
export function presenting() { return document.body.classList.contains("presentation"); }
export function fontSize() { return presenting() ? SETTINGS.FONT.presentation : SETTINGS.FONT.normal; }
// The smallest text a chart may draw: 16 px on a projector (presentation mode), 8 px at a desk.
export function textFloor() { return presenting() ? 16 : 8; }

// `canvas` (drawn at `ratio` device pixels per CSS pixel) below a band `band` CSS pixels tall that `paint(ctx)` fills
// (in CSS pixels): a picture with its explanation above it.
export function belowBand(canvas, band, ratio, paint) {
  const out = document.createElement("canvas");
  out.width = canvas.width;
  out.height = canvas.height + Math.round(band * ratio);
  const ctx = out.getContext("2d");
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(canvas, 0, Math.round(band * ratio));
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = "#1f2937";
  ctx.textBaseline = "middle";
  paint(ctx);
  return out;
}

// `text` in lines no wider than `width` px as `ctx` measures them (its font set): broken at spaces, and a word wider
// than the line broken where it must.
export function wrapText(ctx, text, width) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(" ")) {
    const joined = line ? line + " " + word : word;
    if (ctx.measureText(joined).width <= width) { line = joined; continue; }
    if (line) lines.push(line);
    line = word;
    while (ctx.measureText(line).width > width && line.length > 1) { // a word wider than the line
      let cut = line.length - 1;
      while (cut > 1 && ctx.measureText(line.slice(0, cut)).width > width) cut--;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line) lines.push(line);
  return lines;
}

// `canvas` below `lines` of text (the sentence, the step), each wrapped to the picture's width: the picture a slide
// needs, whatever the view.
export function withHeader(canvas, lines, ratio) {
  const font = fontSize(), width = canvas.width / ratio - 12;
  const measure = document.createElement("canvas").getContext("2d");
  const rows = lines.flatMap((text, n) => {
    measure.font = (n === 0 ? "600 " : "") + font + "px " + FAMILY;
    return wrapText(measure, text, width).map((part) => [part, measure.font]);
  });
  return belowBand(canvas, rows.length * (font + 8) + 8, ratio, (ctx) => rows.forEach(([text, style], n) => {
    ctx.font = style;
    ctx.fillText(text, 6, (n + 0.5) * (font + 8) + 4);
  }));
}

// Any canvas as a PNG download, exactly as drawn.
export function canvasPng(canvas, filename) {
  const link = document.createElement("a");
  link.href = canvas.toDataURL("image/png");
  link.download = filename;
  link.click();
}

export function download(text, filename, type) {
  const url = URL.createObjectURL(new Blob([text], { type: type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function filename(sentence, ext) {
  const slug = sentence.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "sentence";
  return "attention-" + slug + ext;
}

export function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  document.body.appendChild(area);
  area.select();
  try { document.execCommand("copy"); } finally { area.remove(); }
  return Promise.resolve();
}
