// ablation.js: the Head ablation tab, drawn by the browser from the trace on screen. A box per head of each kind
// (the heads of the model on screen), ticked where that trace has the head switched off; "Re-translate with these
// heads off" traces the sentence on screen again with the ticked heads off (the viewer shows it) and puts the
// translation with every head on beside it; "Switch all heads back on" traces it with none. The trace's request is
// the one source of truth: the tab subscribes to the viewer's store, so a head switched off in the viewer ("Heads that
// matter") is ticked here when its trace arrives, and the heads stay off for the next sentence until they are switched
// back on.
import { KINDS, KIND_TITLES, headName } from "./trace.js";
import { api } from "./api.js";
import { button, el } from "./dom.js";

class Ablation {
  // Build the tab in `element` and show the trace on screen (tabs.js: the context).
  constructor(element, context) {
    this.viewer = context.viewer;
    this.signal = context.signal;
    this.groups = el("div", "ae-ablate-groups");
    const before = output("All heads", "ablate-before"), after = output("With the chosen heads off", "ablate-after");
    this.before = before.text;
    this.after = after.text;
    this.note = el("div", "ae-ablate-note");
    const run = button("Re-translate with these heads off", "Trace the sentence on screen again with the ticked heads off",
      () => this.retranslate(this.ticked()), "ae-ablate-run", this.signal);
    run.id = "ablate-btn";
    const clear = button("Switch all heads back on", "Trace the sentence on screen again with every head on",
      () => this.retranslate([]), "", this.signal);
    const buttons = el("div", "ae-ablate-buttons"), outputs = el("div", "ae-ablate-outputs");
    buttons.append(run, clear);
    outputs.append(before.box, after.box);
    element.replaceChildren(this.groups, buttons, outputs, this.note);
    const unsubscribe = this.viewer.store.subscribe((state, changed) => {
      if (state.trace && changed.includes("trace")) this.show(state.trace);
    });
    this.signal.addEventListener("abort", unsubscribe);
    if (this.viewer.trace) this.show(this.viewer.trace);
  }

  // The boxes of the model of `trace`, ticked as its request switches heads off.
  show(trace) {
    const off = new Set(trace.request.ablation.map((h) => h.join(".")));
    this.groups.replaceChildren(...KINDS.map((kind) => {
      const group = el("fieldset", "ae-ablate-group");
      group.id = "ablate-" + kind;
      group.append(el("legend", "", KIND_TITLES[kind]));
      for (let layer = 0; layer < trace.nLayers(kind); layer++) {
        for (let head = 0; head < trace.H; head++) {
          const box = el("input");
          box.type = "checkbox";
          box.value = [kind, layer, head].join(".");
          box.checked = off.has(box.value);
          const label = el("label", "ae-ablate-head");
          label.append(box, document.createTextNode(headName(layer, head)));
          group.append(label);
        }
      }
      return group;
    }));
  }

  ticked() {
    return [...this.groups.querySelectorAll("input:checked")].map((box) => {
      const [kind, layer, head] = box.value.split(".");
      return [kind, Number(layer), Number(head)];
    });
  }

  // The sentence on screen traced again with `heads` off (the viewer shows it), beside its translation with all on.
  retranslate(heads) {
    const trace = this.viewer.trace;
    if (!trace) return Promise.resolve();
    const request = Object.assign({}, trace.request, { ablation: heads });
    this.note.textContent = "Translating…";
    const all = api.translate(Object.assign({}, request, { ablation: [] }));
    return Promise.all([this.viewer.requestTrace(request), all]).then(([wire, whole]) => {
      if (this.signal.aborted) return;
      if (!wire) { this.note.textContent = "The trace was refused: the message is above the viewer."; return; }
      const off = wire.outputs[wire.outputs.length - 1];
      this.before.textContent = whole.translation;
      this.after.textContent = off;
      this.note.textContent = !heads.length ? "All heads are on: both translations are the same model."
        : (off === whole.translation ? "Switching off " + heads.length + " head(s) did not change the translation."
          : "Switching off " + heads.length + " head(s) changed the translation.");
    }, (error) => { this.note.textContent = error.message; });
  }
}

function output(label, id) {
  const box = el("label", "ae-ablate-output"), text = el("output", "", "");
  text.id = id;
  box.append(el("span", "ae-row-label", label), text);
  return { box: box, text: text };
}

export const TAB = { id: "ablation", create: (element, context) => new Ablation(element, context) };
