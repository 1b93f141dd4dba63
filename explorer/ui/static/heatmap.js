// heatmap.js: the attention heatmap of the current step, drawn on a <canvas> so that a step or a head
// switch repaints within one frame (Plotly.react took 40-90 ms here): a head, the mean of heads, or
// every head of a layer side by side. Rows are queries, columns keys, both labelled with tokens
// (cross-attention: rows target, columns source); the masked future is grey, never a small weight; the
// current step's row is outlined; one fixed 0..1 colour scale with its colour bar; hover shows the
// exact weight; a click on a cell emits "ae-cell". The canvas is the picture: "PNG" saves it as it is.
import { AXIS_TITLES, KIND_TITLES } from "./trace.js";
import { COLORS, LUT, weightColor } from "./colors.js";
import { FAMILY, emit, fontSize, sizeCanvas } from "./dom.js";

const GAP = 14; // px between the panels of "all heads"
const BAR = 70; // px for the colour bar and its ticks

// The canvas and hover box of a heatmap div, made once.
function parts(div) {
  if (!div._heat) {
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    const tip = document.createElement("div");
    tip.className = "ae-tip";
    tip.hidden = true;
    div.replaceChildren(canvas, tip);
    div._heat = { canvas: canvas, tip: tip, geom: null };
    canvas.addEventListener("mousemove", (e) => hover(div, e));
    canvas.addEventListener("click", (e) => { // the viewer explains a clicked cell ("ae-cell" on the div)
      const cell = cellAt(div, e);
      if (cell) emit(div, "ae-cell", cell);
    });
    canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  }
  return div._heat;
}

