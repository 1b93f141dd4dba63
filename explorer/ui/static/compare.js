// compare.js: "compare two". The trace on screen (A) beside a second one (B): another sentence with the same
// options, or the same sentence with another model (the other shipped one, e.g. the Tatoeba model beside the lecture
// model, or the one trained in this browser session), both at the same step, kind, layer and head; below them A − B where both maps have the same
// shape (blue: B attends more, vermillion: A attends more), and a message saying why not where they differ.
import { KIND_TITLES } from "./trace.js";
import { SETTINGS } from "./settings.js";
import { signedFill } from "./colors.js";
import { el, emit, fontSize } from "./dom.js";
import { Grid } from "./grid.js";
import { Heatmap, weightScale } from "./heatmap.js";

const COMPARE_CAPTION = "Two decodes at the same step, kind, layer and head, and their difference A − B where the " +
  "maps have the same shape. A difference compares weights position by position: it says nothing about tokens " +
  "that moved (a different word order puts the same relation in another cell).";
// The caption's key in one line, where the three maps share a projector's narrow column.
const COMPARE_KEY = "A − B: vermillion where A attends more, blue where B does.";

// The signed colour scale of A − B: vermillion where A attends more, blue where B does.
function diffScale(values) {
  return {
    label: "A − B", min: -1, max: 1, color: (v) => blendOverWhite(signedFill(v, 1)), masked: values.some((r) => r.includes(null)),
    ticks: [-1, -0.5, 0, 0.5, 1], format: (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(1) + (v === 1 ? " A more" : v === -1 ? " B more" : ""),
  };
}

// The A − B map of rows x columns (null: masked in either), drawn as the heatmaps are (grid.js), with its own
// signed colour scale and numbers. With `both` ({a, b, masked}: A's and B's weights), A and B are panels of the same
// grid beside A − B, sharing its row and column labels ("A's / B's" where they differ) and laid out in rows of
// panels where side by side they would not fit: a projector's narrow column shows every row of all three at once.
function diffSpec(rows, columns, values, titles, height, current, both) {
  const panels = [{ name: "A − B", z: values, scale: 0 }];
  const scales = [diffScale(values)];
  if (both) {
    panels.unshift({ name: "A", z: both.a, scale: 1 }, { name: "B", z: both.b, scale: 1 });
    scales.push(weightScale(1, both.masked));
  }
  const said = (p, v) => (v === null ? "masked" : p.name === "A − B" ? "A − B = " + (v >= 0 ? "+" : "") + v.toFixed(4) : p.name + " " + v.toFixed(4));
  return {
    titles: titles, rows: rows, columns: columns, panels: panels, scales: scales, wrap: Boolean(both),
    rowTitles: ["query", ""], columnTitles: ["key", ""], current: current, font: fontSize() - 1, height: height,
    bare: Boolean(both), // the three in a short box: no axis title under the columns
    describe: (p, i, j) => "query: " + rows[i] + " · key: " + columns[j] + " · " + said(p, p.z[i][j]),
    aria: titles[0] + ". Rows: " + rows.join(" ") + ". Columns: " + columns.join(" ") + ".",
  };
}

// An rgba colour over white as an opaque rgb (the scale's gradient and the PNG paint it over anything).
function blendOverWhite(rgba) {
  const [r, g, b, a] = rgba.match(/[\d.]+/g).map(Number);
  return "rgb(" + [r, g, b].map((c) => Math.round(255 - a * (255 - c))).join(",") + ")";
}

// Narrower than this (a projector in presentation mode), A and B stack (side by side, B would be cut), and with A − B
// the three are panels of one grid.
const STACK_BELOW = 900;

// The view in one box: B's form, the maps A and B, the difference and the note, made once; the form asks for B with
// "ae-compare" {sentence, model}.
class CompareView {
  constructor(div) {
    const input = el("input", "ae-compare-sentence");
    input.type = "text";
    input.placeholder = "second sentence (empty: the same sentence)";
    const model = el("select", "ae-compare-model");
    const choices = [["same", "same model"]].concat(SETTINGS.MODELS.map((m) => [m.key, m.name]), [["own", "the model trained here"]]);
    choices.forEach(([v, text]) => {
      const o = el("option", "", text);
      o.value = v;
      model.appendChild(o);
    });
    const go = el("button", "ae-btn ae-primary", "Compare");
    go.type = "button";
    const ask = () => emit(div, "ae-compare", { sentence: input.value, model: model.value });
    go.addEventListener("click", ask);
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") ask(); });
    this.bar = el("div", "ae-compare-bar");
    this.bar.append(el("span", "ae-row-label", "B:"), input, model, go);
    this.pair = el("div", "ae-compare-pair");
    const a = el("div", "ae-compare-map ae-compare-a"), b = el("div", "ae-compare-map ae-compare-b");
    this.pair.append(a, b);
    this.note = el("div", "ae-panel-note ae-compare-note");
    const diff = el("div", "ae-compare-diff");
    div.replaceChildren(this.bar, this.pair, diff, this.note); // A − B right under A and B; the words last
    this.a = new Heatmap(a);
    this.b = new Heatmap(b);
    this.diff = new Grid(diff);
  }

  // Draw the trace on screen (A) and the second one (context.compare(): B, asked once Compare two is drawn) at
  // state's step, kind, layer and head; the refusal of the last B asked for is said beside B's form.
  draw(context, state) {
    const b = context.compare();
    const drawn = this.drawPair(context.trace, b.trace, state);
    this.note.classList.toggle("ae-panel-error", Boolean(b.error));
    if (b.error) this.note.textContent = b.error;
    return drawn;
  }

  drawPair(A, B, state) {
    const c = this, s = state, height = state.height;
    const head = s.head === "all" ? "mean" : s.head;
    const pairBox = c.pair;
    const stepB = B ? Math.min(s.step, B.T) : 0;
    // what B can show: nothing (no B yet, or a layer or head its model lacks), B beside A, or B and A − B
    const problems = [];
    if (B && s.layer >= B.nLayers(s.kind)) problems.push("B's model has no " + s.kind + " layer " + s.layer);
    if (B && Number.isInteger(head) && head >= B.H) problems.push("B's model has no head " + head);
    const showB = Boolean(B) && !problems.length;
    const [qa, ka] = A.labels(s.kind, s.step), [qb, kb] = showB ? B.labels(s.kind, stepB) : [[], []];
    const showDiff = showB && qa.length === qb.length && ka.length === kb.length && qa.length > 0;
    const same = B && B.request.sentence === A.request.sentence;
    const label = B ? "B: " + (same ? "the same sentence" : "“" + B.request.sentence + "”") + " (" + B.model.name + ")" : "";
    const stacked = showB && pairBox.clientWidth < STACK_BELOW;
    const together = stacked && showDiff; // one grid: A, B and A − B as its panels, every row of each in view
    if (!B) {
      c.note.textContent = "Type a second sentence (or choose the other model) and press Compare: B is decoded once, " +
        "then both follow the same step, kind, layer and head.";
    } else if (!showB) {
      c.note.textContent = "Cannot show B here: " + problems.join("; ") + ". Choose a layer and head both models have.";
    } else if (!showDiff) {
      c.note.textContent = label + ". No difference map: A is " + qa.length + " × " + ka.length + " here and B " +
        qb.length + " × " + kb.length + " (queries × keys); the two can only be compared side by side.";
    } else c.note.textContent = label + ". " + (together ? COMPARE_KEY : COMPARE_CAPTION);
    c.note.title = together ? COMPARE_CAPTION : ""; // the whole caption, on the short key's hover
    pairBox.classList.toggle("ae-compare-single", !showB); // A alone takes the width too
    pairBox.classList.toggle("ae-compare-stacked", stacked);
    pairBox.hidden = together;
    c.a.grid.div.hidden = together; // the PNG takes the maps on screen
    c.b.grid.div.hidden = !showB || together;
    c.diff.div.hidden = !showDiff;
    // the heights: A alone takes them; side by side, A and B take 55% and A − B the rest; stacked, A and B a half
    // each of what the note leaves; together, all of it
    const room = height - c.bar.offsetHeight - c.note.offsetHeight - 14; // B's form above, the note below
    const half = !showB ? Math.max(150, room) : stacked ? Math.max(150, Math.floor((room - 8) / 2)) : Math.max(220, Math.round(height * 0.55));
    const drawn = [];
    if (!together) {
      drawn.push(c.a.draw(A, Object.assign({}, s, { head: head, height: half, label: "A", bare: stacked })));
      if (!showB) return Promise.all(drawn);
      drawn.push(c.b.draw(B, Object.assign({}, s, { head: head, step: stepB, height: half, label: "B", hideScale: !stacked, bare: stacked }))); // beside A: A's scale
    }
    if (!showDiff) return Promise.all(drawn);
    const wa = A.weights(s.kind, s.layer, head, s.step), wb = B.weights(s.kind, s.layer, head, stepB);
    const values = wa.map((row, i) => row.map((v, j) => (v === null || wb[i][j] === null ? null : v - wb[i][j])));
    const rows = qa.map((q, i) => (q === qb[i] ? q : q + " / " + qb[i]));
    const columns = ka.map((k, j) => (k === kb[j] ? k : k + " / " + kb[j]));
    const which = Number.isInteger(head) ? "H" + head : head === "mean" ? "mean of heads" : head;
    const named = together ? "A, B and A − B" : "A − B";
    const where = s.kind === "encoder_self" ? "" : " · step " + s.step + (stepB !== s.step ? " (B: " + stepB + ")" : "");
    const titles = [named + " · " + KIND_TITLES[s.kind] + " · L" + s.layer + "·" + which + where, named + " · L" + s.layer + "·" + which];
    const both = together ? { a: wa, b: wb, masked: s.kind === "decoder_self" } : null;
    const diffHeight = together ? Math.max(200, room) : Math.max(200, height - half - 8);
    drawn.push(c.diff.draw(diffSpec(rows, columns, values, titles, diffHeight, s.kind === "encoder_self" ? -1 : s.step - 1, both)));
    return Promise.all(drawn);
  }

  // One canvas with what the Compare view shows (A and B side by side, A − B below) at 2x, with `header` above.
  png(header) {
    const shown = (g) => (!g.div.hidden && g.spec ? g : null);
    const [a, b, diff] = [this.a.grid, this.b.grid, this.diff].map(shown);
    const pics = [a && a.png(header, 2), b && b.png([], 2), diff && diff.png([], 2)];
    const [pa, pb, pd] = pics;
    const out = document.createElement("canvas");
    const top = Math.max(pa ? pa.height : 0, pb ? pb.height : 0);
    out.width = Math.max((pa ? pa.width : 0) + (pb ? pb.width : 0), pd ? pd.width : 0);
    out.height = top + (pd ? pd.height : 0);
    const ctx = out.getContext("2d");
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, out.width, out.height);
    if (pa) ctx.drawImage(pa, 0, 0);
    if (pb) ctx.drawImage(pb, pa ? pa.width : 0, top - pb.height);
    if (pd) ctx.drawImage(pd, 0, top);
    return out;
  }
}

// The view, as the viewer's registry (views.js) knows it: the trace on screen (A) and the second one (B).
export const VIEW = {
  id: "compare", label: "Compare two", tip: "Two decodes side by side at the same step and head (another sentence, or another model), and A − B", className: "ae-compare", controls: ["kind", "layer", "head"],
  caption: () => "",
  create: (div) => new CompareView(div),
};
