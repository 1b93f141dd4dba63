// place.js: the address bar holds the place as a person moves, in link.js's names: the sentence and its options, the
// step, the kind, layer and head, the view and the lesson's stop. A new decode (another sentence, options or model) is
// a new history entry, so Back returns to the sentence before at the step it was left at; a step, a head or a view
// replaces the entry (at most every REPLACE_MS: browsers throttle the history API), so Back is not a hundred steps
// long. Back and Forward open the entry's place; a reload opens the address like any link. Only the Gradio page keeps
// its place (an exported file has no address of its own), and not a student's page following a room: its address
// stays `?room=CODE`, so a reload follows the room again.
import { placeUrl, readLink, requestOfLink } from "./link.js";

const REPLACE_MS = 300;

// The decode a history entry is about: its request (its model among its fields).
function decodeOf(trace) {
  return JSON.stringify(trace.request);
}

function history(method, url) {
  try { window.history[method](null, "", url); } catch (e) { /* throttled (Safari): the next change writes it */ }
}

export function keepPlace(viewer) {
  if (new URLSearchParams(window.location.search).has("room")) return; // the room decides this page's place
  let entry = null; // the decode of the current history entry
  let pending = null; // a replaced address waiting for REPLACE_MS
  viewer.store.subscribe((state) => {
    const t = viewer.trace;
    if (!t || viewer.pendingView) return; // a link's (or Back's) decode is on its way: its address stays until then
    const url = placeUrl(t.request, state);
    const decode = decodeOf(t);
    if (entry !== null && decode !== entry && url !== window.location.href) {
      window.clearTimeout(pending);
      history("pushState", url);
    } else if (url !== window.location.href) {
      window.clearTimeout(pending);
      pending = window.setTimeout(() => history("replaceState", url), entry === null ? 0 : REPLACE_MS);
    }
    entry = decode;
  });
  window.addEventListener("popstate", () => {
    window.clearTimeout(pending);
    const link = readLink();
    if (!link || !link.sentence) return;
    const request = requestOfLink();
    link.own = true;
    entry = null; // the entry exists already: the decode it opens replaces it, adds none
    // the entry's decode (from the cache when it was seen), opened at the entry's place
    viewer.requestTrace(request, { link: true, opensAt: link });
  });
}
