// attribution.js: attention against attribution for the current step. From the server's answer
// (explorer/app/probes.py) three rows over the source tokens: the chosen cross-attention row, gradient × input
// and integrated gradients of the produced token's log-probability, each with its rank correlation to the
// attention row, and a caption stating the baseline, the steps and the completeness gap. The "is attention
// explanation?" question, on the sentence in front of the class.
import { signedFill } from "./colors.js";
import { el } from "./dom.js";

const NAMES = { gradient_x_input: "gradient × input", integrated_gradients: "integrated gradients" };

// One row of cells over the source tokens; signed values: vermillion positive, blue negative, scaled to the row.
function bars(label, values, tokens, note) {
  const peak = Math.max(...values.map(Math.abs), 1e-12);
  const row = el("tr");
  const head = el("th", "", label);
  if (note) head.appendChild(el("div", "ae-attr-note", note));
  row.appendChild(head);
  values.forEach((v, i) => {
    const a = Math.abs(v) / peak;
    const td = el("td", "", v.toFixed(Math.abs(v) < 0.1 ? 3 : 2));
    td.style.background = signedFill(v, peak);
    td.style.color = a > 0.55 ? "white" : "#1f2937";
    td.title = tokens[i] + ": " + v.toFixed(4);
    row.appendChild(td);
  });
  return row;
}

export function draw(div, a) {
  const table = el("table", "ae-attr");
  const header = el("tr");
  header.appendChild(el("th", "", "source"));
  a.source_tokens.forEach((t) => header.appendChild(el("th", "", t)));
  table.append(header, bars("cross-attention", a.attention.weights, a.source_tokens, a.attention.which));
  Object.entries(a.methods).forEach(([method, m]) => {
    const rho = m.rank_correlation === null ? "— (a constant row)" : m.rank_correlation.toFixed(2);
    table.appendChild(bars(NAMES[method], m.scores, a.source_tokens, "Spearman ρ with attention " + rho));
  });
  const ig = a.methods.integrated_gradients;
  const caption = "Attention says where this head looked; the attributions say how much each source token's embedding " +
    "moved log p(“" + a.token + "”) = " + a.methods.gradient_x_input.log_prob.toFixed(3) + ": gradient × input " +
    "at the input itself, integrated gradients along the straight path from a baseline of all-zero embeddings " +
    "(no words, positions kept) in " + ig.steps + " steps; its scores add up to log p − log p(baseline) = " +
    (a.methods.integrated_gradients.log_prob - ig.baseline_log_prob).toFixed(3) + " within " +
    (100 * ig.completeness_gap).toFixed(1) + " %. A low ρ means the head's attention and the token's sensitivity " +
    "to its inputs disagree here; neither is the whole reason for the choice.";
  div.replaceChildren(el("div", "ae-panel-title", "Step " + a.step + ", “" + a.token + "”: attention against attribution"),
    table, el("div", "ae-caption", caption));
}
