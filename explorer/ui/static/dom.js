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

export function button(label, title, onClick, className) {
  const b = el("button", "ae-btn " + (className || ""), label);
  b.type = "button";
  if (title) b.title = title;
  if (onClick) b.addEventListener("click", onClick);
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

// A canvas of width x height CSS pixels, sharp on high-DPI screens; returns its context in CSS pixels.
export function sizeCanvas(canvas, width, height) {
  const dpr = window.devicePixelRatio || 1;
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

function presenting() { return document.body.classList.contains("presentation"); }
export function fontSize() { return presenting() ? SETTINGS.FONT.presentation : SETTINGS.FONT.normal; }

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
