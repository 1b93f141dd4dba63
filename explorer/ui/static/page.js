// page.js: the Gradio page around the viewer, kept in agreement with the trace on screen: the header names the
// model whose attention is shown, its switch ticks that model, and the sentence box holds its sentence (the Head
// ablation tab follows the trace on its own: ablation.js).
// It also gives the Examples menu a placeholder, and opens the decoding options below the viewer when the viewer's
// "Decoding" button asks. It only reads the trace and writes these page elements; the trace stays the one source
// of truth.
import { DEFAULT_MODEL } from "./settings.js";

// The model (its name, and the header's switch) and the sentence of `trace`, shown on the page.
export function agree(trace) {
  label();
  document.querySelectorAll(".ae-model-name").forEach((node) => { node.textContent = trace.model.name; });
  document.querySelectorAll(".ae-languages").forEach((node) => { node.textContent = trace.languages; });
  showSentence(trace.request.sentence);
  showModel(trace);
}

// The header's model switch ticks the model of the trace on screen (a student following a lecturer who switched
// models sees the switch agree); ticked without an event, so no decode is asked for.
function showModel(trace) {
  const key = trace.modelKey === "shipped" ? DEFAULT_MODEL : trace.modelKey;
  const radios = [...document.querySelectorAll("#opt-model input[type=radio]")];
  const mine = radios.find((r) => r.value === key);
  if (mine) radios.forEach((r) => { r.checked = r === mine; }); // Gradio's radios share no name: each set apart
}

// The sentence box holds the sentence on screen (a student following the lecturer sees the lecturer's), unless the
// person is typing in it; the input event keeps Gradio's own value in step with what the box shows.
function showSentence(sentence) {
  const box = document.querySelector("#sentence textarea");
  if (!box || box.value === sentence || document.activeElement === box) return;
  box.value = sentence;
  box.dispatchEvent(new Event("input", { bubbles: true }));
}

// The Examples menu's value while the sentence box holds `sentence`: the example picked, only while the box holds it
// (a changed text is no example); it keeps saying what it is when Gradio draws it again empty.
export function exampleAgrees(sentence, example) {
  window.setTimeout(label, 50);
  return example && String(sentence).trim() === String(example).trim() ? example : null;
}

// The Examples menu says what it is before anything is chosen (Gradio's Dropdown has no placeholder).
function label() {
  const input = document.querySelector("#example input");
  if (input && !input.placeholder) input.placeholder = "Examples…";
}

// The decoding options (beam search, sampling, the what-if prefix) below the viewer: opened, and scrolled to the middle
// of the window with the strategy focused.
export function openOptions() {
  const options = document.querySelector("#options");
  if (!options) return;
  const strategy = () => document.querySelector("#opt-strategy");
  const open = () => strategy() && strategy().offsetParent !== null;
  if (!open()) options.querySelector("button").click();
  const show = () => {
    options.scrollIntoView({ block: "center" });
    const first = strategy() && strategy().querySelector("input:checked, input");
    if (first) first.focus({ preventScroll: true });
  };
  requestAnimationFrame(() => requestAnimationFrame(show)); // after Gradio has opened it
}
