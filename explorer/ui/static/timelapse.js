// timelapse.js: the training time-lapse. For a recorded example (SETTINGS.TIMELAPSE, from the checkpoint's
// timelapse.json.gz), a "Training step" control shows the same sentence, kind, layer and head as the model
// decoded it at an earlier point of its training: what it translated then, and how cross-attention found the
// alignment. The traces come from the server once per sentence (explorer/app/http_api.py); other sentences
// are not recorded, and the control says so. Play shows each recorded step in turn, then the final model: the
// translation forming as the model trained.
import { DEFAULT_MODEL, SETTINGS } from "./settings.js";
import { button, el } from "./dom.js";
import { api } from "./api.js";

export const PACE_MS = 1500; // how long a played point stays on screen once it is drawn

export class TimeLapse {
  // `record`: the sentences and steps the checkpoint's time-lapse holds (the page's settings)
  constructor(viewer, record = SETTINGS.TIMELAPSE) {
    this.viewer = viewer;
    this.record = record;
    this.traces = {}; // sentence -> promise of {steps, traces}
    this.select = el("select", "ae-training-step");
    this.select.title = "The model at an earlier point of its training (recorded examples only)";
    this.select.addEventListener("change", () => {
      const i = Number(this.select.value); // before stop() redraws the options
      this.stop(); // a step chosen by hand ends the playing
      this.choose(i);
    });
    this.label = el("label", "ae-row-label", "Training step");
    this.play = button("▶ Play training", "Play the time-lapse: each recorded training step in turn, then the final model",
      () => this.togglePlay(), "ae-training-play");
    this.note = el("span", "ae-training-note");
    this.selectorRow = el("div", "ae-row ae-training"); // beside the kind, layer and head: one more choice of what is shown
    this.selectorRow.append(this.label, this.select, this.play, this.note);
    this.shown = null; // the training step on screen, null for the final model
    this.playing = null; // the run of Play in progress (a token), null when still
    this.pace = PACE_MS;
  }

  // The plain greedy trace of a recorded sentence with the shipped model: the only one the time-lapse has.
  recorded(trace) {
    const r = trace.request, recorded = this.record.sentences;
    return this.viewer.online && recorded.includes(r.sentence) && r.strategy === "greedy" &&
      !(r.forced_ids || []).length && !(r.ablation || []).length && !r.prefix && (trace.modelKey === "shipped" || trace.modelKey === DEFAULT_MODEL);
  }

  // A trace the viewer loads (companions.js): the final model's unless the time-lapse asked for it.
  loading(trace, options) {
    if (!options.keepView) {
      this.shown = null;
      this.playing = null; // another sentence: the playing ends (drawn by the update below)
    }
    this.update();
  }

  // Offer the steps for the trace on screen, or say why not.
  update() {
    const steps = this.record.steps;
    const ok = steps.length > 0 && this.recorded(this.viewer.trace);
    if (!ok) this.playing = null; // another model, or options the time-lapse has no record of
    this.selectorRow.hidden = !steps.length;
    this.select.disabled = !ok;
    this.play.disabled = !ok;
    this.play.textContent = this.playing ? "⏸ Pause training" : "▶ Play training"; // not the decode's Play
    this.play.setAttribute("aria-pressed", this.playing ? "true" : "false");
    this.select.replaceChildren(...steps.map((step, i) => {
      const o = el("option", "", i === steps.length - 1 ? "final (" + step + ")" : String(step));
      o.value = i;
      return o;
    }));
    const i = this.shown === null ? steps.length - 1 : steps.indexOf(this.shown);
    this.select.value = String(Math.max(0, i));
    this.note.textContent = !steps.length ? "" : ok
      ? (this.shown === null ? "" : "The model after " + this.shown + " of " + steps[steps.length - 1] + " training steps.")
      : "Only the Translate tab's examples (greedy, nothing forced or switched off) have a training time-lapse.";
  }

  // Show point `i` of the time-lapse: the same view of the same sentence, decoded by that model.
  choose(i) {
    const v = this.viewer, sentence = v.trace.request.sentence;
    if (!this.traces[sentence]) {
      this.traces[sentence] = api.timelapse(sentence);
      this.traces[sentence].catch(() => { delete this.traces[sentence]; });
    }
    v.explore(); // a student looking at an earlier model is exploring on their own
    const point = this.traces[sentence].then((recorded) => { // a sentence translated meanwhile wins over this answer
      this.shown = i === recorded.steps.length - 1 ? null : recorded.steps[i];
      return recorded.traces[i];
    });
    return v.show(point, { keepView: true });
  }

  // Play: from the step after the one shown (from the first when the final model is shown) to the final model, each
  // point drawn and then left `pace` ms on screen; pressed again (Pause), it stops where it is.
  async togglePlay() {
    if (this.playing) return this.stop();
    const run = (this.playing = {}), steps = this.record.steps;
    this.update();
    const from = this.shown === null ? 0 : steps.indexOf(this.shown) + 1;
    for (let i = from; i < steps.length && this.playing === run; i++) {
      const drawn = await this.choose(i);
      if (!drawn) break; // refused or superseded: nothing more to play
      if (i < steps.length - 1 && this.playing === run) await new Promise((resolve) => setTimeout(resolve, this.pace));
    }
    if (this.playing === run) this.stop();
  }

  stop() {
    this.playing = null;
    this.update();
  }
}
