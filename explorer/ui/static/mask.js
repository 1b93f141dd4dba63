// mask.js: the look-ahead mask at the current target length, and for one decoder layer and head its
// three stages: raw scores q·k/√d_k, the future set to −∞, and the softmax weights (the future exactly 0).
import { COLORS } from "./colors.js";
import { fontSize } from "./dom.js";
import { drawMessage, layout, react, tokenAxis } from "./plot.js";

function drawMask(div, trace, t, height) {
  const font = fontSize();
  const labels = trace.decoderInputTokens.slice(0, t);
  if (t === 0) return drawMessage(div, "No target position yet: press → (Next).", height);
  const z = labels.map((_, i) => labels.map((_, j) => (j <= i ? 1 : 0)));
  const text = z.map((row) => row.map((v) => (v ? "visible" : "masked (−∞ before softmax)")));
  const data = [{
    type: "heatmap", z: z, zmin: 0, zmax: 1, colorscale: [[0, COLORS.masked], [1, COLORS.other]], showscale: false,
    customdata: text, hovertemplate: "query %{y}, key %{x}: %{customdata}<extra></extra>", xgap: 1, ygap: 1,
  }];
  const chartLayout = layout("Look-ahead mask for a target of " + t + " position(s)", height, font, {
    xaxis: tokenAxis(labels, "key position", font),
    yaxis: Object.assign(tokenAxis(labels, "query position", font), { autorange: "reversed" }),
  });
  return react(div, data, chartLayout);
}

function drawStages(div, trace, layer, head, t, height) {
  const font = fontSize();
  const labels = trace.decoderInputTokens.slice(0, t);
  if (t === 0) return drawMessage(div, "No target position yet: press → (Next).", height);
  const scores = trace.scoresAt(layer, head, t);
  const weights = trace.head("decoder_self", layer, head, t);
  let lim = 0;
  scores.forEach((r) => r.forEach((v) => { lim = Math.max(lim, Math.abs(v)); }));
  lim = lim || 1;
  const future = scores.map((r, i) => r.map((_, j) => (j > i ? 1 : null)));
  const allowed = scores.map((r, i) => r.map((v, j) => (j > i ? null : v)));
  const rawScale = { zmin: -lim, zmax: lim, colorscale: "RdBu", reversescale: true };
  const grey = [[0, COLORS.masked], [1, COLORS.masked]];
  const data = [
    Object.assign({ type: "heatmap", z: scores, xaxis: "x", yaxis: "y",
      colorbar: { x: 0.3, thickness: 10 }, hovertemplate: "score %{z:.3f}<extra></extra>" }, rawScale),
    { type: "heatmap", z: future, colorscale: grey, showscale: false, xaxis: "x2", yaxis: "y2", hovertemplate: "−∞ (future)<extra></extra>" },
    Object.assign({ type: "heatmap", z: allowed, showscale: false, xaxis: "x2", yaxis: "y2", hovertemplate: "score %{z:.3f}<extra></extra>" }, rawScale),
    { type: "heatmap", z: future, colorscale: grey, showscale: false, xaxis: "x3", yaxis: "y3", hovertemplate: "0 (masked)<extra></extra>" },
    { type: "heatmap", z: weights, zmin: 0, zmax: 1, colorscale: COLORS.scale, xaxis: "x3", yaxis: "y3",
      colorbar: { x: 1.0, thickness: 10 }, hovertemplate: "weight %{z:.4f}<extra></extra>" },
  ];
  const chartLayout = layout("Decoder self-attention, layer " + layer + ", head " + head + ": scores → mask → softmax", height, font, {
    annotations: ["1. raw scores q·k/√d_k", "2. future set to −∞", "3. softmax weights"].map((text, n) => ({
      text: text, showarrow: false, xref: "paper", yref: "paper", x: n * 0.36 + 0.14, y: 1.0, yanchor: "bottom", font: { size: font },
    })),
  });
  [1, 2, 3].forEach((n) => {
    const s = n === 1 ? "" : String(n);
    const x = tokenAxis(labels, "key", font);
    x.domain = [(n - 1) * 0.36, (n - 1) * 0.36 + 0.28];
    x.anchor = "y" + s;
    const y = tokenAxis(labels, n === 1 ? "query" : "", font);
    y.autorange = "reversed";
    y.anchor = "x" + s;
    chartLayout["xaxis" + s] = x;
    chartLayout["yaxis" + s] = y;
  });
  return react(div, data, chartLayout);
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
  legend.append(swatch(COLORS.other), "allowed: the query may look at this key  ",
    swatch(COLORS.masked), "blocked: set to −∞ before the softmax, so its weight is exactly 0");
  const why = document.createElement("p");
  why.className = "ae-mask-caption";
  if (t === 0) {
    why.textContent = "Why a mask: in training the decoder is given the whole German sentence at once; the mask lets " +
      "each position look only at itself and the words before it, as when it writes one word at a time.";
  } else {
    const labels = trace.decoderInputTokens.slice(0, t);
    const last = trace.head("decoder_self", layer, head, t)[t - 1];
    const best = last.indexOf(Math.max(...last));
    why.textContent = "Why a mask: in training the decoder is given the whole German sentence at once; without the " +
      "mask position i could read the word it has to predict. At step " + t + " the mask blocks " + (t * (t - 1)) / 2 +
      " of the " + t * t + " query–key pairs (every key right of its query). In layer " + layer + ", head " + head +
      ", the first query “" + labels[0] + "” sees only itself (weight " + trace.head("decoder_self", layer, head, t)[0][0].toFixed(3) +
      "); the last, “" + labels[t - 1] + "”, sees all " + t + " and puts " + last[best].toFixed(3) + " on “" + labels[best] + "”.";
  }
  box.replaceChildren(legend, why);
}

// The mask and, for state.layer's decoder self-attention and state.head (head 0 unless one head is chosen), the
// three stages, with their legend and caption; made once.
export function draw(div, trace, state) {
  if (!div._mask) {
    const caption = document.createElement("div"), mask = document.createElement("div"), stages = document.createElement("div");
    caption.className = "ae-mask-text";
    mask.className = stages.className = "ae-plot";
    div.replaceChildren(caption, mask, stages);
    div._mask = { caption: caption, mask: mask, stages: stages };
  }
  const layer = Math.min(state.layer, trace.nLayers("decoder_self") - 1);
  const head = Number.isInteger(state.head) ? state.head : 0;
  drawCaption(div._mask.caption, trace, layer, head, state.step);
  const height = Math.max(300, state.height - div._mask.caption.offsetHeight - 4); // the charts share what is left
  return Promise.all([
    drawMask(div._mask.mask, trace, state.step, Math.max(160, Math.round(height * 0.42))),
    drawStages(div._mask.stages, trace, layer, head, state.step, Math.max(240, Math.round(height * 0.58))),
  ]);
}
