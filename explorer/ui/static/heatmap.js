// heatmap.js: the attention heatmap of the current step: a head, the mean of heads, the rollout, or every head of a
// layer side by side, drawn by grid.js (cells on a canvas, every label page text, none ever dropped). Rows are
// queries, columns keys (cross-attention: rows the decoder's positions, columns source tokens); a decoder row is
// labelled by the decoder input at that position and the token it produces ("<s> → Das"), the same in every view;
// the masked future is grey, never a small weight; the current step's row is outlined; one fixed 0..1 colour scale
// (the rollout: 0 to its largest value); hover shows the exact weight; a click on a cell emits "ae-cell".
import { AXIS_TITLES, KIND_TITLES, headName } from "./trace.js";
import { weightColor } from "./colors.js";
import { fontSize } from "./dom.js";
import { Grid } from "./grid.js";

// The weight scale of the grids: 0..1, or 0..peak for the rollout; `masked`: the grey of the future is in its key.
export function weightScale(peak, masked) {
  return {
    label: peak < 1 ? "rollout" : "weight", min: 0, max: peak, color: (v) => weightColor(v / peak), masked: masked,
    ticks: [0, 0.2, 0.4, 0.6, 0.8, 1].map((x) => x * peak), format: (v) => v.toFixed(peak < 1 ? 2 : 1),
  };
}

// The heatmap in one box: its grid made once (Compare two shows two of them).
export class Heatmap {
  constructor(div) { this.grid = new Grid(div); }

  // Draw state's kind/layer/head at state.step (head: a number, "mean", "rollout" or "all"), state.height pixels tall;
  // state.label names the map ("A", "B" in Compare two). Returns a resolved promise.
  draw(trace, state) { return this.grid.draw(spec(trace, state)); }

  // The heatmap as a picture for a slide: the header lines above it, labels and colour scale included, at 2x.
  png(header) { return this.grid.png(header, 2); }
}

// What the grid draws for state's kind/layer/head at state.step.
function spec(trace, state) {
  const { kind, layer, head, step: t } = state;
  const [queries, keys] = trace.labels(kind, t);
  const heads = head === "all" ? [...Array(trace.H).keys()] : [head];
  const many = heads.length > 1;
  const off = offNote(trace, kind, layer, head); // a head switched off is marked, never drawn as if it were on
  const gold = kind === "cross" && head !== "rollout" ? trace.goldCells(t) : []; // hand-aligned links, outlined
  const aer = kind === "cross" ? trace.goldAer(layer, head) : null;
  const note = off + (aer === null ? "" : " · AER " + aer.toFixed(2));
  const titles = [title(kind, layer, head, t), title(kind, layer, head, t, "short"), title(kind, layer, head, t, "shortest")]
    .map((text) => text + note);
  const panels = heads.map((h) => {
    const each = many && kind === "cross" ? trace.goldAer(layer, h) : null;
    return { name: "H" + h + (each === null ? "" : " · AER " + each.toFixed(2)), head: h, aer: each, z: queries.length ? trace.weights(kind, layer, h, t) : [], scale: 0 };
  });
  // rollout's products are small and even: its colours span 0 to its largest value (the colour bar says so)
  const peak = head === "rollout" ? Math.max(1e-6, ...panels.flatMap((p) => p.z.flat())) : 1;
  const [rowTitle, columnTitle] = AXIS_TITLES[kind];
  return {
    titles: (state.label ? titles.map((x) => state.label + " · " + x) : []).concat(titles),
    titleTip: aer !== null || panels.some((p) => p.aer !== null) ? AER_TIP : "", // an AER shown is explained
    rows: queries, columns: keys, panels: panels,
    scales: [weightScale(peak, kind === "decoder_self")], hideScales: Boolean(state.hideScale),
    rowTitles: [rowTitle, rowTitle.split(" (")[0], "query"], columnTitles: [columnTitle, columnTitle.split(" (")[0], "key"],
    current: kind === "encoder_self" ? -1 : t - 1, outlines: gold,
    font: many ? fontSize() - 2 : fontSize(), height: state.height, bare: Boolean(state.bare), wrap: many,
    empty: "No target token yet: press → (Next) to produce the first one.",
    describe: (p, i, j) => {
      const v = p.z[i][j];
      const linked = gold.some(([a, b]) => a === i && b === j) ? " · a gold link (aligned by hand)" : "";
      return (many ? "H" + p.head + " · " : "") + "query: " + queries[i] + " · key: " + keys[j] + " · " +
        (v === null ? "masked: weight exactly 0" : "weight " + v.toFixed(4)) + linked;
    },
    aria: title(kind, layer, head, t) + off + ". Rows (queries): " + queries.join(" ") + ". Columns (keys): " + keys.join(" ") + ".",
  };
}

