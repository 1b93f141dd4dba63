// valuepath.js: "Value path", what one head carries, not only where it looks. For the shown head and query (the
// current step's, or a source token of the encoder), left to right as a student reads it: the residual stream x
// (at layer 0: the token's embedding plus its positional encoding), LN(x), the head's query q, its keys and values
// (one column per key, d_head tall), the attention weights, the weighted sum z = Σ w·v, every head's z concatenated,
// the output projection W_o, and x + out: the residual stream after the sublayer. Each vector is one column of
// cells, coloured by value (blue negative, red positive, scaled to its own largest magnitude; hover for the number);
// its name and size sit above it. The numbers are the server's, from the model's own tensors (value_path.py).
import { el, emit, escape, fontSize, presenting, textFloor } from "./dom.js";
import { drawMessage, layout, plotPng, react } from "./plot.js";
import { headName } from "./trace.js";

const DIVERGING = [[0, "#2166ac"], [0.25, "#67a9cf"], [0.5, "#f7f7f7"], [0.75, "#ef8a62"], [1, "#b2182b"]];
const WEIGHTS = [[0, "#f7fbff"], [1, "#08306b"]];
const CAPTION = "One head, one query, left to right: what the query reads (x, then LN(x)), where it looks (q against " +
  "every key: the weights), what it carries (the values, summed with those weights into z), and how that joins " +
  "the other heads (concatenated, through W_o, added back to x).";

// The view's parts in its box, made once: the query's menu (the encoder's source tokens, of the sentence `sentence`)
// above the chart.
function parts(div) {
  const bar = el("div", "ae-valuepath-bar");
  const label = el("span", "ae-row-label", "Query (source token):");
  const select = el("select", "ae-valuepath-row");
  select.addEventListener("change", () => emit(div, "ae-redraw", {}));
  bar.append(label, select);
  const plot = el("div", "ae-plot ae-valuepath-plot");
  div.replaceChildren(bar, plot);
  return { bar: bar, select: select, plot: plot, sentence: null };
}

// The query row this view explains: the current step's (decoder kinds), or the chosen source token (encoder).
function queryRow(trace, state, p) {
  if (state.kind !== "encoder_self") return state.step - 1;
  const tokens = trace.sourceTokens, select = p.select;
  if (select.options.length !== tokens.length || p.sentence !== trace.wire.request.sentence) {
    select.replaceChildren(...tokens.map((t, i) => { const o = el("option", "", i + ": " + t); o.value = i; return o; }));
    p.sentence = trace.wire.request.sentence;
  }
  return Number(select.value) || 0;
}

// Columns of room between two tensors, where the operation between them is written (vertically): less on a
// projector, where the columns are narrow and the keys' tokens need the width.
const GAP = { desk: 2.4, projector: 1.7 };

// One vector as one column of cells, `span` tall whatever its length (so q, every k and every v line up dimension by
// dimension), coloured by value over its own largest magnitude.
function strip(values, x, span, name) {
  const peak = Math.max(1e-12, ...values.map(Math.abs));
  const n = values.length;
  return {
    type: "heatmap", x0: x, dx: 1, y0: span / n / 2, dy: span / n, z: values.map((v) => [v / peak]),
    customdata: values.map((v, i) => [[name, i, v]]), zmin: -1, zmax: 1, colorscale: DIVERGING, showscale: false,
    hovertemplate: "%{customdata[0]} [%{customdata[1]}] = %{customdata[2]:.4f}<extra></extra>",
  };
}

// K vectors of one length as K adjacent columns, one per key, each `kw` wide, on one colour scale.
function block(rows, x, span, name, tokens, kw) {
  const n = rows[0].length, peak = Math.max(1e-12, ...rows.flat().map(Math.abs));
  const z = [...Array(n).keys()].map((d) => rows.map((r) => r[d] / peak));
  const custom = [...Array(n).keys()].map((d) => rows.map((r, j) => [name + " of " + escape(tokens[j]), d, r[d]]));
  return {
    type: "heatmap", x0: x + (kw - 1) / 2, dx: kw, y0: span / n / 2, dy: span / n, z: z, customdata: custom, zmin: -1, zmax: 1,
    colorscale: DIVERGING, showscale: false, hovertemplate: "%{customdata[0]} [%{customdata[1]}] = %{customdata[2]:.4f}<extra></extra>",
  };
}

