// ablation.js: the Head ablation tab, drawn by the browser from the trace on screen. A box per head of each kind
// (the heads of the model on screen), ticked where that trace has the head switched off; "Re-translate with these
// heads off" traces the sentence on screen again with the ticked heads off (the viewer shows it) and puts the
// translation with every head on beside it; "Switch all heads back on" traces it with none. The trace's request is
// the one source of truth: a head switched off in the viewer ("Heads that matter") is ticked here when its trace
// arrives (`page.agree`), and the heads stay off for the next sentence until they are switched back on.
import { KINDS, KIND_TITLES, headName } from "./trace.js";
import { api } from "./api.js";
import { button, el } from "./dom.js";

let tab = null; // {groups, before, after, note}: the tab's elements, once Gradio has mounted it

// Build the tab in `element` (the gr.HTML's js_on_load, when the tab is first opened) and show the trace on screen.
export function mount(element) {
  const groups = el("div", "ae-ablate-groups");
  const before = output("All heads", "ablate-before"), after = output("With the chosen heads off", "ablate-after");
  const note = el("div", "ae-ablate-note");
  const run = button("Re-translate with these heads off", "Trace the sentence on screen again with the ticked heads off",
    () => retranslate(ticked()), "ae-ablate-run");
  run.id = "ablate-btn";
  const clear = button("Switch all heads back on", "Trace the sentence on screen again with every head on",
    () => retranslate([]));
  element.replaceChildren(groups, el("div", "ae-ablate-buttons"), el("div", "ae-ablate-outputs"), note);
  element.children[1].append(run, clear);
  element.children[2].append(before.box, after.box);
  tab = { groups: groups, before: before.text, after: after.text, note: note };
  if (window.aeViewer && window.aeViewer.trace) show(window.aeViewer.trace);
}

function output(label, id) {
  const box = el("label", "ae-ablate-output"), text = el("output", "", "");
  text.id = id;
  box.append(el("span", "ae-row-label", label), text);
  return { box: box, text: text };
}

// The boxes of the model of `trace`, ticked as its request switches heads off.
export function show(trace) {
  if (!tab) return;
  const off = new Set(trace.request.ablation.map((h) => h.join(".")));
  tab.groups.replaceChildren(...KINDS.map((kind) => {
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

function ticked() {
  return [...tab.groups.querySelectorAll("input:checked")].map((box) => {
    const [kind, layer, head] = box.value.split(".");
    return [kind, Number(layer), Number(head)];
  });
}

// The sentence on screen traced again with `heads` off (the viewer shows it), beside its translation with all on.
function retranslate(heads) {
  const viewer = window.aeViewer, trace = viewer && viewer.trace;
  if (!trace) return Promise.resolve();
  const request = Object.assign({}, trace.request, { ablation: heads });
  tab.note.textContent = "Translating…";
  const all = api.translate(Object.assign({}, request, { ablation: [] }));
  return Promise.all([viewer.requestTrace(request), all]).then(([wire, whole]) => {
    if (!wire) { tab.note.textContent = "The trace was refused: the message is above the viewer."; return; }
    const off = wire.outputs[wire.outputs.length - 1];
    tab.before.textContent = whole.translation;
    tab.after.textContent = off;
    tab.note.textContent = !heads.length ? "All heads are on: both translations are the same model."
      : (off === whole.translation ? "Switching off " + heads.length + " head(s) did not change the translation."
        : "Switching off " + heads.length + " head(s) changed the translation.");
  }, (error) => { tab.note.textContent = error.message; });
}
