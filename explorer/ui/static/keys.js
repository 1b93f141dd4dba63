// keys.js: keyboard and presentation-clicker shortcuts: → / PageDown next token (in the lesson: the next stop),
// ← / PageUp previous, Home / End, digits choose the head, M mean, A all heads, R rollout, L cycles the layer,
// K the kind, V the view, G the gold alignment (a hand-aligned sentence), Space plays or pauses, / opens the field
// for the next sentence; in the quiz [ and ] move the guess, Enter answers.
// Inert while the person types in a text field. Autoplay is player.js.

import { goldView } from "./heatmap.js";

export const KEY_HELP = "→ / PageDown next · ← / PageUp previous · Home / End first / last · 0–9 head · M mean · A all heads · " +
  "R rollout · L layer · K kind · V view · G gold alignment · Space play / pause · / type a sentence · Esc closes a panel (then the lesson) · in the lesson: → ← move " +
  "through its stops · in the quiz: [ ] choose a source token, Enter answer, Esc end";

function typing(target) {
  if (!target || !target.tagName) return false;
  const tag = target.tagName.toLowerCase();
  if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
  if (tag !== "input") return false;
  const type = (target.type || "text").toLowerCase();
  return !["button", "checkbox", "radio", "range", "submit", "reset"].includes(type);
}

// Install one document-level listener driving `viewer`'s actions (go, select, cycle, togglePlay; viewer.js), after
// its companions' own keys (companions.js: the lesson's and the quiz's); the state they change is the viewer's store.
export function bindKeys(viewer) {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    if (!viewer.trace || !viewer.isVisible()) return;
    const key = event.key;
    if (viewer.hooked("onKey").some((c) => c.onKey(key))) { // the lesson's and the quiz's keys, while they are open
      event.preventDefault();
      return;
    }
    let handled = true;
    if (key === "ArrowRight" || key === "PageDown") viewer.go(viewer.store.get().step + 1, "key");
    else if (key === "ArrowLeft" || key === "PageUp") viewer.go(viewer.store.get().step - 1, "key");
    else if (key === "Home") viewer.go(0, "key");
    else if (key === "End") viewer.go(viewer.trace.T, "key");
    else if (/^[0-9]$/.test(key) && Number(key) < viewer.trace.H) viewer.select({ head: Number(key) }, "key");
    else if (key === "m" || key === "M") viewer.select({ head: "mean" }, "key");
    else if (key === "a" || key === "A") viewer.select({ head: "all" }, "key");
    else if (key === "r" || key === "R") viewer.select({ head: "rollout" }, "key");
    else if (key === "l" || key === "L") viewer.cycle("layer");
    else if (key === "k" || key === "K") viewer.cycle("kind");
    else if (key === "v" || key === "V") viewer.cycle("view");
    else if (key === "g" || key === "G") viewer.showGold(goldView(viewer.state));
    else if (key === " " || key === "Spacebar") viewer.togglePlay();
    else if (key === "/" && viewer.f.sentence) viewer.f.sentence.open();
    else if (key === "Escape" && viewer.store.get().panel) viewer.select({ panel: null }, "key");
    else handled = false;
    if (handled) event.preventDefault();
  });
}
