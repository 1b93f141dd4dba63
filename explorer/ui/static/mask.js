// mask.js: the look-ahead mask at the current step, for one decoder layer and head, in its three stages side by side:
// the raw scores q·k/√d_k (the future included, as training computes them), the future set to −∞ (grey: the mask),
// and the softmax weights (the future exactly 0). Drawn by grid.js like the heatmaps, rows labelled as there
// ("<s> → Das": the decoder input at that position → the token it produces), every label page text; a legend and a
// caption with this step's own numbers above.
import { COLORS } from "./colors.js";
import { fontSize } from "./dom.js";
import { Grid } from "./grid.js";
import { weightScale } from "./heatmap.js";
import { headName } from "./trace.js";

const STAGES = ["1. raw scores q·k/√d_k", "2. future set to −∞", "3. softmax weights"];
const SHORT = ["1. q·k/√d_k", "2. masked", "3. softmax"]; // where the full names do not fit (a projector)

// A score on a diverging scale over white: vermillion-red above zero, blue below (RdBu's ends).
function scoreColor(lim) {
  const ends = { pos: [178, 24, 43], neg: [33, 102, 172] };
  return (v) => {
    const f = Math.max(-1, Math.min(1, v / lim)), end = f >= 0 ? ends.pos : ends.neg, a = Math.abs(f);
    return "rgb(" + end.map((c) => Math.round(255 - a * (255 - c))).join(",") + ")";
  };
}

function stagesSpec(trace, layer, head, t, height) {
  const [rows, columns] = trace.labels("decoder_self", t);
  const scores = t ? trace.scoresAt(layer, head, t) : [];
  const weights = t ? trace.head("decoder_self", layer, head, t) : [];
  let lim = 0;
  scores.forEach((r) => r.forEach((v) => { lim = Math.max(lim, Math.abs(v)); }));
  lim = Math.ceil((lim || 1) * 10) / 10;
  const allowed = scores.map((r, i) => r.map((v, j) => (j > i ? null : v)));
  const z = [scores, allowed, weights];
  const what = ["score", "score", "weight"];
  return {
    titles: ["Decoder self-attention · " + headName(layer, head) + " · step " + t + ": scores → mask → softmax",
      "Decoder self · " + headName(layer, head) + " · step " + t, headName(layer, head) + " · t=" + t],
    rows: rows, columns: columns,
    panels: STAGES.map((name, k) => ({ name: name, short: SHORT[k], z: z[k], scale: k === 2 ? 1 : 0 })),
    scales: [{
      label: "score", min: -lim, max: lim, color: scoreColor(lim), masked: false,
      ticks: [-lim, -lim / 2, 0, lim / 2, lim], format: (v) => v.toFixed(1),
    }, weightScale(1, true)],
    rowTitles: ["decoder input → token it produces (query)", "query", ""],
    columnTitles: ["decoder input so far (key)", "key"], current: t - 1, font: fontSize(), height: height,
    empty: "No target position yet: press → (Next).",
    describe: (p, i, j) => {
      const k = STAGES.indexOf(p.name), v = p.z[i][j];
      const value = v === null ? (k === 1 ? "−∞ (the future)" : "exactly 0 (masked)") : what[k] + " " + v.toFixed(k === 2 ? 4 : 3);
      return p.name + " · query: " + rows[i] + " · key: " + columns[j] + " · " + value;
    },
    aria: "The look-ahead mask at step " + t + ", layer " + layer + ", head " + head + ": " + STAGES.join(", ") + ".",
  };
}

// What the colours mean and why the mask is there, with this step's numbers: how many pairs it blocks, what the
// first query (which sees only itself) and the last (which sees every key) do in the head shown. Page text, so a
// screen reader, a student and a test can read it.
function drawCaption(box, trace, layer, head, t) {
  const swatch = (color) => {
    const span = document.createElement("span");
    span.className = "ae-swatch";
    span.style.background = color;
    return span;
  };
  const legend = document.createElement("div");
  legend.className = "ae-mask-legend";
  legend.append(swatch(COLORS.masked), "blocked: set to −∞ before the softmax, so its weight is exactly 0; ",
    "coloured: allowed, the query may look at this key (itself and the positions before it)");
  const why = document.createElement("p");
  why.className = "ae-mask-caption";
  if (t === 0) {
    why.textContent = "Why a mask: in training the decoder is given the whole " + trace.targetLanguage + " sentence at once; the mask lets " +
      "each position look only at itself and the words before it, as when it writes one word at a time.";
  } else {
    const labels = trace.decoderInputTokens.slice(0, t);
    const last = trace.head("decoder_self", layer, head, t)[t - 1];
    const best = last.indexOf(Math.max(...last));
    why.textContent = "Why a mask: in training the decoder is given the whole " + trace.targetLanguage + " sentence at once; without the " +
      "mask position i could read the word it has to predict. At step " + t + " the mask blocks " + (t * (t - 1)) / 2 +
      " of the " + t * t + " query–key pairs (every key right of its query). In " + headName(layer, head) +
      ", the first query “" + labels[0] + "” sees only itself (weight " + trace.head("decoder_self", layer, head, t)[0][0].toFixed(3) +
      "); the last, “" + labels[t - 1] + "”, sees all " + t + " and puts " + last[best].toFixed(3) + " on “" + labels[best] + "”.";
  }
  box.replaceChildren(legend, why);
}

// The view in one box: the legend and caption above, the three stages' grid below, made once.
class MaskView {
  constructor(div) {
    this.caption = document.createElement("div");
    this.caption.className = "ae-mask-text";
    const stages = document.createElement("div");
    stages.className = "ae-mask-stages";
    div.replaceChildren(this.caption, stages);
    this.stages = new Grid(stages);
  }

  // For state.layer's decoder self-attention and state.head (head 0 unless one head is chosen) the three stages, with
  // their legend and caption above.
  draw(context, state) {
    const trace = context.trace;
    const layer = Math.min(state.layer, trace.nLayers("decoder_self") - 1);
    const head = Number.isInteger(state.head) ? state.head : 0;
    drawCaption(this.caption, trace, layer, head, state.step);
    const height = Math.max(260, state.height - this.caption.offsetHeight - 4); // the stages take what is left
    return this.stages.draw(stagesSpec(trace, layer, head, state.step, height));
  }

  // The three stages as a picture for a slide, labels and scales included, at 2x, below `header`.
  png(header) { return this.stages.png(header, 2); }
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "mask", label: "Look-ahead mask", tip: "The decoder's mask in three stages: the scores q·k/√d_k, the future set to −∞, the softmax", className: "ae-mask", controls: ["layer", "head"],
  caption: () => "",
  create: (div) => new MaskView(div),
};
