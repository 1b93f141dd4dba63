// link.js: deep links. The address carries the trace request (request.js: the API's names, so its trace comes from
// /ae/api/trace with the same query; older links' names still open), the step, the kind, the layer, the head, the
// view and the lesson's stop, so opening it restores that view (one link per slide). The Translate tab's form is
// filled from the link in the browser (request.js formFromLink): opening a link costs no Gradio event.
import { fromQuery, toQuery } from "./request.js";

const DEFAULT_VIEW = "heatmap"; // left out of an address, as is "no lesson"

function linkParams(request, state) {
  const p = toQuery(request);
  p.set("step", state.step);
  p.set("kind", state.kind);
  p.set("layer", state.layer);
  p.set("head", state.head);
  if (state.view !== DEFAULT_VIEW) p.set("view", state.view);
  if (state.lesson) p.set("lesson", state.lesson);
  return p;
}

export function linkUrl(request, state) {
  const base = window.location.href.split("?")[0].split("#")[0];
  return base + "?" + linkParams(request, state).toString();
}

// The sentence an address names (`sentence=`, or an older link's `s=`), or "".
function linkSentence(p) {
  return p.get("sentence") || p.get("s") || "";
}

// The trace request the current address names.
export function requestOfLink() {
  return fromQuery(new URLSearchParams(window.location.search));
}

// The view the current address asks for ({sentence, view: {step, kind, layer, head, view, lesson}, unread}), or null;
// the viewer opens the trace of that sentence there (its store clamps what the trace does not have, and says so).
// An address that names a step is a whole place (linkParams): its view, if left out, is the default one, and its
// lesson none, so Back to it restores them rather than keeping the ones on screen.
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
  else if (p.has("step")) view.view = DEFAULT_VIEW;
  if (!p.has("lesson") && p.has("step")) view.lesson = null;
  return { sentence: linkSentence(p) || null, view: view, unread: unread };
}

// The address of the place on screen, keeping the parameters that are not the place's (the room being followed).
export function placeUrl(request, state) {
  const url = new URL(linkUrl(request, state));
  const room = new URLSearchParams(window.location.search).get("room");
  if (room) url.searchParams.set("room", room);
  return url.toString();
}
