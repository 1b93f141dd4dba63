// exports.js: what the viewer gives away from the view on screen: a link to exactly this view (copied, and put in the
// address bar), the chart as a PNG for a slide, the sentence as one HTML file that works offline, and its attention
// tensors as a numpy .npz.
import { api } from "./api.js";
import { canvasPng, copyText, download, el, filename } from "./dom.js";
import { standaloneHtml } from "./export.js";
import { linkUrl, placeUrl } from "./link.js";
import { VIEW_STATE } from "./store.js";

// The link to this view: copied, and put in the address bar too (where it can be copied by hand if the browser refuses
// the clipboard); the button says which. The shared link has no room in it; the address keeps the room this page follows.
export function copyLink(viewer, button) {
  const t = viewer.trace, s = viewer.state;
  const url = linkUrl(t.request, s);
  if (viewer.online) {
    try { window.history.replaceState(null, "", placeUrl(t.request, s)); } catch (e) { /* throttled */ }
  }
  const say = (text) => {
    button.textContent = text;
    setTimeout(() => { button.textContent = "Copy link"; }, 2000);
  };
  copyText(url).then(() => say("✓ Copied"), () => say("In the address bar"));
  return url;
}

// The chart on screen as a PNG for a slide: at twice the screen's size, with the sentence, the output so far and the
// step above it.
export function exportPng(viewer) {
  const s = viewer.state, t = viewer.trace;
  const name = filename(t.request.sentence, "") + "-" + s.view + "-step" + s.step;
  const header = ["“" + t.request.sentence + "” → “" + (t.wire.outputs[s.step] || "") + "”",
    "Step " + s.step + " of " + t.T + " · model: " + t.model.name + " (" + t.languages + ") · Attention Explorer"];
  return Promise.resolve().then(() => viewer.f.area.view(s.view).png(header))
    .then((canvas) => canvasPng(canvas, name + ".png"), (error) => viewer.say(error.message)); // a blank chart: said
}

export function exportHtml(viewer) {
  const t = viewer.trace;
  const place = Object.fromEntries(VIEW_STATE.map((name) => [name, viewer.state[name]])); // the view, not the data
  return standaloneHtml(t.wire, place).then((html) => {
    download(html, filename(t.request.sentence, ".html"), "text/html");
    return html.length;
  }).catch((err) => viewer.say("Export failed: " + err.message));
}

export function exportNpz(viewer) {
  const a = el("a");
  a.href = api.npzUrl(viewer.trace.request, viewer.state.step);
  a.download = "";
  document.body.appendChild(a);
  a.click();
  a.remove();
}
