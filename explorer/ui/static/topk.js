// topk.js: the next-token candidates of the current step as horizontal bars (plain HTML, so a step
// repaints them within a frame), the chosen token in vermillion. Each bar is a button: clicking it
// forces that candidate at this step (one request: the forced prefix grows by that token).
import { el, emit, fontSize } from "./dom.js";

// The candidates' box (`element`); a click on one emits "ae-force" with it (`online`: the page can ask for a trace).
export class Candidates {
  constructor(online) {
    this.online = online;
    this.element = el("div", "ae-topk");
    this.drawn = null; // [trace, step, font size] drawn last: candidates change with the trace and the step only
    this.element.addEventListener("click", (event) => {
      const row = event.target.closest && event.target.closest(".ae-cand");
      const [trace, step] = this.drawn || [];
      if (row && step > 0) emit(this.element, "ae-force", trace.steps[step - 1].top[Number(row.dataset.index)]);
    });
  }

  // The candidates of step t, unless they are on screen already. Returns a resolved promise.
  draw(trace, t) {
    const key = [trace, t, fontSize()];
    if (this.drawn && key.every((x, i) => x === this.drawn[i])) return Promise.resolve();
    this.drawn = key;
    const online = this.online;
    if (t === 0) {
      this.element.replaceChildren(el("div", "ae-label", "The next-token candidates appear after the first step."));
      return Promise.resolve();
    }
    const step = trace.steps[t - 1];
    const rows = step.top.map((c, i) => {
      const row = el("button", "ae-cand" + (c.id === step.id ? " ae-chosen" : ""));
      row.type = "button";
      row.dataset.index = i;
      row.title = "p = " + c.prob.toFixed(4) + (c.id === step.id ? " (chosen)" : "") + (online ? " · click to force this token" : "");
      const bar = el("span", "ae-cand-bar");
      bar.style.width = (100 * c.prob).toFixed(2) + "%";
      const track = el("span", "ae-cand-track");
      track.append(bar);
      row.append(el("span", "ae-cand-token", c.token), track, el("span", "ae-cand-p", (100 * c.prob).toFixed(1) + "%"));
      return row;
    });
    this.element.replaceChildren(el("div", "ae-label", "Next-token distribution at step " + t + (online ? " (click a candidate to force it)" : "")), ...rows);
    return Promise.resolve();
  }
}
