// store.js: what the viewer shows, in one place. The view state: which step, attention kind, layer, head, view and
// panel are shown, and the lesson's stop (null: no lesson). Beside it what the server sent for it: the trace on
// screen, the question Compare two asked for its second trace (null: none), the answers to the questions asked about
// the trace (by question: answers.js), and what the open panel asks or says ({what, question, waiting} or {what, note}).
// set() merges a change, lets the owner clamp it to the trace on screen (`clampToTrace`), and tells every subscriber
// the new state and which fields changed. Views read the state they are given and never write it; controllers (the
// keys, the toolbar, the companions, a deep link) change it only through set().
import { KINDS } from "./trace.js";

export const VIEW_STATE = ["step", "kind", "layer", "head", "view", "panel", "lesson"];
export const SENT = ["trace", "compare", "answers", "panelContent"]; // what the server sent, for the state shown

// `report(error)`: what becomes of a subscriber's error (by default thrown again on its own, so the page reports it):
// the other subscribers still hear of the change (a view's bug does not keep the address or the room a step behind).
export function createStore(initial, clamp, report = (error) => setTimeout(() => { throw error; })) {
  let state = Object.freeze(Object.assign({ trace: null, compare: null, answers: {}, panelContent: null }, initial));
  const listeners = new Set();
  return {
    get: () => state,
    // change: some fields of the state; source: who changed it ("key", "click", "play", "link", "answer", ...).
    // `force`: tell the subscribers even when nothing changed (the same state drawn again).
    set(change, source, force) {
      const merged = Object.assign({}, state, change);
      const next = Object.freeze(clamp ? clamp(merged) : merged);
      const changed = VIEW_STATE.concat(SENT).filter((name) => next[name] !== state[name]);
      if (!changed.length && !force) return state;
      state = next;
      listeners.forEach((listener) => {
        try { listener(state, changed, source); } catch (error) { report(error); }
      });
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// The state as `trace` allows it: a known kind, view and panel, the step, layer and head in range (`views`: the
// registered view ids, the first the default; `panels`: the panels' ids; `extra`: the companions' own clamps, such as
// the lesson's stop). Without a trace the state is as given.
export function clampToTrace(s, trace, views, panels, extra) {
  if (!trace) return s;
  const out = Object.assign({}, s);
  if (!KINDS.includes(out.kind)) out.kind = "cross";
  if (!views.includes(out.view)) out.view = views[0];
  if (!panels.includes(out.panel)) out.panel = null;
  (extra || []).forEach((clamp) => clamp(out));
  out.step = Math.max(0, Math.min(trace.T, Number(out.step) || 0));
  out.layer = Math.max(0, Math.min(trace.nLayers(out.kind) - 1, Number(out.layer) || 0));
  const named = out.head === "mean" || out.head === "all" || (out.head === "rollout" && trace.hasRollout(out.kind));
  if (!(named || (Number.isInteger(out.head) && out.head >= 0 && out.head < trace.H))) out.head = "mean";
  return out;
}
