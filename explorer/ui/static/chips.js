// chips.js: the source tokens shaded by the current step's cross-attention row, the target tokens so
// far (start, produced, forced, current), the status line, the decode's notes and a beam search's beams. Plain DOM,
// no chart.
import { el } from "./dom.js";

function chip(text, className, style, title) {
  const span = document.createElement("span");
  span.className = "ae-chip " + className;
  span.textContent = text; // tokens are text, never markup
  if (style) span.setAttribute("style", style);
  if (title) span.title = title;
  return span;
}

// row: the cross-attention weights over the source at the current step (or null before step 1).
export function drawSourceChips(box, trace, row) {
  box.replaceChildren(...trace.sourceTokens.map((token, j) => {
    if (!row) return chip(token, "ae-source");
    const w = row[j];
    const style = "background: rgba(213, 94, 0, " + Math.min(1, w * 1.5).toFixed(3) + ");" + (w > 0.45 ? " color: white;" : "");
    return chip(token, "ae-source", style, "weight " + w.toFixed(4));
  }));
}

export function drawTargetChips(box, trace, t) {
  const chips = [chip("<s>", "ae-start")];
  for (let i = 0; i < t; i++) {
    const s = trace.steps[i];
    const kind = i === t - 1 ? "ae-current" : s.forced ? "ae-forced" : "ae-produced";
    chips.push(chip(s.token, kind, null, "p = " + (100 * s.prob).toFixed(1) + "%" + (s.forced ? " (forced)" : "")));
  }
  if (trace.steps.slice(0, t).some((s) => s.forced)) chips.push(forcedLegend());
  box.replaceChildren(...chips);
}

// What the pink chips mean, shown while one is on screen.
function forcedLegend() {
  const legend = document.createElement("span");
  legend.className = "ae-chip-legend";
  const swatch = document.createElement("span");
  swatch.className = "ae-swatch ae-swatch-forced";
  legend.append(swatch, "forced: you chose it, not the model");
  return legend;
}

function statusText(trace, t) {
  if (t === 0) return "Step 0 of " + trace.T + ": ready. Press → (Next) to produce the first target token.";
  const s = trace.steps[t - 1];
  const how = s.forced ? "forced" : { sample: "sampled", beam: "from the best beam" }[trace.request.strategy] || "argmax";
  let text = "Step " + t + " of " + trace.T + ": produced “" + s.token + "” (p = " + (100 * s.prob).toFixed(1) + "%, " + how + ").";
  if (t === trace.T) text += trace.wire.finished === "eos" ? " Decoding finished at </s>." : " Decoding stopped at the length limit.";
  return text;
}

export function drawStatus(box, trace, t) {
  const line = document.createElement("div");
  line.className = "ae-status-line";
  line.textContent = statusText(trace, t);
  box.replaceChildren(line);
}

// The notes of the whole decode (what was forced or switched off, a length limit hit), beside the selectors: the
// status line above the chart stays one line.
export function drawNotes(box, trace) {
  box.hidden = !trace.wire.notes.length;
  box.replaceChildren(...trace.wire.notes.map((note) => {
    const item = document.createElement("li");
    item.textContent = note;
    return item;
  }));
}

// The beams of a beam search, ranked (the best one is the trace stepped through); hidden for other decodes.
export function drawBeams(box, trace) {
  const beams = trace.wire.beams;
  box.hidden = !beams.length;
  if (!beams.length) return;
  const table = el("table", "ae-beam-table");
  const head = el("tr");
  ["rank", "translation", "score", "log-prob", "finished"].forEach((h) => head.appendChild(el("th", "", h)));
  table.appendChild(head);
  beams.forEach((b, i) => {
    const tr = el("tr");
    [String(i + 1), b.text, b.score.toFixed(3), b.log_prob.toFixed(3), b.finished ? "yes" : "cut off"].forEach((c) => tr.appendChild(el("td", "", c)));
    table.appendChild(tr);
  });
  box.replaceChildren(el("div", "ae-label", "Beams (the best one is stepped through)"), table);
}
