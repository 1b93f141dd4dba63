// quiz.js: "predict, then reveal". Before the next step, the student clicks the source token they expect
// the chosen cross-attention head to attend to most (or moves a cursor with [ and ] and presses Enter);
// the step is then taken and its row revealed, with the weight of their pick beside the maximum, and a
// running score over the sentence. Next (→) reveals without a pick. Everything comes from the trace. The quiz
// keeps its own answers; it changes what is shown only through the viewer's actions (select, go).
import { button, el } from "./dom.js";
import { headName } from "./trace.js";

export class Quiz {
  constructor(viewer) {
    this.viewer = viewer;
    this.on = false;
    this.banner = el("div", "ae-quiz"); // above the chart: the question, the last answer, the score
    this.banner.hidden = true;
    this.reset();
    viewer.store.subscribe((state) => {
      if (!state.trace) return;
      this.decorateChips(viewer.f.sourceBox);
      this.draw(state.trace, state);
    });
  }

  // A new sentence: a new round.
  reset() {
    this.cursor = 0;
    this.answers = []; // {step, pick, weight, best, bestWeight, layer, head}
    this.last = null;
  }

  // The head being quizzed: the selected cross-attention head, else the best-aligning one (else head 0).
  head(state) {
    const s = state || this.viewer.store.get(), t = this.viewer.trace;
    if (s.kind === "cross" && Number.isInteger(s.head)) return [s.layer, s.head];
    const best = t.model.best_head;
    return best && best.kind === "cross" ? [best.layer, best.head] : [t.nLayers("cross") - 1, 0];
  }

  toggle() {
    this.on = !this.on;
    this.reset();
    if (!this.on) return this.viewer.refresh();
    // the heatmap shows the quizzed head, so each reveal is its new row
    const [layer, head] = this.head(Object.assign({}, this.viewer.store.get(), { kind: "cross" }));
    this.viewer.select({ view: "heatmap", kind: "cross", layer: layer, head: head }, "quiz", true);
  }

  // The student's answer for the next step: source position `j` (null: revealed without a pick).
  pick(j) {
    const v = this.viewer, t = v.trace, step = v.store.get().step + 1;
    if (!this.on || step > t.T) return;
    if (j !== null && !(j >= 0 && j < t.S)) return;
    const [layer, head] = this.head();
    const row = t.weights("cross", layer, head, step)[step - 1];
    const best = row.indexOf(Math.max(...row));
    this.last = { step: step, pick: j, weight: j === null ? null : row[j], best: best, bestWeight: row[best], layer: layer, head: head };
    // a step scores once: going back and answering again shows the answer, it does not change the score
    if (!this.answers.some((a) => a.step === step)) this.answers.push(this.last);
    v.go(step, "quiz");
  }

  move(delta) {
    const S = this.viewer.trace.S;
    this.cursor = (this.cursor + delta + S) % S;
    this.viewer.refresh();
  }

  score() {
    const picked = this.answers.filter((a) => a.pick !== null);
    const right = picked.filter((a) => a.pick === a.best).length;
    const share = picked.length ? picked.reduce((sum, a) => sum + a.weight / a.bestWeight, 0) / picked.length : 0;
    return { right: right, picked: picked.length, share: share };
  }

  // The quiz bar: the question for the next step, the last answer revealed, the running score.
  draw(trace, state) {
    const bar = this.banner;
    bar.hidden = !this.on;
    if (!this.on) return;
    const [layer, head] = this.head(state);
    const parts = [];
    if (this.last && this.last.step === state.step) {
      const a = this.last;
      const verdict = a.pick === null ? "Revealed without a guess: " :
        a.pick === a.best ? "Right: " : "You picked “" + trace.sourceTokens[a.pick] + "” (weight " + a.weight.toFixed(2) + "); ";
      parts.push(el("div", "ae-quiz-result " + (a.pick === a.best ? "ae-quiz-right" : ""),
        verdict + "the head put most weight, " + a.bestWeight.toFixed(2) + ", on “" + trace.sourceTokens[a.best] + "”."));
    }
    const sc = this.score();
    parts.push(el("div", "ae-quiz-score", "Score: " + sc.right + " of " + sc.picked + " right" +
      (sc.picked ? "; your picks got " + Math.round(100 * sc.share) + " % of the largest weight on average" : "")));
    if (state.step < trace.T) {
      parts.unshift(el("div", "ae-quiz-question", "Quiz · " + headName(layer, head) + ": which source token will step " +
        (state.step + 1) + " attend to most? Click it in Source (or [ ] to move, Enter to choose); → reveals without a guess."));
    } else parts.unshift(el("div", "ae-quiz-question", "Quiz finished for this sentence."));
    const stop = el("button", "ae-btn", "End quiz");
    stop.type = "button";
    stop.addEventListener("click", () => this.toggle());
    parts.push(stop);
    bar.replaceChildren(...parts);
  }

  // ---- companion hooks (companions.js)

  tools() { return [button("Quiz", "Predict, then reveal: guess where a head will look before each step", () => this.toggle())]; }

  loading() { this.reset(); } // a new sentence: a new round

  answer(j) {
    if (!this.on) return false;
    this.pick(j);
    return true;
  }

  onKey(key) { // [ and ] move the guess, Enter answers, → reveals without a guess, Esc ends it once no panel is open
    if (!this.on) return false;
    if (key === "[" || key === "]") this.move(key === "]" ? 1 : -1);
    else if (key === "Enter") this.pick(this.cursor);
    else if (key === "ArrowRight" || key === "PageDown") this.pick(null);
    else if (key === "Escape" && !this.viewer.state.panel) this.toggle();
    else return false;
    return true;
  }

  // Source chips as answers: clickable, the keyboard cursor outlined.
  decorateChips(box) {
    if (!this.on) return;
    Array.from(box.children).forEach((chip, j) => {
      chip.classList.add("ae-quiz-choice");
      chip.classList.toggle("ae-quiz-cursor", j === this.cursor);
      chip.dataset.index = j;
    });
  }
}