const SHORT = { encoder_self: "Encoder self", decoder_self: "Decoder self", cross: "Cross" }; // narrow charts
// What "AER" in a title means, said where it appears (the title's hover) as well as in the caption below the chart.
const AER_TIP = "AER: the alignment error rate of this head on this sentence, against the word links a person " +
  "aligned by hand (each word of the translation aligned to the source word it attends to most): 0 is exactly the hand " +
  "alignment, 1 is none of it.";

// " · switched off" when the shown head is off in this trace (its weights are still computed, its output is not
// used); for the mean or all heads of a layer, which of them are off.
function offNote(trace, kind, layer, head) {
  const off = trace.request.ablation.filter(([k, l]) => k === kind && l === layer).map(([, , h]) => h);
  if (!off.length || head === "rollout") return "";
  if (typeof head === "number") return off.includes(head) ? " · switched off" : "";
  return " · " + off.map((h) => "H" + h).join(", ") + " off";
}

// The chart's title, whole, "short" for narrow charts, or "shortest" for the maps of Compare two.
function title(kind, layer, head, t, length) {
  const named = { mean: " · mean of heads", all: " · all heads", rollout: " · rollout" }[head];
  const which = named ? "L" + layer + named : headName(layer, head);
  const step = kind === "encoder_self" ? "" : " · step " + t;
  if (length === "shortest") return (named ? "L" + layer + " · " + { mean: "mean", all: "all", rollout: "rollout" }[head] : which) + step.replace(" step ", " t=");
  if (length) return SHORT[kind] + " · " + which + step;
  return KIND_TITLES[kind] + " · " + (head === "rollout" ? "L" + layer + " · attention rollout" : which) + step;
}

const ROLLOUT = "Attention rollout (Abnar & Zuidema, 2020): each encoder layer taken as ½·attention + ½·identity " +
  "(the residual), averaged over heads, multiplied through the layers; for cross-attention, this layer's " +
  "head-averaged rows times the encoder's rollout, so each row says which source tokens the step drew on " +
  "through every encoder layer. A model of how attention composes: it ignores the values and the " +
  "feed-forward layers, so it is not a measurement of what the translation depended on. Its colours span 0 to " +
  "its largest value (the products are small and even), not the fixed 0–1 scale of the weights.";

// Below a cross-attention map of a hand-aligned sentence: what the outlines are and how this head scores, or how
// to make the trace write the gold translation when it wrote another.
function goldCaption(trace, state) {
  const gold = trace && trace.gold;
  if (!gold || state.kind !== "cross" || state.head === "rollout") return "";
  if (!gold.matches) {
    return "This sentence is aligned by hand for the " + trace.targetLanguage + " \u201c" + gold.target + "\u201d, but the model wrote " +
      "another translation, so there is nothing to outline. Press G to decode the gold translation (its pieces " +
      "forced) and see its links outlined.";
  }
  const best = trace.goldBest();
  const aer = trace.goldAer(state.layer, state.head);
  const which = typeof state.head === "number" ? headName(state.layer, state.head) : "the mean of layer " + state.layer + "'s heads";
  return "Outlined: the " + gold.links + " word links of a hand alignment of this sentence, on the pieces of each " +
    "linked word pair. Where attention is alignment, the bright cells sit inside the outlines." +
    (aer === null ? "" : " Alignment error rate of " + which + " on this sentence: " + aer.toFixed(2) +
      " (each " + trace.targetLanguage + " word aligned to its most-attended " + trace.sourceLanguage + " word; 0 means " +
      "exactly the gold links, lower is better).") +
    " Best head here: " + headName(best.layer, best.head) + ", AER " + best.aer.toFixed(2) + ".";
}

// Where the gold links are drawn: this view, cross-attention, the head on screen (or head 0 for a mean or all).
export function goldView(state) {
  return { view: VIEW.id, kind: "cross", head: typeof state.head === "number" ? state.head : 0 };
}

// The view, as the viewer's registry (views.js) knows it; its `focus` keeps a clicked cell in view.
export const VIEW = {
  id: "heatmap", label: "Heatmap", tip: "One head's attention as a grid: each row a query token, each column a key token, each cell the weight (0–1)", className: "ae-heat", controls: ["kind", "layer", "head"],
  caption: (state, trace) => (state.head === "rollout" ? ROLLOUT : goldCaption(trace, state)),
  create: (div) => {
    const map = new Heatmap(div);
    return {
      draw: (context, state) => map.draw(context.trace, state),
      png: (header) => map.png(header),
      focus: (cell) => map.grid.keepInView(cell.row, cell.column),
    };
  },
};
