// maskless.js: "Without the mask", why the decoder's self-attention is masked. The same small model trained twice,
// with the look-ahead mask and without it (same data, steps and seed: bench/maskless.py), on the sentence on
// screen: the two training losses (without the mask it falls far lower: the decoder reads the word it must
// predict), the two greedy translations (without the mask, garbage: when decoding, the future is not there), and
// the maskless model's decoder self-attention teacher-forced on its twin's translation, as in training, with the
// next position outlined: the cheat made visible. Everything comes from the server's answer (explorer/app/maskless.py).
import { COLORS } from "./colors.js";
import { el, escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react, textAbovePlot, tokenTicks } from "./plot.js";
import { headName } from "./trace.js";

const CAPTION = "The same small model trained twice, with and without the look-ahead mask. Without it, training " +
  "lets each position read the next word, the one it must predict: the loss falls far lower, but when translating " +
  "that word does not exist yet, and the model has learnt nothing else.";

function draw(parts, context, state) {
  const { text, plot } = parts;
  const font = fontSize(), height = state.height;
  const answer = context.ask({ what: "maskless" });
  if (!answer || answer.error) {
    text.replaceChildren();
    const waiting = "Asking the server for the models trained with and without the look-ahead mask…";
    return drawMessage(plot, answer ? answer.error : waiting, height);
  }
  const runs = answer.runs, forced = answer.forced;
  const line = (label, value, className) => {
    const row = el("div", "ae-maskless-line " + (className || ""));
    row.append(el("b", "", label + " "), el("span", "", value));
    return row;
  };
  // what a run translated, and what its own numbers said of it (teacher-forced losses; chrF of real decoding)
  const said = (text, run) => (text ? "“" + text + "”" : "nothing: its first word is </s>") + " · training loss at the end " +
    run.final_loss + ", validation loss " + run.valid_loss + ", chrF " + run.chrf;
  text.replaceChildren(
    line("With the mask:", said(answer.translations.with_mask, runs.with_mask)),
    line("Without the mask:", said(answer.translations.without_mask, runs.without_mask), "ae-maskless-bad"),
    line("Teacher-forced, as in training:", "the maskless model gets " + Math.round(100 * forced.accuracy) +
      "% of the next words right, reading them: its head " + headName(forced.layer, forced.head) + " puts " +
      forced.next_weight.toFixed(2) + " of its weight on the next position (outlined)."));
  const curve = (points, name, color) => ({
    type: "scatter", mode: "lines", name: name, x: points.map((p) => p[0]), y: points.map((p) => p[1]),
    line: { color: color, width: 2 }, xaxis: "x", yaxis: "y",
  });
  const T = forced.inputs.length;
  const rows = forced.inputs.map((token, i) => escape(token + " → " + forced.targets[i]));
  const heat = {
    type: "heatmap", z: forced.weights, zmin: 0, zmax: 1, colorscale: COLORS.scale, xaxis: "x2", yaxis: "y2",
    x: [...Array(T).keys()], y: [...Array(T).keys()],
    customdata: forced.weights.map((r, i) => r.map((_, j) => [rows[i], escape(forced.inputs[j])])),
    hovertemplate: "query: %{customdata[0]}<br>key: %{customdata[1]}<br>weight %{z:.4f}<extra></extra>",
    colorbar: { title: { text: "weight", side: "right" }, thickness: 12, x: 1.0 },
  };
  const next = [...Array(T - 1).keys()].map((i) => ({
    type: "rect", xref: "x2", yref: "y2", x0: i + 0.5, x1: i + 1.5, y0: i - 0.5, y1: i + 0.5,
    line: { color: COLORS.chosen, width: 2 },
  }));
  // a token per column, written upright: as large as a column of the heatmap allows (its 38% of the chart's width)
  const positions = [...Array(T).keys()];
  const tickFont = Math.max(8, Math.min(font - 3, Math.floor((plot.clientWidth * 0.38) / T * 0.7)));
  const chartLayout = layout("Training loss · without the mask: decoder self-attention, " + headName(forced.layer,
    forced.head), Math.max(240, height - text.offsetHeight - 6), font, {
    // the legend in the loss chart's empty corner: top right (the curves start high on the left and fall)
    showlegend: true, legend: { x: 0.3, y: 1, xanchor: "right", yanchor: "top", bgcolor: "rgba(255,255,255,0.8)" },
    xaxis: { domain: [0, 0.3], title: { text: "training step" }, zeroline: false },
    yaxis: { title: { text: "loss" }, zeroline: false, rangemode: "tozero" },
    xaxis2: Object.assign({ domain: [0.55, 0.93], anchor: "y2", tickangle: -90, automargin: true,
      title: { text: "decoder input (key)", standoff: 6 } }, tokenTicks(positions, forced.inputs.map(escape), plot.clientWidth * 0.38, tickFont)),
    yaxis2: Object.assign({ anchor: "x2", autorange: "reversed", automargin: true },
      tokenTicks(positions, rows, Math.max(240, height - text.offsetHeight - 6) * 0.6, tickFont)),
    shapes: next,
    margin: { l: 50, r: 10, t: 40 + font, b: 40 },
  });
  const data = [curve(answer.losses.with_mask, "with the mask", COLORS.other),
    curve(answer.losses.without_mask, "without the mask", COLORS.chosen), heat];
  return react(plot, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "maskless", label: "Without the mask", tip: "The same small model trained without the look-ahead mask: its loss, its translations, and how it cheats", className: "ae-maskless", controls: [],
  caption: () => CAPTION,
  create: (div) => {
    const parts = textAbovePlot(div, "maskless");
    return { draw: (context, state) => draw(parts, context, state), png: (header) => plotPng(parts.plot, header) };
  },
};
