// qkspace.js: "Q·K space", queries and keys of the shown head in one plane (AttentionViz's joint embedding, for one
// sentence and one head). Every query (circles) and key (diamonds) of the head, projected together onto their two
// principal directions; the current query (the step's, or a source token of the encoder) is enlarged and joined to
// its strongest keys by lines as thick as their weights. Hover a key for the weight the current query gives it.
// The points and weights are the server's, from the model's own q and k (explorer/interpret/qk_space.py).
import { COLORS } from "./colors.js";
import { escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react } from "./plot.js";
import { headName } from "./trace.js";

const LINES = 3; // the current query's strongest keys drawn as lines
const CAPTION = "The head's queries (vermillion circles; this step's is the large one) and keys (blue diamonds) " +
  "projected together onto their two main directions. Lines: this step's query to its strongest keys, as thick as " +
  "their weights (hover any point for its token). Nearness is only part of the " +
  "story: the weight is the dot product q·k, which the plane shows only in part.";

function draw(div, context, state) {
  const trace = context.trace, font = fontSize(), height = state.height;
  if (!Number.isInteger(state.head)) return drawMessage(div, "Queries and keys are one head's: choose a head (0–" + (trace.H - 1) + ").", height);
  const answer = context.ask({ what: "qk_space", kind: state.kind, layer: state.layer, head: state.head });
  if (!answer || answer.error) return drawMessage(div, answer ? answer.error : "Asking the server for the head's queries and keys…", height);
  const encoder = state.kind === "encoder_self";
  const row = encoder ? null : state.step - 1;
  const rows = encoder ? answer.query_points.length : Math.max(0, state.step);
  const weights = row === null || row < 0 ? null : answer.weights[row];
  const keyText = answer.key_tokens.map((t, j) => escape(t) + (weights ? " " + weights[j].toFixed(2) : ""));
  const data = [
    {
      type: "scatter", mode: "markers", name: "keys", x: answer.key_points.map((p) => p[0]), y: answer.key_points.map((p) => p[1]),
      marker: { symbol: "diamond", size: 10, color: COLORS.other },
      customdata: keyText, hovertemplate: "key %{customdata}<extra></extra>",
    },
    {
      type: "scatter", mode: "markers", name: "queries", x: answer.query_points.slice(0, rows).map((p) => p[0]),
      y: answer.query_points.slice(0, rows).map((p) => p[1]), text: answer.query_tokens.slice(0, rows).map(escape),
      marker: { symbol: "circle", size: 8, color: COLORS.chosen, opacity: 0.55 },
      hovertemplate: "query %{text}<extra></extra>",
    },
  ];
  const shapes = [], labels = [];
  if (weights) {
    const q = answer.query_points[row];
    const strongest = weights.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, LINES);
    strongest.forEach(([w, j]) => {
      const k = answer.key_points[j];
      shapes.push({ type: "line", x0: q[0], y0: q[1], x1: k[0], y1: k[1], line: { color: COLORS.chosen, width: 1 + 8 * w }, layer: "below" });
    });
    // the strongest keys and the query are named on the plane (every point is named on hover)
    labels.push(...strongest.map(([w, j]) => ({ x: answer.key_points[j][0], y: answer.key_points[j][1], text: escape(answer.key_tokens[j]) + " " + w.toFixed(2),
      showarrow: false, yshift: 12, font: { size: Math.max(10, font - 2), color: COLORS.other } })));
    labels.push({ x: q[0], y: q[1], text: escape(answer.query_tokens[row]), showarrow: false, yshift: -16, font: { size: Math.max(10, font - 2), color: COLORS.chosen } });
    data.push({
      type: "scatter", mode: "markers", name: "this step's query", x: [q[0]], y: [q[1]],
      marker: { symbol: "circle", size: 16, color: COLORS.chosen, line: { color: "black", width: 2 } },
      hovertemplate: "query " + escape(answer.query_tokens[row]) + " (this step)<extra></extra>",
    });
  }
  const share = answer.explained.map((v) => Math.round(100 * v) + "%");
  const chartLayout = layout("Q·K space · " + state.kind + " " + headName(answer.layer, answer.head) +
    (weights ? " · step " + state.step : ""), height, font, {
    xaxis: { title: { text: "direction 1 (" + share[0] + " of the variance)", standoff: 8 }, zeroline: false, automargin: true },
    yaxis: { title: { text: "direction 2 (" + share[1] + ")", standoff: 8 }, zeroline: false, scaleanchor: "x", automargin: true },
    shapes: shapes, annotations: labels, showlegend: false, margin: { l: 10, r: 10, t: 40 + font, b: 10 },
  });
  return react(div, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "qkspace", label: "Q·K space", tip: "One head's queries and keys in one plane: a query lies near the keys it attends to", className: "ae-plot ae-qkspace", controls: ["kind", "layer", "head"],
  caption: () => CAPTION,
  create: (div) => ({ draw: (context, state) => draw(div, context, state), png: (header) => plotPng(div, header) }),
};
