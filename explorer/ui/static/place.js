// place.js: the address bar holds the place as a person moves, in link.js's names: the sentence and its options, the
// step, the kind, layer and head, the view and the lesson's stop. A new decode (another sentence, options or model) is
// a new history entry, so Back returns to the sentence before at the step it was left at; a step, a head or a view
// replaces the entry, so Back is not a hundred steps long. Back and Forward open the entry's place; a reload opens the
// address like any link. Only the Gradio page keeps its place (an exported file has no address of its own).
import { placeUrl, readLink, requestFromQuery } from "./link.js";

// The decode a history entry is about: its request and its model.
function decodeOf(trace) {
  return JSON.stringify([trace.request, trace.modelKey]);
}

export function keepPlace(viewer) {
  let entry = null; // the decode of the current history entry
  viewer.store.subscribe((state, changed, source) => {
    const t = viewer.trace;
    if (!t || viewer.pendingView) return; // a link's (or Back's) decode is on its way: its address stays until then
    const url = placeUrl(t.request, state, t.modelKey);
    const decode = decodeOf(t);
    if (entry !== null && decode !== entry) window.history.pushState(null, "", url);
    else if (url !== window.location.href) window.history.replaceState(null, "", url);
    entry = decode;
  });
  window.addEventListener("popstate", () => {
    const link = readLink();
    if (!link || !link.sentence) return;
    const request = requestFromQuery(new URLSearchParams(window.location.search));
    viewer.pendingView = link; // the entry's decode (from the cache when it was seen), opened at the entry's place
    entry = null; // the entry exists already: the decode it opens replaces it, adds none
    viewer.requestTrace(request, request.model);
  });
}
