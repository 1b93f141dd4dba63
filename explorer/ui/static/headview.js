// headview.js: the head view lecturers know from BertViz, inside the step-through. Query tokens on the
// left, key tokens on the right, one line per (query, key) pair whose opacity is the weight, each head of
// the chosen layer in its own colour (toggle heads with the chips above); hovering a token keeps only its
// lines. Decoder kinds follow the current step (its query row is drawn last, on top). Canvas, from the trace.
import { AXIS_TITLES, KIND_TITLES, headName } from "./trace.js";
import { HEAD_COLORS, headColor } from "./colors.js";
import { FAMILY, belowBand, el, fontSize, sizeCanvas, withHeader } from "./dom.js";

// The view in one box: the head chips and the canvas, made once. Which heads are shown and the hovered token are this
// view's own state: a toggle or a hover redraws this view only, from the trace and state it last drew.
class HeadView {
  constructor(div) {
    this.div = div;
    this.chips = el("div", "ae-hv-chips");
    const canvas = (this.canvas = document.createElement("canvas"));
    canvas.setAttribute("role", "img");
    div.replaceChildren(this.chips, canvas);
    this.hovered = null; // the hovered token: {side, index}
    this.geom = null; // where the rows are
    this.on = null; // the heads shown
    this.last = null; // [trace, state] drawn last
    const redraw = () => { if (this.last) this.draw({ trace: this.last[0] }, this.last[1]); };
    canvas.addEventListener("mousemove", (e) => {
      const g = this.geom;
      if (!g) return;
      const box = canvas.getBoundingClientRect();
      const x = e.clientX - box.left, y = e.clientY - box.top;
      const side = x < g.width / 2 ? "query" : "key";
      const n = Math.floor((y - g.top) / g.rowH);
      const count = side === "query" ? g.queries.length : g.keys.length;
      const focus = n >= 0 && n < count ? { side: side, index: n } : null;
      if (JSON.stringify(focus) !== JSON.stringify(this.hovered)) {
        this.hovered = focus;
        redraw();
      }
    });
    canvas.addEventListener("mouseleave", () => { this.hovered = null; redraw(); });
    this.chips.addEventListener("click", (e) => {
      const chip = e.target.closest(".ae-hv-chip");
      if (!chip) return;
      const h = Number(chip.dataset.head);
      if (this.on.has(h)) this.on.delete(h);
      else this.on.add(h);
      redraw();
    });
  }

  // Draw the trace on screen at state. Returns a resolved promise.
  draw(context, state) {
    this.last = [context.trace, state];
    this.paint(this.canvas, context.trace, state);
    return Promise.resolve();
  }

