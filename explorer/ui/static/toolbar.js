// toolbar.js: the step controls above the chart: first, previous, next, run to end, play with its pace, the step
// slider and "Step t / T". Each control asks the viewer's actions (go, togglePlay); render() shows the step.
import { button, el } from "./dom.js";

const PACES = [0.5, 1, 2, 3];

export class Toolbar {
  constructor(viewer) {
    const go = (step) => () => viewer.go(step(), "click");
    const at = () => viewer.state.step;
    this.buttons = {
      reset: button("« First", "First step (Home)", go(() => 0)),
      prev: button("◀ Previous", "Previous token (← or PageUp)", go(() => at() - 1)),
      next: button("Next ▶", "Next token (→ or PageDown)", go(() => at() + 1), "ae-primary"),
      end: button("Run to end »", "Run to end (End)", go(() => viewer.trace.T)),
      play: button("▶ Play", "Play / pause (Space)", () => viewer.togglePlay()),
    };
    this.pace = el("select", "ae-pace");
    this.pace.title = "Autoplay pace";
    PACES.forEach((p) => { const o = el("option", "", p + " s / token"); o.value = p; this.pace.appendChild(o); });
    this.pace.value = "1";
    this.pace.addEventListener("change", () => { if (viewer.player.playing()) viewer.player.start(this.seconds()); });
    this.slider = el("input", "ae-slider");
    Object.assign(this.slider, { type: "range", min: 0, step: 1 });
    this.slider.addEventListener("input", () => viewer.go(Number(this.slider.value), "slider"));
    this.stepLabel = el("span", "ae-step");
    this.element = el("div", "ae-toolbar");
    this.element.append(...Object.values(this.buttons), this.pace, this.slider, this.stepLabel);
  }

  seconds() { return Number(this.pace.value); } // the autoplay pace

  render(step, T, playing) {
    this.slider.max = T;
    this.slider.value = step;
    this.stepLabel.textContent = "Step " + step + " / " + T;
    this.buttons.prev.disabled = this.buttons.reset.disabled = step === 0;
    this.buttons.next.disabled = this.buttons.end.disabled = step === T;
    this.buttons.play.textContent = playing ? "⏸ Pause" : "▶ Play";
  }
}
