// explain.js: the "explain one cell" panel. From the server's answer (explorer/interpret/explain.py) it
// shows how one weight came about for one head: the query vector of the row token and the key vector of
// the column token as colour strips, their dot product, the division by √d_k, the whole row of scores
// with the masked ones at −∞, and the softmax with its denominator, ending at the weight in the cell.
// Plain HTML; it computes nothing itself.
import { signedFill } from "./colors.js";
import { el } from "./dom.js";
import { headName } from "./trace.js";

const fmt = (v, digits) => (v === null ? "−∞" : Number(v).toFixed(digits === undefined ? 3 : digits));

// One vector as a strip of cells: blue negative, white zero, red positive (scaled to the larger |value| of q and k).
function strip(values, peak, label) {
  const row = el("div", "ae-strip");
  row.title = label + ": " + values.map((v) => fmt(v, 2)).join(", ");
  values.forEach((v) => {
    const cell = el("span", "ae-strip-cell");
    cell.style.background = signedFill(v, peak);
    row.appendChild(cell);
  });
  return row;
}

const EXPLAIN_CAPTION = "How one weight is computed, from this head's own projections of the two tokens: " +
  "q·k / √d_k for every key of the row, the mask, then the softmax. It explains the arithmetic of the weight, " +
  "not why the model learned these vectors, nor what the head's output does with it.";

// Draw an answer ({kind, layer, head, row, column, query, key, dot, scale, scores, ...}) into div; for decoder
// self-attention the keys the heatmap shows at state.step are listed, the masked rest of the row only counted.
export function draw(div, a, state) {
  const shown = a.kind === "decoder_self" ? state.step : null;
  const peak = Math.max(...a.query.map(Math.abs), ...a.key.map(Math.abs), 1e-9);
  const title = el("div", "ae-panel-title",
    "Why " + headName(a.layer, a.head) + " puts weight " + fmt(a.weight, 4) + " on “" + a.column_token +
    "” from “" + a.row_token + "”");
  const vectors = el("div", "ae-explain-vectors");
  vectors.append(
    el("span", "ae-strip-label", "q (“" + a.row_token + "”, " + a.query.length + " values)"), strip(a.query, peak, "q"),
    el("span", "ae-strip-label", "k (“" + a.column_token + "”)"), strip(a.key, peak, "k"));
  const arithmetic = el("div", "ae-explain-math",
    "q·k = " + fmt(a.dot) + "   ÷ √d_k = √" + a.query.length + " = " + fmt(a.scale, 2) + "   → score " +
    fmt(a.dot / a.scale) + "   (the row's largest allowed score m = " + fmt(a.max_score) + ")");
  const listed = Math.min(a.column_tokens.length, shown || a.column_tokens.length);
  const columns = a.column_tokens.slice(0, listed).map((token, j) => {
    const on = j === a.column ? "ae-on" : "";
    return [el("td", on, token), el("td", on + (a.scores[j] === null ? " ae-masked" : ""), fmt(a.scores[j], 2)),
      el("td", on, a.scores[j] === null ? "0" : fmt(a.weights[j], 3))];
  });
  const masked = a.scores.filter((s) => s === null).length;
  const later = a.column_tokens.length - listed;
  const softmax = el("div", "ae-explain-math",
    (masked === later && later ? "The " + later + " later key(s), not produced yet, are masked (−∞: weight exactly 0). "
      : masked ? masked + " key(s) masked (set to −∞: weight exactly 0). " : "") +
    "softmax: exp(" + fmt(a.scores[a.column]) + " − " + fmt(a.max_score) + ") / Σ exp(score − m) = " +
    fmt(Math.exp(a.scores[a.column] - a.max_score), 4) + " / " + fmt(a.denominator, 4) + " = " + fmt(a.weight, 4));
  const rows = el("div", "ae-explain-rows");
  div.replaceChildren(title, vectors, arithmetic, rows, softmax, el("div", "ae-caption", EXPLAIN_CAPTION));
  fitRow(rows, columns);
}

// The row's keys, scores and weights as tables of key columns, as many to a table as the panel's width holds (the
// panel is on the page: its width is known), each with its row labels: a long row wraps, never scrolls sideways.
function fitRow(box, columns) {
  const table = (part) => {
    const t = el("table", "ae-explain-row");
    ["key", "score", "softmax"].forEach((label, r) => {
      const tr = el("tr");
      tr.append(el("th", "", label), ...part.map((column) => column[r]));
      t.appendChild(tr);
    });
    return t;
  };
  const whole = table(columns);
  box.replaceChildren(whole);
  const room = box.clientWidth;
  if (!room || whole.offsetWidth <= room) return;
  const label = whole.querySelector("th").offsetWidth;
  const widths = columns.map((column) => Math.max(...column.map((cell) => cell.offsetWidth)));
  const parts = [];
  let part = [], used = label;
  columns.forEach((column, j) => {
    if (part.length && used + widths[j] > room) { parts.push(part); part = []; used = label; }
    part.push(column);
    used += widths[j];
  });
  parts.push(part);
  box.replaceChildren(...parts.map(table));
}

// The panel, as panels.js registers it: a click on a heatmap's cell asks it (no Tools button). One head's weight is
// one softmax; the mean, the rollout and a masked cell say why they are not explained.
export const PANEL = {
  what: "explain",
  button: null,
  onCell: true,
  question(trace, state, cell) {
    if (!Number.isInteger(cell.head)) {
      return { note: "Choose one head (0–" + (trace.H - 1) + ") to see how a weight is computed: the mean of heads " +
        "and the rollout are not one softmax." };
    }
    if (cell.weight === null) {
      return { note: "That key lies in the future of the query: the look-ahead mask sets its score to −∞ before " +
        "the softmax, so its weight is exactly 0." };
    }
    return {
      question: { what: "explain", kind: state.kind, layer: state.layer, head: cell.head, row: cell.row, column: cell.column },
      waiting: "Computing q and k for this cell…",
    };
  },
  draw: draw,
};
