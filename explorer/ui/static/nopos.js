// nopos.js: "No positions", why the positional encoding is there. The sentence on screen with PE(pos) left out, as
// typed (left) and with its pieces reversed (right), through the shown encoder layer and head: without positions the
// right map is the left one with its rows and columns reversed (the numbers say how exactly), because attention by
// itself sees a set of pieces, not a sequence. Above them: what the model translates with its positions, without,
// and the reversed sentence without. Everything is the server's, from the model's own weights (no_position.py).
import { COLORS } from "./colors.js";
import { el, escape, fontSize } from "./dom.js";
import { drawMessage, layout, plotPng, react, textAbovePlot, tokenTicks } from "./plot.js";
import { headName } from "./trace.js";

const CAPTION = "Attention alone ignores order: without the positional encoding, reversing the sentence only " +
  "reverses the rows and columns of every encoder map (permutation equivariance). The encoding is the model's " +
  "only sense of word order.";

function draw(parts, context, state) {
  const { text, plot } = parts;
  const font = fontSize(), height = state.height;
  const answer = context.ask({ what: "no_position" });
  if (!answer || answer.error) {
    text.replaceChildren();
    return drawMessage(plot, answer ? answer.error : "Asking the server for the encoder without its positions…", height);
  }
  const layer = Math.min(state.layer, answer.original.length - 1);
  const head = Number.isInteger(state.head) ? state.head : 0;
  const t = answer.translations;
  const line = (label, value) => {
    const row = el("div", "ae-maskless-line");
    row.append(el("b", "", label + " "), el("span", "", value ? "“" + value + "”" : "nothing (</s> first)"));
    return row;
  };
  text.replaceChildren(
    line("With positions:", t.with),
    line("Without positions:", t.without),
    line("Reversed, without positions:", t.reversed_without),
    el("div", "ae-maskless-line", "Without positions, the reversed sentence's maps are the original maps reversed, " +
      "to within " + answer.gap_without.toExponential(1) + "; with positions they differ by up to " +
      answer.gap_with.toFixed(2) + "."));
  const tokens = answer.source_tokens.map(escape);
  const reversed = answer.order.map((i) => tokens[i]);
  const tickFont = Math.max(8, Math.min(font - 3, Math.floor((plot.clientWidth * 0.4) / tokens.length * 0.7)));
  const heat = (z, axis, rows, columns) => ({
    type: "heatmap", z: z, zmin: 0, zmax: 1, colorscale: COLORS.scale, xaxis: "x" + axis, yaxis: "y" + axis,
    x: columns, y: rows, showscale: axis === "2", colorbar: { title: { text: "weight", side: "right" }, thickness: 12 },
    hovertemplate: "query %{y} · key %{x}: %{z:.4f}<extra></extra>",
  });
  // the same token twice on an axis would be one category: number the positions
  const named = (list) => list.map((tok, i) => i + " " + tok);
  const data = [heat(answer.original[layer][head], "", named(tokens), named(tokens)),
    heat(answer.reversed[layer][head], "2", named(reversed), named(reversed))];
  const ticks = (list, room) => tokenTicks(named(list), named(list), room, tickFont);
  const room = plot.clientWidth * 0.4, tall = Math.max(240, height - text.offsetHeight - 6) * 0.6; // the maps' sides
  const axis = (domain, anchor, list) => Object.assign({ domain: domain, anchor: anchor, tickangle: -90, automargin: true }, ticks(list, room));
  const chartLayout = layout("Encoder self-attention without positions · " + headName(layer, head) + ": as typed | reversed",
    Math.max(240, height - text.offsetHeight - 6), font, {
      xaxis: axis([0, 0.42], "y", tokens), yaxis: Object.assign({ autorange: "reversed", automargin: true }, ticks(tokens, tall)),
      xaxis2: axis([0.55, 0.95], "y2", reversed),
      yaxis2: Object.assign({ anchor: "x2", autorange: "reversed", automargin: true }, ticks(reversed, tall)),
      margin: { l: 10, r: 10, t: 40 + font, b: 10 },
    });
  return react(plot, data, chartLayout);
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "nopos", label: "No positions", tip: "The encoder without its positional encoding: the sentence as typed and reversed, and what the model writes", className: "ae-nopos", controls: ["layer", "head"],
  caption: () => CAPTION,
  // the subject and the object differ only by their order: without positions the model cannot tell who bites whom
  // (the shipped model writes "Der Hund beißt den Hund."; tests/test_no_position.py holds it)
  offer: { sentence: "The dog bites the man.", why: "Who bites whom is only in the word order: what does the model write without positions?" },
  create: (div) => {
    const parts = textAbovePlot(div, "nopos");
    return { draw: (context, state) => draw(parts, context, state), png: (header) => plotPng(parts.plot, header) };
  },
};
