// lens.js: the logit lens, at which layer the model "decides". At the current step, one row per decoder layer: what
// that layer's output would predict if decoding stopped there (through the final LayerNorm and the tied output
// projection): its five most probable tokens (#1..#5), and, in the last column ("chosen"), the probability it gives
// the token finally chosen. The last layer's row is the model's own distribution. The numbers are the server's answer
// to /ask/lens (one teacher-forced pass, explorer/interpret/lens.py), asked once per trace when the view first opens;
// stepping then asks nothing. The answer is kept with the trace, so the lesson and an exported page read it too. A
// time-lapse point's trace carries its own lens (its model's, not the final one the server would read).
import { COLORS } from "./colors.js";
import { escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react } from "./plot.js";

const CAPTION = "Each decoder layer's output, read as if it were the last: through the final LayerNorm and the " +
  "output projection. Outlined: the token the model finally chose. The row where it first leads is where the " +
  "model has decided; the last row is its own next-token distribution.";

// The logit lens of `trace`: its own (a time-lapse point's), or the server's answer through `ask` (null while it
// is asked, {error} when refused), kept with the trace once it arrives.
export function lensOf(trace, ask) {
  const lens = trace.wire.lens || ask({ what: "lens" });
  if (lens && !lens.error) trace.wire.lens = lens;
  return lens;
}

function draw(div, context, state) {
  const trace = context.trace, t = state.step, font = fontSize(), height = state.height;
  const lens = lensOf(trace, context.ask);
  if (!lens || lens.error) return drawMessage(div, lens ? lens.error : "Asking the server for the logit lens…", height);
  if (t === 0) return drawMessage(div, "No step yet: press → (Next) to see what each layer would predict.", height);
  const L = lens.top_probs.length, K = lens.top_probs[0][0].length, chosen = trace.steps[t - 1];
  const rows = [...Array(L).keys()].map((l) => "layer " + l + (l === L - 1 ? " (the output)" : ""));
  const z = [], text = [], custom = [], shapes = [];
  for (let l = 0; l < L; l++) {
    const probs = lens.top_probs[l][t - 1], tokens = lens.top_tokens[l][t - 1], ids = lens.top_ids[l][t - 1];
    z.push(probs.concat([lens.chosen[l][t - 1]]));
    text.push(tokens.map((tok, r) => escape(tok) + "<br>" + probs[r].toFixed(2)).concat([escape(chosen.token) + "<br>" + lens.chosen[l][t - 1].toFixed(2)]));
    custom.push(tokens.map((tok) => escape(tok)).concat([escape(chosen.token)]));
    ids.forEach((id, r) => {
      if (id === chosen.id) shapes.push({ type: "rect", x0: r - 0.5, x1: r + 0.5, y0: l - 0.5, y1: l + 0.5, line: { color: COLORS.chosen, width: 3 } });
    });
  }
  const columns = [...Array(K).keys()].map((r) => "#" + (r + 1)).concat(["chosen"]);
  const data = [{
    type: "heatmap", z: z, text: text, texttemplate: "%{text}", customdata: custom, zmin: 0, zmax: 1,
    colorscale: COLORS.scale, textfont: { size: Math.max(10, font - 2) }, xgap: 2, ygap: 2,
    hovertemplate: "%{y} · %{x}: %{customdata} %{z:.4f}<extra></extra>",
    colorbar: { title: { text: "probability", side: "right" }, thickness: 12 },
  }];
  const chartLayout = layout("Logit lens · step " + t + " · chosen: " + escape(chosen.token), height, font, {
    xaxis: { tickmode: "array", tickvals: [...Array(K + 1).keys()], ticktext: columns, side: "bottom", showgrid: false, zeroline: false, automargin: true },
    yaxis: { tickmode: "array", tickvals: [...Array(L).keys()], ticktext: rows, autorange: "reversed", showgrid: false, zeroline: false, automargin: true },
    shapes: shapes.concat([{ type: "line", x0: K - 0.5, x1: K - 0.5, y0: -0.5, y1: L - 0.5, line: { color: "#333", width: 2 } }]),
    margin: { l: 10, r: 10, t: 40 + font, b: 10 },
  });
  return react(div, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "lens", label: "Logit lens", tip: "What each decoder layer would write if it were the last, and from which layer the chosen token leads", className: "ae-plot ae-lens", controls: [],
  caption: () => CAPTION,
  create: (div) => ({ draw: (context, state) => draw(div, context, state), png: (header) => plotPng(div, header) }),
};
