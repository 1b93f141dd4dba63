// link.js: deep links. The address carries the sentence, the decoding options, the step, the kind,
// the layer, the head, the view and the lesson's stop, so opening it restores that view (one link per slide). The
// trace request's names are the API's (api.js queryParams), so its trace comes from /ae/api/trace with the same query; links
// made before they were (s=, forced=5,9, ablate=cross.2.1,...) still open. The Translate tab's form is filled
// from the link in the browser: opening a link costs no Gradio event.
import { DEFAULT_MODEL, SETTINGS, isShipped } from "./settings.js";
import { OPTIONS, queryParams } from "./api.js";

function linkParams(request, state, model) {
  const p = queryParams(request, model);
  p.set("step", state.step);
  p.set("kind", state.kind);
  p.set("layer", state.layer);
  p.set("head", state.head);
  if (state.view !== "heatmap") p.set("view", state.view);
  if (state.lesson) p.set("lesson", state.lesson);
  return p;
}

export function linkUrl(request, state, model) {
  const base = window.location.href.split("?")[0].split("#")[0];
  return base + "?" + linkParams(request, state, model).toString();
}

// The sentence an address names (`sentence=`, or an older link's `s=`), or "".
function linkSentence(p) {
  return p.get("sentence") || p.get("s") || "";
}

// The trace request an address names (the server validates it; this only reads the lists).
export function requestFromQuery(p) {
  const listed = (name, old) => p.getAll(name).concat((p.get(old) || "").split(",")).filter((x) => x.trim() !== "");
  const request = { sentence: linkSentence(p), forced_ids: listed("forced_ids", "forced").map(Number), ablation: [], model: p.get("model") || "shipped" };
  for (const name of OPTIONS) if (p.has(name)) request[name] = p.get(name);
  for (const item of listed("ablation", "ablate")) {
    const [kind, layer, head] = item.split(".");
    request.ablation.push([kind, Number(layer), Number(head)]);
  }
  return request;
}

// The Translate tab's form as a deep link fills it (the values of viewer.py's FORM, in order); without a link,
// the values as they are. Runs in the browser on page load: no server event.
export function formFromLink(values) {
  const p = new URLSearchParams(window.location.search);
  if (!linkSentence(p)) return values;
  const request = requestFromQuery(p);
  const out = values.slice();
  SETTINGS.FORM.forEach((name, i) => {
    if (name === "sentence") out[i] = request.sentence;
    else if (OPTIONS.includes(name) && request[name] !== undefined) {
      const number = typeof values[i] === "number";
      out[i] = number ? Number(request[name]) : request[name];
      if (number && !Number.isFinite(out[i])) out[i] = values[i];
    } else if (name === "model") out[i] = isShipped(request.model) && request.model !== "shipped" ? request.model : DEFAULT_MODEL;
    else if (name === "use_own") out[i] = false;
  });
  return out;
}

// The view the current address asks for ({sentence, view: {step, kind, layer, head, view}, unread}), or null; the
// viewer opens the trace of that sentence there (its store clamps what the trace does not have, and says so).
// `unread`: the values that are not numbers where numbers go ("layer=-3"), named to the person, never applied.
export function readLink() {
  const p = new URLSearchParams(window.location.search);
  if (!linkSentence(p) && !p.has("step")) return null;
  const view = {}, unread = [];
  for (const name of ["step", "layer", "lesson"]) {
    if (!p.has(name)) continue;
    if (/^\d+$/.test(p.get(name))) view[name] = Number(p.get(name));
    else unread.push(name + "=" + p.get(name).slice(0, 40));
  }
  if (p.has("head")) view.head = /^\d+$/.test(p.get("head")) ? Number(p.get("head")) : p.get("head");
  if (p.has("kind")) view.kind = p.get("kind");
  if (p.has("view")) view.view = p.get("view");
  return { sentence: linkSentence(p) || null, view: view, unread: unread };
}

// The address of the place on screen, keeping the parameters that are not the place's (the room being followed).
export function placeUrl(request, state, model) {
  const url = new URL(linkUrl(request, state, model));
  const room = new URLSearchParams(window.location.search).get("room");
  if (room) url.searchParams.set("room", room);
  return url.toString();
}
