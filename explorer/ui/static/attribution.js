// attribution.js: attention against attribution for the current step. From the server's answer
// (explorer/app/questions/attribution.py) three rows over the source tokens: the chosen cross-attention row, gradient × input
// and integrated gradients of the produced token's log-probability, each with its rank correlation to the
// attention row, and a caption stating the baseline, the steps and the completeness gap. The "is attention
// explanation?" question, on the sentence in front of the class.
import { signedFill } from "./colors.js";
import { el, presenting } from "./dom.js";

const NAMES = { gradient_x_input: "gradient × input", integrated_gradients: "integrated gradients" };

// One value's cell; signed values: vermillion positive, blue negative, scaled to its measure's peak.
function cell(v, peak, token) {
  const td = el("td", "", v.toFixed(Math.abs(v) < 0.1 ? 3 : 2));
  td.style.background = signedFill(v, peak);
  td.style.color = Math.abs(v) / peak > 0.55 ? "white" : "#1f2937";
  td.title = token + ": " + v.toFixed(4);
  return td;
}

function heading(label, note) {
  const th = el("th", "", label);
  if (note) th.appendChild(el("div", "ae-attr-note", note));
  return th;
}

// The three measures over the source tokens: a row per measure at a desk; on a projector (presentation mode, a
// narrow panel) a row per token, so a sentence's tokens go down the panel instead of past its right edge.
function measuresTable(tokens, measures) {
  const table = el("table", "ae-attr");
  const peaks = measures.map((m) => Math.max(...m.values.map(Math.abs), 1e-12));
  const header = el("tr");
  header.appendChild(el("th", "", "source"));
  if (presenting()) {
    measures.forEach((m) => header.appendChild(heading(m.label, m.short || m.note)));
    table.appendChild(header);
    tokens.forEach((token, i) => {
      const row = el("tr");
      row.appendChild(el("th", "", token));
      measures.forEach((m, k) => row.appendChild(cell(m.values[i], peaks[k], token)));
      table.appendChild(row);
    });
    return table;
  }
  tokens.forEach((t) => header.appendChild(el("th", "", t)));
  table.appendChild(header);
  measures.forEach((m, k) => {
    const row = el("tr");
    row.appendChild(heading(m.label, m.note));
    m.values.forEach((v, i) => row.appendChild(cell(v, peaks[k], tokens[i])));
    table.appendChild(row);
  });
  return table;
}

export function draw(div, a) {
  const measures = [{ label: "cross-attention", note: a.attention.which, values: a.attention.weights }];
  Object.entries(a.methods).forEach(([method, m]) => {
    const rho = m.rank_correlation === null ? "— (a constant row)" : m.rank_correlation.toFixed(2);
    measures.push({ label: NAMES[method], note: "Spearman ρ with attention " + rho, short: "ρ with attention " + rho, values: m.scores });
  });
  const table = measuresTable(a.source_tokens, measures);
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

// The panel, as panels.js registers it: the current step's token, beside the selected cross-attention head (else the
// best one).
export const PANEL = {
  what: "attribution",
  button: ["Attention vs attribution", "The current step's cross-attention row beside gradient attributions (asks the server)"],
  question(trace, state) {
    if (state.step === 0) return { note: "Step forward first: at step 0 no token has been produced to attribute." };
    const [, , layer, head] = trace.crossRow(state);
    return {
      question: { what: "attribution", step: state.step, layer: layer, head: head },
      waiting: "Integrating gradients for “" + trace.targetTokens[state.step - 1] + "”…",
    };
  },
  draw: draw,
};
