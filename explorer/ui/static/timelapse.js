// timelapse.js: the training time-lapse. For a recorded example (SETTINGS.TIMELAPSE, from the checkpoint's
// timelapse.json.gz), a "Training step" control shows the same sentence, kind, layer and head as the model
// decoded it at an earlier point of its training: what it translated then, and how cross-attention found the
// alignment. The traces come from the server once per sentence (explorer/app/http_api.py); other sentences
// are not recorded, and the control says so.
import { DEFAULT_MODEL, SETTINGS } from "./settings.js";
import { el } from "./dom.js";
import { api } from "./api.js";

export class TimeLapse {
  constructor(viewer) {
    this.viewer = viewer;
    this.traces = {}; // sentence -> promise of {steps, traces}
    this.select = el("select", "ae-training-step");
    this.select.title = "The model at an earlier point of its training (recorded examples only)";
    this.select.addEventListener("change", () => this.choose(Number(this.select.value)));
    this.label = el("label", "ae-row-label", "Training step");
    this.note = el("span", "ae-training-note");
    this.selectorRow = el("div", "ae-row ae-training"); // beside the kind, layer and head: one more choice of what is shown
    this.selectorRow.append(this.label, this.select, this.note);
    this.shown = null; // the training step on screen, null for the final model
  }

  // The plain greedy trace of a recorded sentence with the shipped model: the only one the time-lapse has.
  recorded(trace) {
    const r = trace.request, recorded = SETTINGS.TIMELAPSE.sentences;
    return this.viewer.online && recorded.includes(r.sentence) && r.strategy === "greedy" &&
      !(r.forced_ids || []).length && !(r.ablation || []).length && !r.prefix && (trace.modelKey === "shipped" || trace.modelKey === DEFAULT_MODEL);
  }

  // A trace the viewer loads (companions.js): the final model's unless the time-lapse asked for it.
  loading(trace, options) {
    if (!options.keepView) this.shown = null;
    this.update();
  }

  // Offer the steps for the trace on screen, or say why not.
  update() {
    const steps = SETTINGS.TIMELAPSE.steps;
    const ok = steps.length > 0 && this.recorded(this.viewer.trace);
    this.selectorRow.hidden = !steps.length;
    this.select.disabled = !ok;
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
}