function draw(p, context, state) {
  const { bar, plot } = p;
  const trace = context.trace, font = fontSize(), height = state.height;
  bar.hidden = state.kind !== "encoder_self";
  if (!Number.isInteger(state.head)) return drawMessage(plot, "The value path is one head's: choose a head (0–" + (trace.H - 1) + ").", height);
  if (state.kind !== "encoder_self" && state.step === 0) return drawMessage(plot, "No query yet: press → (Next) to take the first step.", height);
  const row = queryRow(trace, state, p);
  const answer = context.ask({ what: "value_path", kind: state.kind, layer: state.layer, head: state.head, row: row });
  if (!answer || answer.error) return drawMessage(plot, answer ? answer.error : "Asking the server for the head's tensors…", height);
  const D = answer.d_model, Dh = answer.d_head, K = answer.keys.length, span = 100;
  const small = Math.max(9, font - 4), labelFont = Math.max(10, font - 2);
  const gap = presenting() ? GAP.projector : GAP.desk;
  const build = (kw) => { // the columns laid out left to right, the keys' and values' each `kw` units wide
    const data = [], annotations = [];
    let x = 0;
    let titles = 0; // the tensors' names take turns on three lines, so neighbours never write over each other
    const title = (at, text) => annotations.push({
      x: at, y: 0, yanchor: "bottom", text: text, showarrow: false, font: { size: labelFont },
      yshift: (titles++ % 3) * (labelFont + 6),
    });
    const column = (values, name, size, hoverName) => {
      data.push(strip(values, x, span, hoverName || name));
      title(x, escape(name) + " (" + size + ")");
      x += 1;
    };
    const then = (text) => {
      if (text) annotations.push({ x: x - 0.5 + gap / 2, y: span / 2, text: escape(text), textangle: -90, showarrow: false, font: { size: labelFont } });
      x += gap;
    };
    if (answer.embedding) {
      column(answer.embedding, "emb·√d", D, "embedding · √d_model");
      then("+");
      column(answer.position, "PE", D, "positional encoding PE(" + row + ")");
      then("=");
    }
    column(answer.x, "x", D);
    if (answer.norm_first) {
      then("LayerNorm");
      column(answer.normed, "LN(x)", D);
    }
    then("× W_q of H" + answer.head);
    column(answer.query, "q", Dh, "query of head " + answer.head);
    then("q·k / √" + Dh);
    const keysAt = x;
    data.push(block(answer.keys, x, span, "key", answer.key_tokens, kw));
    title(x + (K * kw - 1) / 2, "keys k (" + K + " × " + Dh + ")");
    x += K * kw;
    then("softmax → weights");
    const valuesAt = x;
    data.push(block(answer.values, x, span, "value", answer.key_tokens, kw));
    title(x + (K * kw - 1) / 2, "values v (" + K + " × " + Dh + ")");
    x += K * kw;
    then("Σ w·v");
    column(answer.z, "z", Dh, "z = Σ w·v of head " + answer.head);
    then("with the other heads");
    const concatAt = x;
    column(answer.concat, "heads", D, "the heads concatenated");
    then("× W_o + b");
    column(answer.out, "out", D, "W_o · heads + b");
    then(answer.norm_first ? "+ x" : "+ x, LayerNorm");
    column(answer.residual, answer.norm_first ? "x+out" : "LN(x+out)", D, "the residual stream after the sublayer");
    // under the keys their tokens; under the values the weights the softmax gave them
    data.push({
      type: "heatmap", x0: valuesAt + (kw - 1) / 2, dx: kw, y0: span * 1.24, dy: span * 0.06, z: [answer.weights], zmin: 0, zmax: 1,
      colorscale: WEIGHTS, showscale: false, customdata: [answer.key_tokens.map(escape)],
      hovertemplate: "weight on %{customdata}: %{z:.4f}<extra></extra>",
    });
    return { data: data, annotations: annotations, x: x, keysAt: keysAt, valuesAt: valuesAt, concatAt: concatAt, kw: kw };
  };
  // one key is one column: its token and its weight are written upright in it, as large as the column allows. Where
  // one unit is too narrow for the smallest text (a projector's 16 px), the keys' and values' columns widen at the
  // expense of the single vectors and the gaps, while a gap keeps room for its words (upright); too many keys even so,
  // and the tokens and weights are left to the hover.
  const W = plot.clientWidth - 20, need = textFloor() / 0.9;
  let built = build(1);
  const fixed = built.x + 0.4 - 2 * K; // the single vectors and the gaps, in units
  if (W / (built.x + 0.4) < need && W > 2 * K * need && (W - 2 * K * need) / fixed >= (labelFont + 2) / gap) {
    built = build((need * fixed) / (W - 2 * K * need));
  }
  const { data, annotations, x, keysAt, valuesAt, concatAt, kw } = built;
  const keyFont = Math.min(small, Math.floor((W / (x + 0.4)) * kw * 0.9));
  if (keyFont >= textFloor()) {
    answer.weights.forEach((w, j) => {
      annotations.push({ x: valuesAt + (kw - 1) / 2 + j * kw, y: span * 1.02, yanchor: "top", text: w.toFixed(2).replace(/^0/, ""), textangle: -90, showarrow: false, font: { size: keyFont } });
      annotations.push({ x: keysAt + (kw - 1) / 2 + j * kw, y: span * 1.02, yanchor: "top", text: escape(answer.key_tokens[j]), textangle: -90, showarrow: false, font: { size: keyFont } });
    });
  }
  const slice = { type: "rect", x0: concatAt - 0.5, x1: concatAt + 0.5, y0: answer.head * span / answer.x.length * Dh, y1: (answer.head + 1) * span / answer.x.length * Dh, line: { color: "#D55E00", width: 2 } };
  const where = state.kind === "encoder_self" ? "source token " + escape(answer.row_token) : "step " + state.step + " (→ " + escape(answer.row_token) + ")";
  const chartLayout = layout("Value path · " + state.kind + " " + headName(answer.layer, answer.head) + " · query: " + where, height, font, {
    xaxis: { visible: false, range: [-0.7, x - 0.3] }, // x: just past the last column
    yaxis: { visible: false, autorange: false, range: [span * 1.3, -span * 0.28] },
    annotations: annotations, shapes: [slice], margin: { l: 24, r: 40, t: 40 + font, b: 10 },
  });
  return react(plot, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "valuepath", label: "Value path", tip: "What one head carries for one query: x, LN(x), q, k, the weights, v and z = Σ w·v back into the residual", className: "ae-valuepath", controls: ["kind", "layer", "head"],
  caption: () => CAPTION,
  create: (div) => {
    const p = parts(div);
    return { draw: (context, state) => draw(p, context, state), png: (header) => plotPng(p.plot, header) };
  },
};
