// sentencefield.js: the next sentence typed without leaving the viewer. "/" (or the Tools row's "✎ Sentence") opens
// a field under the step controls, holding the sentence on screen, selected; Enter decodes the typed sentence with the
// options and the model on screen (heads switched off stay off), Escape closes it. The viewer stays where it is: in
// presentation mode the page's own sentence box is above the window, and scrolling to it would move the projector.
import { button, el } from "./dom.js";

export class SentenceField {
  constructor(viewer) {
    this.viewer = viewer;
    const form = (this.element = el("form", "ae-sentence-field"));
    form.hidden = true;
    const input = (this.input = el("input", "ae-sentence-input"));
    input.type = "text";
    input.maxLength = 1000;
    input.setAttribute("aria-label", "The next sentence to translate (Enter decodes it, Escape closes)");
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); this.close(); }
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    form.append(el("span", "ae-row-label", "Sentence"), input,
      button("Translate", "Decode this sentence with the options and the model on screen", null, "ae-sentence-go"),
      button("✕", "Close (Escape)", () => this.close(), "ae-sentence-close"));
    form.querySelector(".ae-sentence-go").type = "submit";
  }

  open() {
    const t = this.viewer.trace;
    this.element.hidden = false;
    this.input.value = t ? t.request.sentence : "";
    this.input.focus({ preventScroll: true });
    this.input.select();
  }

  close() {
    this.element.hidden = true;
    this.input.blur(); // the keys step the viewer again
  }

  submit() {
    const sentence = this.input.value.trim();
    if (!sentence) return this.viewer.say("Type a sentence first, then press Enter.");
    this.close();
    const t = this.viewer.trace;
    if (t && sentence === t.request.sentence && !t.request.forced_ids.length && !t.request.prefix) return null;
    return this.viewer.decodeWith({ sentence: sentence, forced_ids: [], prefix: "" });
  }
}
