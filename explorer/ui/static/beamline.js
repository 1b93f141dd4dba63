// beamline.js: what beam search would write, in one line under the greedy step-through. The step-through stays
// greedy (the argmax at each step is what a lesson explains); where beam search (the request's beam size, 4 by
// default) ends on another translation, the line says which, and one click steps through it: its tokens forced, so
// the candidates at each step show where greedy would have gone instead. It is the beam tree's own question
// (beamtree.js, explorer/app/questions/beam_tree.py), asked once per trace when the step-through reaches the end of
// the translation (a beam search costs about what a trace does: a class that types its own sentences pays it only
// as far as it steps), so opening the tree after it costs nothing.
import { beamPath } from "./beamtree.js";
import { button, el, emit } from "./dom.js";

// Whether the line asks about `trace`: a plain greedy decode (no forced tokens, no what-if prefix).
export function asksBeam(trace) {
  const r = trace.request;
  return r.strategy === "greedy" && !(r.forced_ids && r.forced_ids.length) && !r.prefix;
}

// What the line says about `trace`, given the beam tree's `answer` (null while it is asked) and `followed` (the beam
// path a click on the line asked for, {sentence, model, ids}, or null): {text, action} or null for no line.
// action: {label, title, change} where change is the decode the button asks for.
export function beamLine(trace, answer, followed) {
  const r = trace.request;
  if (followed && followed.sentence === r.sentence && followed.model === trace.modelKey &&
      sameIds(followed.ids, r.forced_ids || [])) {
    return {
      text: "Stepping through what beam search (" + followed.beamSize + ") writes, its tokens forced: at each step the " +
        "candidates show where greedy decoding would have gone instead.",
      action: { label: "Back to greedy", title: "Decode this sentence greedily again", change: { forced_ids: [], prefix: "" } },
    };
  }
  if (!asksBeam(trace) || !answer || answer.error || !answer.nodes) return null;
  const greedy = trace.wire.outputs[trace.wire.outputs.length - 1];
  if (answer.translation === greedy) return null; // they agree: nothing to say
  return {
    text: "Beam search (" + answer.beam_size + ") writes: “" + answer.translation + "”",
    action: {
      label: "Step through it",
      title: "Step through beam search's translation: its tokens forced, one at a time",
      change: { strategy: "greedy", forced_ids: beamPath(answer.nodes, answer.winner), prefix: "" },
      beamSize: answer.beam_size,
    },
  };
}

function sameIds(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }

// Draw the line into `box` (hidden when there is none); its button emits "ae-beam-line" with the action.
export function drawBeamLine(box, line) {
  box.hidden = !line;
  if (!line) return box.replaceChildren();
  const act = button(line.action.label, line.action.title, () => emit(box, "ae-beam-line", line.action), "ae-beam-step");
  box.replaceChildren(el("span", "ae-beam-text", line.text), act);
}
