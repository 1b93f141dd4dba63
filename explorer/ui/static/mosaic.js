// mosaic.js: every layer x head of one attention kind at the current step as ONE heatmap (tiles
// separated by gaps), with the head that best predicts word alignment outlined. Hover names the
// layer, head, query, key and the exact weight; clicking a tile asks for that layer and head ("ae-select").
import { KIND_TITLES, headName } from "./trace.js";
import { COLORS } from "./colors.js";
import { emit, escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react } from "./plot.js";
import { roleOf, rolesFor } from "./roles.js";

// Draw state.kind at state.step, state.height pixels tall; the best-aligning head (the trace's model) outlined.
function draw(div, trace, state, roles) {
  const { kind, step: t, height } = state;
  const best = trace.model.best_head;
  const font = fontSize();
  const [queries, keys] = trace.labels(kind, t);
  if (queries.length === 0) return drawMessage(div, "No target token yet: press → (Next) to produce the first one.", height);
  const L = trace.nLayers(kind), H = trace.H, q = queries.length, k = keys.length;
  const rows = L * (q + 1) - 1, cols = H * (k + 1) - 1;
  const z = [], custom = [];
  for (let r = 0; r < rows; r++) { z.push(new Array(cols).fill(null)); custom.push(new Array(cols).fill(null)); }
  const masked = z.map((row) => row.slice());
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const w = trace.head(kind, l, h, t);
      for (let i = 0; i < q; i++) {
        for (let j = 0; j < k; j++) {
          const r = l * (q + 1) + i, c = h * (k + 1) + j;
          if (w[i][j] === null) masked[r][c] = 1;
          else z[r][c] = w[i][j];
          custom[r][c] = [headName(l, h), escape(queries[i]), escape(keys[j])];
        }
      }
    }
  }
  const data = [];
  if (kind === "decoder_self") {
    data.push({ type: "heatmap", z: masked, colorscale: [[0, COLORS.masked], [1, COLORS.masked]], showscale: false, hoverinfo: "skip" });
  }
  data.push({
    type: "heatmap", z: z, customdata: custom, zmin: 0, zmax: 1, colorscale: COLORS.scale, hoverongaps: false,
    hovertemplate: "%{customdata[0]}<br>query: %{customdata[1]}<br>key: %{customdata[2]}<br>weight %{z:.4f}<extra></extra>",
    colorbar: { title: { text: "weight", side: "right" }, thickness: 12 },
  });
  const annotations = [];
  for (let h = 0; h < H; h++) annotations.push({ x: h * (k + 1) + (k - 1) / 2, y: 1, yref: "paper", yanchor: "bottom", text: "H" + h, showarrow: false });
  for (let l = 0; l < L; l++) annotations.push({ x: 0, xref: "paper", xanchor: "right", y: l * (q + 1) + (q - 1) / 2, text: "L" + l, showarrow: false });
  for (let l = 0; l < L; l++) { // each tile's role, in its top left corner (its words and score on hover of the chip)
    for (let h = 0; h < H; h++) {
      const role = roleOf(roles, kind, l, h);
      if (!role || !role.short) continue;
      annotations.push({
        x: h * (k + 1) - 0.5, y: l * (q + 1) - 0.5, xanchor: "left", yanchor: "top", text: role.short, showarrow: false,
        bgcolor: "rgba(255,255,255,0.85)", font: { size: Math.max(12, font - 4), color: "#111" }, hovertext: role.says,
        captureevents: false,
      });
    }
  }
  const chartLayout = layout(KIND_TITLES[kind] + ": every layer × head" + (kind === "encoder_self" ? "" : " · step " + t), height, font, {
    xaxis: { showticklabels: false, ticks: "", showgrid: false, zeroline: false, title: { text: "heads 0.." + (H - 1) + " (keys)" }, range: [-0.5, cols - 0.5] },
    // the axis title stands off to the left of the layer labels ("L0".."L5"), which sit in the margin beside the tiles
    yaxis: { showticklabels: false, ticks: "", showgrid: false, zeroline: false, autorange: "reversed", automargin: true,
      title: { text: "layers 0.." + (L - 1) + " (queries)", standoff: Math.round(1.8 * font) } },
    annotations: annotations,
    margin: { l: 40, r: 10, t: 50 + font, b: 30 },
  });
  if (best && best.kind === kind) {
    chartLayout.shapes = [{
      type: "rect", x0: best.head * (k + 1) - 0.5, x1: best.head * (k + 1) + k - 0.5,
      y0: best.layer * (q + 1) - 0.5, y1: best.layer * (q + 1) + q - 0.5, line: { color: COLORS.chosen, width: 3 },
    }];
  }
  return react(div, data, chartLayout);
}

// The (layer, head) of a clicked mosaic cell, or null for a gap.
function mosaicCell(trace, kind, t, point) {
  const [queries, keys] = trace.labels(kind, t);
  const q = queries.length, k = keys.length;
  const l = Math.floor(point.y / (q + 1)), h = Math.floor(point.x / (k + 1));
  if (point.y % (q + 1) === q || point.x % (k + 1) === k) return null;
  return { layer: l, head: h };
}

// The view in one box: a Plotly chart, and what it last drew (a click on a tile is read against it).
class Mosaic {
  constructor(div) {
    this.div = div;
    this.last = null; // [trace, state]
    this.onClick = (event) => {
      const [t, s] = this.last;
      const cell = mosaicCell(t, s.kind, s.step, event.points[0]);
      if (cell) emit(this.div, "ae-select", { view: "heatmap", layer: cell.layer, head: cell.head });
    };
  }

  draw(context, state) {
    this.last = [context.trace, state];
    return draw(this.div, context.trace, state, rolesFor(context.trace, context.ask)).then(() => this.bindClicks());
  }

  // A click on a tile asks for that layer and head in the heatmap ("ae-select"). Bound after Plotly.react has made the
  // div a chart (before it, div.on does not exist), and again after every draw (a new plot drops its listeners): one
  // listener, never a stale one.
  bindClicks() {
    this.div.removeListener("plotly_click", this.onClick);
    this.div.on("plotly_click", this.onClick);
  }

  png(header) { return plotPng(this.div, header); }
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "mosaic", label: "All heads", tip: "Every layer × head of one kind as small heatmaps, the best-aligning head outlined; click a tile to open it", className: "ae-plot ae-mosaic", controls: ["kind"],
  caption: () => "",
  create: (div) => new Mosaic(div),
};
