// panels.js: the questions the viewer asks the server about the trace on screen (explain a clicked cell, which
// heads matter, attention against attribution, the beam tree), and the panel under the chart that shows the
// answer, with a button that closes it. question() says what to ask, or why there is nothing to ask; draw() shows
// a note, the wait, or the answer with its own view (explain.js, heads.js, attribution.js, beamtree.js).
import { button, el, emit } from "./dom.js";
import * as attribution from "./attribution.js";
import * as beamtree from "./beamtree.js";
import * as explain from "./explain.js";
import * as heads from "./heads.js";

const VIEWS = { explain: explain.draw, heads: heads.draw, attribution: attribution.draw, beam_tree: beamtree.draw };

// What panel `what` asks about `trace` in `state` ({question, waiting}), or why it cannot ({note}); `cell` is the
// clicked heatmap cell for "explain".
export function question(what, trace, state, cell, extra) {
  if (what === "explain") {
    if (!Number.isInteger(cell.head)) {
      return { note: "Choose one head (0–" + (trace.H - 1) + ") to see how a weight is computed: the mean of heads " +
        "and the rollout are not one softmax." };
    }
    if (cell.weight === null) {
      return { note: "That key lies in the future of the query: the look-ahead mask sets its score to −∞ before " +
        "the softmax, so its weight is exactly 0." };
    }
    return {
      question: { what: "explain", kind: state.kind, layer: state.layer, head: cell.head, row: cell.row, column: cell.column },
      waiting: "Computing q and k for this cell…",
    };
  }
  if (what === "heads") { // the one-pass estimate first and at once; the exact answer when asked (heads.js's button)
    const method = (extra && extra.method) || "estimate";
    return {
      question: { what: "heads", method: method },
      waiting: method === "exact" ? "Switching each head off in turn…" : "Estimating every head in one pass…",
    };
  }
  if (what === "beam_tree") return { question: { what: "beam_tree" }, waiting: "Searching with every hypothesis recorded…" };
  if (what === "attribution") {
    if (state.step === 0) return { note: "Step forward first: at step 0 no token has been produced to attribute." };
    const [, , layer, head] = trace.crossRow(state); // the selected cross-attention head, else the best one
    return {
      question: { what: "attribution", step: state.step, layer: layer, head: head },
      waiting: "Integrating gradients for “" + trace.targetTokens[state.step - 1] + "”…",
    };
  }
  throw new Error("no such question: " + what);
}

// Draw `content` ({what, note} or {what, answer}; a refusal's answer is {error}; null: closed) into div (layout.js
// draws it again only when it changes).
export function draw(div, content, state) {
  div.hidden = !content;
  if (!content) return;
  const close = button("✕", "Close this panel", () => emit(div, "ae-close-panel", {}), "ae-panel-close");
  const body = el("div", "ae-panel-body");
  div.replaceChildren(close, body); // on the page first: a view sizes itself to the panel's width
  if (content.answer && content.answer.error) body.appendChild(el("div", "ae-panel-error", content.answer.error));
  else if (content.answer) VIEWS[content.what](body, content.answer, state);
  else body.appendChild(el("div", "ae-panel-note", content.note));
  // how to read the answer, folded on a projector (presentation mode): the answer itself keeps the panel's height
  for (const caption of body.querySelectorAll(".ae-caption")) {
    const fold = el("details", "ae-panel-fold");
    fold.open = !document.body.classList.contains("presentation");
    caption.replaceWith(fold);
    fold.append(el("summary", "", "How to read this"), caption);
  }
}
