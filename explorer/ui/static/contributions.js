// contributions.js: "Source or prefix", where each generated token comes from (ALTI+, Ferrando et al. 2022). One bar
// per token written so far, split into the share of its prediction that comes from the source sentence and the share
// from the translation written before it (the decoder's own inputs); the bar of the current step is the one in focus,
// and the caption names its largest source and prefix tokens. Hovering a bar lists its tokens' parts. The numbers are
// the server's answer to /ask/contributions (one teacher-forced pass, explorer/interpret/alti.py), asked once per
// trace when the view opens; stepping asks nothing.
import { COLORS } from "./colors.js";
import { escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react } from "./plot.js";
import { keyOf } from "./answers.js";

const TOP = 3; // tokens named per bar on hover
const QUESTION = { what: "contributions" };

// The `n` largest parts of `values` as "token 0.31" lines, largest first.
export function largest(values, tokens, n) {
  return values.map((v, i) => [v, i]).filter(([v]) => v > 0).sort((a, b) => b[0] - a[0]).slice(0, n)
    .map(([v, i]) => [tokens[i], v]);
}

// What the caption says about step `t` (1-based) of `answer`.
export function sayStep(answer, t) {
  const i = t - 1, share = answer.source_share[i];
  const [src] = largest(answer.source[i], answer.source_tokens, 1);
  const [pre] = largest(answer.prefix[i], answer.prefix_tokens, 1);
  return "Step " + t + ": “" + answer.target_tokens[i] + "” takes " + share.toFixed(2) + " of its prediction from " +
    "the source" + (src ? " (most from “" + src[0] + "”, " + src[1].toFixed(2) + ")" : "") + " and " +
    (1 - share).toFixed(2) + " from the translation so far" + (pre ? " (most from “" + pre[0] + "”, " + pre[1].toFixed(2) + ")" : "") + ".";
}

const CAPTION = "ALTI+ (Ferrando et al., 2022): each attention block's output split into one vector per input token, " +
  "each scored by how close it brings the output, rolled out through the layers. Content words usually take more from " +
  "the source, function words and word endings more from the prefix; a forced or hallucinated continuation takes less " +
  "from the source.";

function draw(div, context, state) {
  const trace = context.trace, t = state.step, font = fontSize(), height = state.height;
  const answer = context.ask(QUESTION);
  if (!answer || answer.error) {
    return drawMessage(div, answer ? answer.error : "Asking the server where each token comes from…", height);
  }
  if (t === 0) return drawMessage(div, "No token yet: press → (Next) to see where the first one comes from.", height);
  const steps = [...Array(t).keys()];
  const hover = (i, side) => {
    const values = side === "source" ? answer.source[i] : answer.prefix[i];
    const tokens = side === "source" ? answer.source_tokens : answer.prefix_tokens;
    return largest(values, tokens, TOP).map(([tok, v]) => escape(tok) + " " + v.toFixed(2)).join("<br>");
  };
  const x = steps.map((i) => (i + 1) + " " + answer.target_tokens[i]);
  const focus = steps.map((i) => (i === t - 1 ? 1 : 0.45));
  const line = steps.map((i) => (i === t - 1 ? 3 : 0));
  const bar = (side, name, color, values) => ({
    type: "bar", name: name, x: x, y: values, marker: { color: color, opacity: focus, line: { color: COLORS.chosen, width: line } },
    customdata: steps.map((i) => hover(i, side)),
    hovertemplate: "%{x}<br>" + name + ": %{y:.2f}<br>%{customdata}<extra></extra>",
  });
  const data = [
    bar("source", "from the source (" + trace.sourceLanguage + ")", COLORS.other, steps.map((i) => answer.source_share[i])),
    bar("prefix", "from the translation so far", COLORS.produced, steps.map((i) => 1 - answer.source_share[i])),
  ];
  const chartLayout = layout("Source or prefix: where each token comes from · step " + t, height, font, {
    barmode: "stack",
    xaxis: { tickangle: -45, automargin: true, title: { text: "token written (step)" } },
    yaxis: { range: [0, 1], title: { text: "share of the prediction" }, automargin: true },
    legend: { orientation: "h", y: 1.02, yanchor: "bottom", x: 0, font: { size: font }, traceorder: "normal" },
    margin: { l: 10, r: 10, t: 60 + 2 * font, b: 10 },
  });
  return react(div, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "contributions", label: "Source or prefix", className: "ae-plot ae-contributions", controls: [],
  tip: "How much of each generated token comes from the source sentence, and how much from the translation written so far (ALTI+)",
  caption: (state) => {
    const answer = (state.answers || {})[keyOf(QUESTION)];
    const said = answer && !answer.error && state.step > 0 ? sayStep(answer, Math.min(state.step, answer.source_share.length)) : "";
    return (said ? said + " " : "") + CAPTION;
  },
  create: (div) => ({ draw: (context, state) => draw(div, context, state), png: (header) => plotPng(div, header) }),
};