// Draw state's kind/layer/head at state.step into div (head: a number, "mean", "rollout" or "all"), state.height
// pixels tall. Returns a resolved promise.
export function draw(div, trace, state) {
  const { kind, layer, head, step: t, height } = state;
  const font = fontSize();
  const [queries, keys] = trace.labels(kind, t);
  const heads = head === "all" ? [...Array(trace.H).keys()] : [head];
  const { canvas, tip } = parts(div);
  tip.hidden = true;
  const width = Math.max(300, div.clientWidth || 600);
  const ctx = sizeCanvas(canvas, width, height);
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, width, height);
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#1f2937";
  ctx.font = "600 " + (font + 1) + "px " + FAMILY;
  ctx.textAlign = "left";
  const fits = { title: true, axes: true }; // read by the browser tests: every text drawn whole
  const fitted = (texts, room) => texts.find((text) => ctx.measureText(text).width <= room) || texts[texts.length - 1];
  const off = offNote(trace, kind, layer, head); // a head switched off is marked, never drawn as if it were on
  const titles = [title(kind, layer, head, t), title(kind, layer, head, t, "short"), title(kind, layer, head, t, "shortest")]
    .map((text) => text + off);
  const shownTitle = fitted((state.label ? titles.map((x) => state.label + " · " + x) : []).concat(titles), width - BAR - 12);
  fits.title = ctx.measureText(shownTitle).width <= width - BAR - 12;
  ctx.fillText(shownTitle, 6, font);
  div.dataset.rows = JSON.stringify(queries);
  div.dataset.columns = JSON.stringify(keys);
  div._heat.geom = null;
  if (queries.length === 0) {
    const text = "No target token yet: press → (Next) to produce the first one.";
    ctx.font = font + 1 + "px " + FAMILY;
    ctx.textAlign = "center";
    ctx.fillText(text, width / 2, height / 2);
    canvas.setAttribute("aria-label", text);
    return Promise.resolve();
  }
  const many = heads.length > 1;
  const tickFont = many ? font - 3 : font;
  ctx.font = tickFont + "px " + FAMILY;
  const widest = (labels) => Math.max(...labels.map((s) => ctx.measureText(s).width));
  const rotate = many || keys.length > 8;
  const [ytitle, xtitle] = AXIS_TITLES[kind];
  const left = 6 + font + 6 + widest(queries) + 6; // axis title, tick labels
  const bottom = (rotate ? widest(keys) * 0.87 + tickFont : tickFont + 6) + font + 12;
  const top = 2 * font + 8 + (many ? font : 0);
  const plotW = width - left - BAR - 8;
  const panelW = (plotW - GAP * (heads.length - 1)) / heads.length;
  const cw = panelW / keys.length, ch = (height - top - bottom) / queries.length;
  // long sequences: every n-th label, so that no two overlap (the current row is always named)
  const rowNeed = tickFont + 2, colNeed = rotate ? tickFont + 2 : widest(keys) + 6;
  const colPitch = rotate ? cw * Math.sin(Math.PI / 3) : cw; // rotated labels stand apart by this much
  const rowEvery = Math.max(1, Math.ceil(rowNeed / ch)), colEvery = Math.max(1, Math.ceil(colNeed / colPitch));
  const current = kind === "encoder_self" ? -1 : t - 1;
  const named = (i) => i === current || (i % rowEvery === 0 && Math.abs(i - current) >= rowEvery);
  const drawnColumns = []; // [x, width] of each column label drawn, read by the browser tests
  const panels = heads.map((h, n) => ({ head: h, x0: left + n * (panelW + GAP), z: trace.weights(kind, layer, h, t) }));
  // rollout's products are small and even: its colours span 0 to its largest value (the colour bar says so);
  // attention weights keep the one fixed 0..1 scale
  const peak = head === "rollout" ? Math.max(1e-6, ...panels.flatMap((p) => p.z.flat())) : 1;
  panels.forEach((p) => {
    const xs = keys.map((_, j) => Math.round(p.x0 + j * cw)).concat([Math.round(p.x0 + keys.length * cw)]);
    const ys = queries.map((_, i) => Math.round(top + i * ch)).concat([Math.round(top + queries.length * ch)]);
    for (let i = 0; i < queries.length; i++) {
      const row = p.z[i];
      for (let j = 0; j < keys.length; j++) { // cells on whole pixels: no seams between them
        ctx.fillStyle = row[j] === null ? COLORS.masked : weightColor(row[j] / peak);
        ctx.fillRect(xs[j], ys[i], xs[j + 1] - xs[j], ys[i + 1] - ys[i]);
      }
    }
    if (kind !== "encoder_self") {
      ctx.strokeStyle = COLORS.chosen;
      ctx.lineWidth = 3;
      ctx.strokeRect(p.x0 + 1.5, top + (t - 1) * ch + 1.5, keys.length * cw - 3, ch - 3);
    }
    ctx.fillStyle = "#1f2937";
    ctx.font = tickFont + "px " + FAMILY;
    keys.forEach((label, j) => {
      if (j % colEvery !== 0) return;
      const x = p.x0 + (j + 0.5) * cw, y = top + queries.length * ch + 6;
      drawnColumns.push([x, ctx.measureText(label).width]);
      if (rotate) {
        ctx.save();
        ctx.translate(x, y);
        ctx.rotate(-Math.PI / 3);
        ctx.textAlign = "right";
        ctx.fillText(label, 0, 0);
        ctx.restore();
      } else {
        ctx.textAlign = "center";
        ctx.fillText(label, x, y + tickFont / 2);
      }
    });
    if (many) {
      ctx.textAlign = "center";
      ctx.font = "600 " + font + "px " + FAMILY;
      ctx.fillText("head " + p.head, p.x0 + panelW / 2, top - font / 2 - 2);
    }
  });
  ctx.font = tickFont + "px " + FAMILY;
  ctx.textAlign = "right";
  const drawnRows = [];
  queries.forEach((label, i) => {
    if (!named(i)) return;
    ctx.fillText(label, left - 6, top + (i + 0.5) * ch);
    drawnRows.push(top + (i + 0.5) * ch);
  });
  ctx.font = font + "px " + FAMILY;
  ctx.textAlign = "center";
  const axisFits = (text, room) => ctx.measureText(text).width <= room;
  const xText = axisFits(xtitle, plotW) ? xtitle : xtitle.split(" (")[0];
  ctx.fillText(xText, left + plotW / 2, height - font / 2 - 2);
  ctx.save();
  ctx.translate(6 + font / 2, top + (height - top - bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  const yRoom = height - top - bottom;
  const yText = [ytitle, ytitle.replace("produced ", ""), ytitle.split(" (")[1].replace(")", "")].find((x) => axisFits(x, yRoom)) || "";
  ctx.fillText(yText, 0, 0);
  fits.axes = axisFits(xText, plotW) && (yText === "" || axisFits(yText, yRoom));
  ctx.restore();
  colorBar(ctx, width - BAR + 6, top, height - top - bottom, font, kind === "decoder_self", peak);
  div._heat.fits = fits;
  div._heat.geom = {
    panels: panels, top: top, cw: cw, ch: ch, queries: queries, keys: keys,
    labels: { font: tickFont, rotated: rotate, rows: drawnRows, columns: drawnColumns }, // where labels were drawn
  };
  canvas.setAttribute("aria-label", title(kind, layer, head, t) + off + ". Rows (queries): " + queries.join(" ") + ". Columns (keys): " + keys.join(" ") + ".");
  return Promise.resolve();
}

function colorBar(ctx, x, top, h, font, masked, peak) {
  for (let n = 0; n < 256; n++) {
    ctx.fillStyle = LUT[n];
    ctx.fillRect(x, top + h - ((n + 1) * h) / 256, 14, Math.ceil(h / 256) + 1);
  }
  ctx.fillStyle = "#1f2937";
  ctx.font = font - 2 + "px " + FAMILY;
  ctx.textAlign = "left";
  [0, 0.2, 0.4, 0.6, 0.8, 1].forEach((v) => ctx.fillText((v * peak).toFixed(peak < 1 ? 2 : 1), x + 18, top + h - v * h));
  ctx.fillText(peak < 1 ? "rollout" : "weight", x - 4, top - font - 2);
  if (!masked) return;
  ctx.fillStyle = COLORS.masked; // the masked future, in the key under the scale
  ctx.fillRect(x, top + h + 10, 14, 14);
  ctx.fillStyle = "#1f2937";
  ctx.fillText("masked", x - 4, top + h + 34);
}

// The cell under a mouse event: {row, column, head, weight, x, y}, or null outside the cells.
function cellAt(div, event) {
  const { canvas, geom } = div._heat;
  if (!geom) return null;
  const box = canvas.getBoundingClientRect();
  const x = event.clientX - box.left, y = event.clientY - box.top;
  const i = Math.floor((y - geom.top) / geom.ch);
  const panel = geom.panels.find((p) => x >= p.x0 && x < p.x0 + geom.keys.length * geom.cw);
  const j = panel ? Math.floor((x - panel.x0) / geom.cw) : -1;
  if (!panel || i < 0 || i >= geom.queries.length || j < 0 || j >= geom.keys.length) return null;
  return { row: i, column: j, head: panel.head, weight: panel.z[i][j], x: x, y: y, panel: panel };
}

function hover(div, event) {
  const { canvas, tip, geom } = div._heat;
  const cell = cellAt(div, event);
  if (!cell) {
    tip.hidden = true;
    return;
  }
  const { row: i, column: j, panel, x, y } = cell;
  const v = panel.z[i][j];
  const head = geom.panels.length > 1 ? "head " + panel.head + " · " : "";
  tip.textContent = head + "query: " + geom.queries[i] + " · key: " + geom.keys[j] + " · " + (v === null ? "masked: weight exactly 0" : "weight " + v.toFixed(4));
  tip.hidden = false;
  tip.style.left = Math.min(x + 12, canvas.clientWidth - tip.offsetWidth - 4) + "px";
  tip.style.top = y + 14 + "px";
}

const SHORT = { encoder_self: "Encoder self", decoder_self: "Decoder self", cross: "Cross" }; // narrow charts

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
  const which = { mean: "mean of heads", all: "all heads", rollout: "rollout" }[head] || "head " + head;
  const step = kind === "encoder_self" ? "" : " · step " + t;
  if (length === "shortest") return "L" + layer + " · " + ({ mean: "mean", all: "all" }[head] || (head === "rollout" ? "rollout" : "H" + head)) + step.replace(" step ", " t=");
  if (length) return SHORT[kind] + " · L" + layer + " · " + which + step;
  return KIND_TITLES[kind] + " · layer " + layer + " · " + ({ rollout: "attention rollout" }[head] || which) + step;
}

// The heatmap's canvas, exactly as drawn (for the PNG button).
export function canvasOf(div) { return parts(div).canvas; }
