// panels.js: the registry of the panels under the chart, each the answer to a question the viewer asks the server
// about the trace on screen (explain a clicked cell, which heads matter, attention against attribution, the beam
// tree), with a button that closes it. question() says what to ask, or why there is nothing to ask; draw() shows a
// note, the wait, or the answer with its panel's own drawing.
import { button, el, emit } from "./dom.js";
import { PANEL as attribution } from "./attribution.js";
import { PANEL as beamTree } from "./beamtree.js";
import { PANEL as explain } from "./explain.js";
import { PANEL as heads } from "./heads.js";

// The registry: each panel is {what (its question), button ([label, tip] for the Tools row, or null),
// question(trace, state, cell, extra) -> {question, waiting} or {note}, draw(div, answer, state)}, exported as PANEL
// by its own module and registered once here, in the Tools row's order. A new panel is its file and one line here.
export const PANELS = [attribution, beamTree, heads, explain];
export const ON_CELL = PANELS.find((p) => p.onCell); // the panel a click on a heatmap's cell asks (explain.js)

function panelOf(what) {
  const panel = PANELS.find((p) => p.what === what);
  if (!panel) throw new Error("no such panel: " + what);
  return panel;
}

// What panel `what` asks about `trace` in `state` ({question, waiting}), or why it cannot ({note}); `cell` is the
// clicked heatmap cell for "explain".
export function question(what, trace, state, cell, extra) { return panelOf(what).question(trace, state, cell, extra); }

// Draw `content` ({what, note} or {what, answer}; a refusal's answer is {error}; null: closed) into div (layout.js
// draws it again only when it changes).
export function draw(div, content, state) {
  div.hidden = !content;
  if (!content) return;
  const close = button("✕", "Close this panel", () => emit(div, "ae-close-panel", {}), "ae-panel-close");
  const body = el("div", "ae-panel-body");
  div.replaceChildren(close, body); // on the page first: a view sizes itself to the panel's width
  if (content.answer && content.answer.error) body.appendChild(el("div", "ae-panel-error", content.answer.error));
  else if (content.answer) panelOf(content.what).draw(body, content.answer, state);
  else body.appendChild(el("div", "ae-panel-note", content.note));
  // how to read the answer, folded on a projector (presentation mode): the answer itself keeps the panel's height
  for (const caption of body.querySelectorAll(".ae-caption")) {
    const fold = el("details", "ae-panel-fold");
    fold.open = !document.body.classList.contains("presentation");
    caption.replaceWith(fold);
    fold.append(el("summary", "", "How to read this"), caption);
  }
}
