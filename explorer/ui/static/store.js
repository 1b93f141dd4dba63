// store.js: the view state in one place: which step, attention kind, layer, head, view and panel are shown, and
// the lesson's stop (null: no lesson).
// set() merges a change, lets the owner clamp it to the trace on screen, and tells every subscriber the new state
// and which fields changed. Views read the state they are given and never write it; controllers (the keys, the
// toolbar, the quiz, a deep link) change it only through set().
const VIEW_STATE = ["step", "kind", "layer", "head", "view", "panel", "lesson"];

export function createStore(initial, clamp) {
  let state = Object.freeze(Object.assign({}, initial));
  const listeners = new Set();
  return {
    get: () => state,
    // change: some fields of the state; source: who changed it ("key", "click", "play", "link", ...).
    // `force`: tell the subscribers even when nothing changed (a new trace under the same state).
    set(change, source, force) {
      const merged = Object.assign({}, state, change);
      const next = Object.freeze(clamp ? clamp(merged) : merged);
      const changed = VIEW_STATE.filter((name) => next[name] !== state[name]);
      if (!changed.length && !force) return state;
      state = next;
      listeners.forEach((listener) => listener(state, changed, source));
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