  // Draw the head view of state.kind and state.layer at state.step on `canvas` (the page's, or one off screen for the
  // PNG at state.ratio), with the heads switched on in its chips (all, for a new model).
  paint(canvas, trace, state) {
    const { kind, layer, step: t } = state;
    if (!this.on || [...this.on].some((h) => h >= trace.H)) this.on = new Set([...Array(trace.H).keys()]);
    const on = this.on;
    const font = fontSize();
    const [queries, keys] = trace.labels(kind, t);
    this.chips.replaceChildren(el("span", "ae-row-label", "Heads"), ...[...Array(trace.H).keys()].map((h) => {
      const chip = el("button", "ae-btn ae-hv-chip" + (on.has(h) ? " ae-on" : ""), "H" + h);
      chip.type = "button";
      chip.style.borderColor = headColor(h);
      chip.style.background = on.has(h) ? headColor(h) : "white";
      chip.style.color = on.has(h) && h % HEAD_COLORS.length !== 6 ? "white" : "#1f2937";
      chip.dataset.head = h;
      chip.title = "show or hide head " + h + "'s lines";
      return chip;
    }));
    const top = font + 16, rowCount = Math.max(queries.length, keys.length, 1);
    // rows spread over the height the viewer gives (the chips above it take one line); a long sentence keeps rows
    // one label apart and scrolls with the page
    const chipsH = this.chips.offsetHeight || font + 16;
    const rowH = Math.max(font + 4, (state.height - chipsH - top - 8) / rowCount);
    const height = top + rowCount * rowH + 8;
    const width = Math.max(320, this.div.clientWidth || 600);
    const ctx = sizeCanvas(canvas, width, height, state.ratio);
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, width, height);
    const leftX = width * 0.32, rightX = width * 0.68;
    const yOf = (n) => top + (n + 0.5) * rowH;
    ctx.font = "600 " + (font - 1) + "px " + FAMILY;
    ctx.fillStyle = "#475569";
    ctx.textAlign = "right";
    // the queries' title, shortened where the column is too narrow for it (a projector's larger type): never cut
    const queriesTitle = AXIS_TITLES[kind][0].replace(" (query)", "");
    ctx.fillText(ctx.measureText(queriesTitle).width <= leftX - 12 ? queriesTitle : "query", leftX - 8, font);
    ctx.textAlign = "left";
    ctx.fillText(AXIS_TITLES[kind][1].replace(" (key)", ""), rightX + 8, font);
    const focus = this.hovered;
    const strongest = []; // per head shown, its strongest line drawn: what the canvas's text alternative says
    const rows = [...Array(trace.H).keys()].filter((h) => on.has(h)).map((h) => [h, trace.weights(kind, layer, h, t)]);
    ctx.lineWidth = 2;
    for (const [h, weights] of rows) {
      ctx.strokeStyle = headColor(h);
      let best = null;
      weights.forEach((row, i) => row.forEach((w, j) => {
        if (w === null || w < 0.01) return; // masked future, or too faint to see
        if (focus && !((focus.side === "query" && focus.index === i) || (focus.side === "key" && focus.index === j))) return;
        ctx.globalAlpha = Math.min(1, w);
        ctx.beginPath();
        ctx.moveTo(leftX + 4, yOf(i));
        ctx.lineTo(rightX - 4, yOf(j));
        ctx.stroke();
        if (!best || w > best.w) best = { i: i, j: j, w: w };
      }));
      if (best) strongest.push(headName(layer, h) + ": “" + queries[best.i] + "” → “" + keys[best.j] + "” " + best.w.toFixed(2));
    }
    ctx.globalAlpha = 1;
    ctx.font = font + "px " + FAMILY;
    ctx.textBaseline = "middle";
    const label = (text, x, y, align, active, current) => {
      ctx.textAlign = align;
      ctx.fillStyle = active ? "#1f2937" : "#94a3b8";
      ctx.font = (current ? "700 " : "") + font + "px " + FAMILY;
      ctx.fillText(text, x, y);
    };
    queries.forEach((q, i) => label(q, leftX - 8, yOf(i), "right", !focus || (focus.side === "query" && focus.index === i) || focus.side === "key", kind !== "encoder_self" && i === t - 1));
    keys.forEach((k, j) => label(k, rightX + 8, yOf(j), "left", !focus || (focus.side === "key" && focus.index === j) || focus.side === "query", false));
    this.geom = { width: width, top: top, rowH: rowH, queries: queries, keys: keys };
    // the text alternative: what is drawn, and each shown head's strongest line (of the hovered token's, on hover)
    const hovered = focus ? " Hovering “" + (focus.side === "query" ? queries : keys)[focus.index] + "” (" + focus.side +
      " " + focus.index + "): its lines only." : "";
    canvas.setAttribute("aria-label", KIND_TITLES[kind] + " · layer " + layer + " · head view · heads " +
      [...on].sort((p, q) => p - q).join(", ") + (kind === "encoder_self" ? "" : " · step " + t) +
      ". Lines from queries (left) to keys (right)." + hovered + " Strongest: " + (strongest.join("; ") || "none") + ".");
  }

  // The head view as a picture that explains itself (the PNG button), drawn again at twice the size: `header` lines
  // (the sentence, the step), a title and a key of the heads' colours above the lines.
  png(header) {
    const [trace, state] = this.last, ratio = 2;
    const lines = document.createElement("canvas"); // drawn off screen at 2x; the page keeps its own
    this.paint(lines, trace, Object.assign({}, state, { ratio: ratio }));
    const font = fontSize();
    const heads = [...this.on].sort((p, q) => p - q);
    const key = belowBand(lines, 2 * font + 24, ratio, (ctx) => {
      ctx.font = "600 " + (font + 1) + "px " + FAMILY;
      const step = state.kind === "encoder_self" ? "" : " · step " + state.step;
      ctx.fillText(KIND_TITLES[state.kind] + " · layer " + state.layer + " · head view" + step, 6, font);
      ctx.font = font + "px " + FAMILY;
      let x = 6;
      heads.forEach((h) => {
        ctx.fillStyle = headColor(h);
        ctx.fillRect(x, 2 * font + 4, 14, 14);
        ctx.fillStyle = "#1f2937";
        ctx.fillText("H" + h, x + 18, 2 * font + 11);
        x += ctx.measureText("H" + h).width + 34;
      });
      ctx.fillText("line opacity = weight", x + 10, 2 * font + 11);
    });
    return withHeader(key, header, ratio);
  }
}

// The view, as the viewer's registry (views.js) knows it.
export const VIEW = {
  id: "headview", label: "Head view", tip: "As in BertViz: a line from every query token to every key token, as opaque as its weight, one colour per head", className: "ae-headview", controls: ["kind", "layer"],
  caption: () => "Head view (as in BertViz): each line joins a query token (left) to a key token (right); its " +
    "opacity is the weight, its colour the head. Weights under 0.01 are not drawn. It shows where each head looked " +
    "at this step, not what the head passed on (the values) nor how the layers combine it.",
  create: (div) => new HeadView(div),
};
