// topk.js: the next-token candidates of the current step as horizontal bars (plain HTML, so a step
// repaints them within a frame), the chosen token in vermillion. Each bar is a button: clicking it
// forces that candidate at this step (one request: the forced prefix grows by that token).
import { el, emit } from "./dom.js";

// The candidates of step state.step; a click on one emits "ae-force" with it.
export function draw(div, trace, state) {
  const t = state.step;
  bindClicks(div);
  div._topk = { trace: trace, step: t };
  if (t === 0) {
    div.replaceChildren(el("div", "ae-label", "The next-token candidates appear after the first step."));
    return Promise.resolve();
  }
  const step = trace.steps[t - 1];
  const rows = step.top.map((c, i) => {
    const row = el("button", "ae-cand" + (c.id === step.id ? " ae-chosen" : ""));
    row.type = "button";
    row.dataset.index = i;
    row.title = "p = " + c.prob.toFixed(4) + (c.id === step.id ? " (chosen)" : "") + (state.online ? " · click to force this token" : "");
    const bar = el("span", "ae-cand-bar");
    bar.style.width = (100 * c.prob).toFixed(2) + "%";
    const track = el("span", "ae-cand-track");
    track.append(bar);
    row.append(el("span", "ae-cand-token", c.token), track, el("span", "ae-cand-p", (100 * c.prob).toFixed(1) + "%"));
    return row;
  });
  div.replaceChildren(el("div", "ae-label", "Next-token distribution at step " + t + (state.online ? " (click a candidate to force it)" : "")), ...rows);
  return Promise.resolve();
}

function bindClicks(div) {
  if (div._topkBound) return;
  div._topkBound = true;
  div.addEventListener("click", (event) => {
    const row = event.target.closest && event.target.closest(".ae-cand");
    const { trace, step } = div._topk;
    if (row && step > 0) emit(div, "ae-force", trace.steps[step - 1].top[Number(row.dataset.index)]);
  });
}
