// grid.js: a labelled grid of cells, the one drawing behind the heatmaps, the look-ahead mask's three stages and
// the A − B map of Compare two. The cells are painted on a <canvas> (a step repaints within a frame); every label
// (the title, each row and column token, the axis titles, the panels' names, the colour scales and their ticks)
// is text in the page, so a screen reader reads it, a student can select it and a test can find it. No label is
// ever dropped: labels shrink down to a floor size, and below that the grid grows and scrolls inside its box, the
// current row kept in view and the row labels pinned at the left while it scrolls sideways. Panels' names have
// shorter forms for a narrow box. `png` paints the same layout, labels included, at twice the size for a slide.
// A `Grid` is made once per box (`new Grid(div)`): its parts, the spec it drew and where its cells are are its own.
//
// spec: {titles: [text, shorter, ...], rows, columns, panels: [{name, short (optional: its name where the full one
// does not fit), head, z (rows x columns, null: masked), scale (index into scales)}], scales: [{label, min, max, color(v) -> css, ticks: [v], masked, format(v)}],
// rowTitles / columnTitles: [text, shorter, ...], current: the outlined row (-1: none), font, height,
// describe(panel, i, j) -> the hover text, aria: the canvas's description, titleTip: what the title's terms mean,
// bare: no axis title under the columns (maps stacked in a short box), wrap: the panels may go in rows of panels
// (every head of a layer; the mask's stages stay side by side)}.
import { COLORS } from "./colors.js";
import { FAMILY, el, emit, sizeCanvas, textFloor, wrapText } from "./dom.js";

const GAP = 14; // px between panels
const SIN = Math.sin(Math.PI / 3); // column labels rotated by 60 degrees stand this far apart per px of column
const SCROLLBAR = 16;

// The floor under which labels never shrink: the grid grows instead.
export function labelFloor(font) { return Math.max(11, textFloor(), Math.round(font * 0.8)); }

// A labelled grid in `div`: its parts made once, then drawn from a spec (`draw`) as often as the view changes.
export class Grid {
  constructor(div) {
    this.div = div;
    const title = (this.title = el("div", "ae-grid-title"));
    const scroll = (this.scroll = el("div", "ae-grid-scroll"));
    const sheet = (this.sheet = el("div", "ae-grid-sheet"));
    const canvas = (this.canvas = document.createElement("canvas"));
    canvas.setAttribute("role", "img");
    this.labels = el("div", "ae-grid-labels");
    const pin = (this.pin = el("div", "ae-grid-pin")); // the row labels: they stay at the left when the sheet scrolls sideways
    const tip = (this.tip = el("div", "ae-tip"));
    tip.hidden = true;
    sheet.append(canvas, this.labels, pin, tip);
    scroll.appendChild(sheet);
    // the column labels below the rows, in a strip that follows the grid's horizontal scroll, never its vertical one
    // and the panels' names above them, in a strip that follows the horizontal scroll too
    const strip = (this.strip = el("div", "ae-grid-strip")), headStrip = (this.headStrip = el("div", "ae-grid-strip"));
    this.columns = el("div", "ae-grid-columns");
    this.names = el("div", "ae-grid-columns");
    strip.appendChild(this.columns);
    headStrip.appendChild(this.names);
    scroll.addEventListener("scroll", () => {
      strip.scrollLeft = headStrip.scrollLeft = scroll.scrollLeft;
      pin.style.transform = "translateX(" + scroll.scrollLeft + "px)";
    });
    const stack = el("div", "ae-grid-stack");
    stack.append(headStrip, scroll, strip);
    this.scales = el("div", "ae-grid-scales");
    this.yTitle = el("div", "ae-tick-axis ae-tick-axis-y");
    this.xTitle = el("div", "ae-tick-axis ae-tick-axis-x");
    const body = el("div", "ae-grid-body");
    body.append(this.yTitle, stack, this.scales);
    div.replaceChildren(title, body, this.xTitle);
    this.spec = null; // the spec drawn last
    this.geom = null; // where its cells are (null: nothing drawn, or an empty grid)
    canvas.addEventListener("mousemove", (e) => this.hover(e));
    canvas.addEventListener("click", (e) => { // the viewer explains a clicked cell ("ae-cell" on the div)
      const cell = this.cellAt(e);
      if (cell) emit(div, "ae-cell", cell);
    });
    canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  }

  // Draw spec into the grid's box. Returns a resolved promise.
  draw(spec) {
    const g = this, div = this.div;
    g.spec = spec;
    g.tip.hidden = true;
    const font = spec.font;
    const width = Math.max(300, div.clientWidth || 600);
    const scaleW = scaleWidth(spec);
    const titleH = font + 12, axisW = font + 10; // the axis titles sit outside the scrolling sheet: always in view
    const namesH = spec.panels.length > 1 && spec.rows.length ? font + 8 : 0; // the panels' names
    const xTitleH = spec.bare ? 0 : titleH;
    const boxW = width - scaleW - axisW, boxH = Math.max(120, spec.height - titleH - xTitleH - namesH);
    g.title.style.fontSize = font + 1 + "px";
    g.title.style.height = g.title.style.lineHeight = titleH + "px";
    g.title.textContent = fitted(spec.titles, width - 8, font + 1, "600");
    g.title.title = spec.titles[0] + (spec.titleTip ? "\n" + spec.titleTip : ""); // the hover says what it names
    g.scroll.style.width = g.strip.style.width = g.headStrip.style.width = boxW + "px";
    g.headStrip.style.height = g.names.style.height = namesH + "px";
    g.scroll.style.height = boxH + "px";
    g.strip.style.height = "0";
    g.yTitle.style.width = axisW + "px";
    g.yTitle.style.height = boxH + "px";
    g.xTitle.style.height = g.xTitle.style.lineHeight = xTitleH + "px";
    g.xTitle.hidden = Boolean(spec.bare);
    for (const t of [g.yTitle, g.xTitle]) t.style.fontSize = font + "px";
    if (!spec.rows.length || !spec.columns.length) {
      g.geom = null;
      sizeCanvas(g.canvas, boxW - 4, boxH - 4).clearRect(0, 0, boxW, boxH);
      g.sheet.style.width = boxW - 4 + "px"; // the message's box is the chart's, not the last grid's sheet
      g.sheet.style.height = boxH - 4 + "px";
      g.scroll.scrollLeft = 0;
      g.columns.replaceChildren();
      g.names.replaceChildren();
      g.pin.replaceChildren();
      g.pin.style.width = "0"; // its white would cover the message's start
      g.labels.replaceChildren(span("ae-grid-empty", spec.empty || "", { left: "0", right: "0", top: boxH / 2 - font + "px", fontSize: font + 1 + "px" }));
      g.scales.replaceChildren();
      g.xTitle.textContent = g.yTitle.textContent = "";
      g.canvas.setAttribute("aria-label", spec.empty || "");
      return Promise.resolve();
    }
    let L = layout(spec, boxW, boxH);
    const cols = L.cols; // the arrangement chosen for the whole box; the scroll bars only make it a little smaller
    if (L.width > boxW) L = arranged(spec, boxW, boxH - SCROLLBAR, cols); // a horizontal scroll bar takes its height
    if (L.height > boxH) L = arranged(spec, boxW - SCROLLBAR, L.width > boxW ? boxH - SCROLLBAR : boxH, cols);
    const sheetW = Math.max(L.width, 300), sheetH = L.sheetH;
    const scrollH = Math.min(sheetH + (L.width > boxW ? SCROLLBAR : 0), boxH - L.bottom);
    g.scroll.style.height = scrollH + "px";
    g.strip.style.height = L.bottom + "px";
    g.sheet.style.width = g.columns.style.width = g.names.style.width = sheetW + "px";
    g.sheet.style.height = sheetH + "px";
    g.columns.style.height = L.bottom + "px";
    const ctx = sizeCanvas(g.canvas, sheetW, sheetH);
    paintCells(ctx, spec, L, sheetW, sheetH);
    const [rowSpans, columnSpans, nameSpans, bandSpans] = labelSpans(spec, L, sheetW);
    g.columns.replaceChildren(...columnSpans);
    g.names.replaceChildren(...nameSpans);
    g.labels.replaceChildren(...bandSpans); // the names of the second and later rows of panels (or nothing)
    g.pin.replaceChildren(...rowSpans);
    g.pin.style.width = L.left + "px";
    g.pin.style.height = sheetH + "px";
    const seenW = Math.min(boxW, sheetW) - L.left, seenH = scrollH - L.top;
    g.xTitle.style.paddingLeft = axisW + L.left + "px";
    g.xTitle.style.width = axisW + L.left + seenW + "px";
    g.xTitle.textContent = fitted(spec.columnTitles, seenW, font);
    g.yTitle.textContent = fitted(spec.rowTitles.concat([""]), seenH, font);
    g.scales.replaceChildren(...(spec.hideScales ? [] : scaleBlocks(spec, font, L.top, seenH)));
    g.geom = {
      panels: spec.panels.map((p, k) => Object.assign({ x0: L.x0[k], y0: L.y0[k] }, p)), top: L.top, left: L.left, cw: L.cw, ch: L.ch,
      cols: L.cols, rows: L.rows, band: L.band,
      queries: spec.rows, keys: spec.columns, width: sheetW, height: namesH + sheetH + L.bottom, bottom: L.bottom, namesH: namesH,
      labels: { font: L.size, rotated: L.rotate },
    };
    g.canvas.setAttribute("aria-label", spec.aria);
    this.keepInView(spec.current);
    g.pin.style.transform = "translateX(" + g.scroll.scrollLeft + "px)";
    return Promise.resolve();
  }

  // Scroll the grid so that row i (and column j, if given) is in view; nothing moves if it already is.
  keepInView(i, j) {
    const g = this, geom = g.geom;
    if (!geom || i === undefined || i < 0) return;
    const s = g.scroll, y0 = geom.top + i * geom.ch, y1 = y0 + geom.ch;
    if (y0 < s.scrollTop || y1 > s.scrollTop + s.clientHeight) s.scrollTop = Math.max(0, y1 - s.clientHeight / 2);
    if (j === undefined || j < 0) return;
    const x0 = geom.panels[0].x0 + j * geom.cw, x1 = x0 + geom.cw;
    if (x0 < s.scrollLeft || x1 > s.scrollLeft + s.clientWidth) s.scrollLeft = Math.max(0, x1 - s.clientWidth / 2);
  }

  // The cell under a mouse event: {row, column, head, weight, x, y, panel}, or null outside the cells.
  cellAt(event) {
    const { canvas, geom } = this;
    if (!geom) return null;
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left, y = event.clientY - box.top;
    const panel = geom.panels.find((p) => x >= p.x0 && x < p.x0 + geom.keys.length * geom.cw &&
      y >= p.y0 && y < p.y0 + geom.queries.length * geom.ch);
    const i = panel ? Math.floor((y - panel.y0) / geom.ch) : -1;
    const j = panel ? Math.floor((x - panel.x0) / geom.cw) : -1;
    if (!panel || i < 0 || i >= geom.queries.length || j < 0 || j >= geom.keys.length) return null;
    return { row: i, column: j, head: panel.head, weight: panel.z[i][j], x: x, y: y, panel: panel };
  }

  hover(event) {
    const { tip, sheet, spec } = this;
    const cell = this.cellAt(event);
    if (!cell) {
      tip.hidden = true;
      return;
    }
    tip.textContent = spec.describe(cell.panel, cell.row, cell.column);
    tip.hidden = false;
    tip.style.left = Math.max(0, Math.min(cell.x + 12, sheet.clientWidth - tip.offsetWidth - 4)) + "px";
    tip.style.top = cell.y + 14 + "px";
  }

  // The grid as a picture for a slide: `header` lines (the sentence, the step) above the title, the cells, every
  // label and the colour scales, at `scale` times the size on screen. An empty grid (no row yet) is no picture: it
  // throws its own message (the viewer says it) rather than download a blank slide.
  png(header, scale) {
    const g = this, spec = g.spec, geom = g.geom, k = scale || 2;
    if (!geom) throw new Error(spec && spec.empty ? spec.empty.replace(/:.*/, "") + ", so there is no picture: " +
      "step once (→) and press PNG again." : "Nothing is drawn yet: there is no picture to download.");
    const font = spec.font;
    const scaleW = scaleWidth(spec), axisW = font + 10, titleH = font + 12;
    const W = axisW + geom.width + scaleW;
    // the header lines and the title, each wrapped to the picture's width: a slide never cuts its own header
    const lines = wrapLines((header || []).map((text, n) => [text, n === 0 ? "600 " + font : String(font)])
      .concat([[spec.titles[0], "600 " + (font + 1)]]), W - 12);
    const headH = lines.length * (font + 8) + 8;
    const H = headH + geom.height + titleH;
    const out = document.createElement("canvas");
    out.width = Math.round(W * k);
    out.height = Math.round(H * k);
    const ctx = out.getContext("2d");
    ctx.scale(k, k);
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = "#1f2937";
    ctx.textBaseline = "middle";
    lines.forEach(([text, style], n) => {
      ctx.font = style + "px " + FAMILY;
      ctx.fillText(text, 6, (n + 0.5) * (font + 8) + 4);
    });
    const gridW = geom.cols * geom.cw * geom.keys.length + GAP * (geom.cols - 1);
    const gridH = geom.rows * geom.queries.length * geom.ch + geom.band * (geom.rows - 1);
    ctx.fillStyle = "white";
    ctx.save();
    ctx.translate(axisW, headH);
    paintLabels(ctx, g.names, g.names);
    ctx.translate(0, geom.namesH);
    const L = { cw: geom.cw, ch: geom.ch, panelW: geom.cw * geom.keys.length, x0: geom.panels.map((p) => p.x0), y0: geom.panels.map((p) => p.y0) };
    paintCells(ctx, spec, L, geom.width, geom.height);
    const pinned = g.pin.style.transform;
    g.pin.style.transform = ""; // the row labels where they belong on the whole sheet
    paintLabels(ctx, g.pin, g.sheet);
    paintLabels(ctx, g.labels, g.sheet); // the names between rows of panels
    g.pin.style.transform = pinned;
    ctx.translate(0, geom.height - geom.namesH - geom.bottom);
    paintLabels(ctx, g.columns, g.columns);
    ctx.restore();
    ctx.font = font + "px " + FAMILY;
    ctx.fillStyle = "#1f2937";
    ctx.textAlign = "center";
    ctx.fillText(spec.columnTitles[0], axisW + geom.left + gridW / 2, headH + geom.height + titleH / 2);
    ctx.save();
    ctx.translate(axisW / 2, headH + geom.namesH + geom.top + gridH / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(fitted(spec.rowTitles.concat([""]), gridH, font), 0, 0); // as long as the rows are tall, never into the header
    ctx.restore();
    paintScales(ctx, g.scales, axisW + geom.width, headH, font);
    return out;
  }
}

function measurer() {
  const ctx = (measurer.ctx = measurer.ctx || document.createElement("canvas").getContext("2d"));
  return (texts, size, weight) => {
    ctx.font = (weight || "") + " " + size + "px " + FAMILY;
    return Math.max(0, ...texts.map((s) => ctx.measureText(s).width));
  };
}

// Where everything goes: label font, cell sizes, margins and the sheet's size (larger than the box: it scrolls).
// Several panels (every head of a layer) go side by side when they fit, else in rows of panels (2 x 2 for four
// heads, 4 x 2 or 2 x 4 for eight), whichever fits the box with the largest cells; only when none fits does the
// sheet grow and scroll, in the arrangement that overflows least.
function layout(spec, boxW, boxH) {
  const P = spec.panels.length;
  let best = null;
  for (let rows = 1; rows <= (spec.wrap ? P : 1); rows++) { // panels meant side by side (the mask's stages) stay so
    const cols = Math.ceil(P / rows); // as few panels in a row as this many rows allow: the widest panels
    if (rows > 1 && cols === Math.ceil(P / (rows - 1))) continue; // no fewer than with a row less
    const L = arranged(spec, boxW, boxH, cols);
    const over = Math.max(1, L.width / boxW) * Math.max(1, L.height / boxH); // 1: it fits the box
    const score = [-over, L.size, -L.rows]; // fits, then the largest labels, then the fewest rows of panels
    if (!best || better(score, best.score)) best = { L: L, score: score };
  }
  return best.L;
}

// Whether score `a` beats `b`: the first entry where they differ is larger in `a`.
function better(a, b) {
  const k = a.findIndex((v, i) => v !== b[i]);
  return k >= 0 && a[k] > b[k];
}

// The layout with `cols` panels in a row: rows of panels repeat the row labels at the left and the panels' names
// above each panel (the first row's in the strip above the sheet, the others' in a band between the rows); the
// column labels sit once, below the sheet, under each column of panels.
function arranged(spec, boxW, boxH, cols) {
  const widest = measurer();
  const font = spec.font, P = spec.panels.length, n = spec.rows.length, m = spec.columns.length;
  const R = Math.ceil(P / cols), band = R > 1 ? GAP + font + 8 : 0; // between two rows of panels: their names
  const top = 4;
  const floor = labelFloor(font);
  let size = font, rotate = false, bottom = 0, left = 0, cw = 0, ch = 0;
  for (let pass = 0; pass < 3; pass++) {
    left = 4 + widest(spec.rows, size, "600") + 8; // the row labels (the current one is bold)
    cw = (boxW - left - 8 - GAP * (cols - 1)) / cols / m;
    rotate = P > 1 || m > 8 || widest(spec.columns, size) + 6 > cw;
    bottom = (rotate ? widest(spec.columns, size) * SIN + size : size + 6) + 8;
    ch = (boxH - top - bottom - band * (R - 1)) / (n * R);
    const fits = Math.floor(Math.min(font, ch - 2, rotate ? cw * SIN - 2 : font));
    const next = Math.max(floor, fits);
    if (next === size) break;
    size = next;
  }
  ch = Math.max(ch, size + 2);
  if (rotate) cw = Math.max(cw, (size + 2) / SIN);
  let names = spec.panels.map((p) => p.name); // the panels' names fit: their short forms where the full ones would not
  const nameW = (texts) => (widest(texts, font, "600") + 8) / m;
  if (P > 1 && nameW(names) > cw && spec.panels.every((p) => p.short)) names = spec.panels.map((p) => p.short);
  if (P > 1) cw = Math.max(cw, nameW(names));
  const panelW = cw * m, pitch = n * ch + band; // from one row of panels to the next
  const sheetH = Math.ceil(top + R * n * ch + band * (R - 1) + 2);
  return {
    names: names, size: size, rotate: rotate, top: top, left: left, bottom: bottom, cw: cw, ch: ch, panelW: panelW,
    cols: cols, rows: R, band: band, sheetH: sheetH,
    width: Math.ceil(left + cols * panelW + GAP * (cols - 1) + 8), height: sheetH + bottom,
    x0: spec.panels.map((_, k) => left + (k % cols) * (panelW + GAP)),
    y0: spec.panels.map((_, k) => top + Math.floor(k / cols) * pitch),
  };
}

// The first of `texts` that fits `room` px at `size`, else the last.
function fitted(texts, room, size, weight) {
  const widest = measurer();
  return texts.find((t) => widest([t], size, weight) <= room) || texts[texts.length - 1];
}

function span(className, text, style) {
  const s = el("span", "ae-tick " + className, text);
  Object.assign(s.style, style);
  return s;
}

function paintCells(ctx, spec, L, sheetW, sheetH) {
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, sheetW, sheetH);
  const n = spec.rows.length, m = spec.columns.length;
  spec.panels.forEach((p, k) => {
    const scale = spec.scales[p.scale || 0];
    const x0 = L.x0[k], y0 = L.y0[k];
    const xs = [...Array(m + 1).keys()].map((j) => Math.round(x0 + j * L.cw));
    const ys = [...Array(n + 1).keys()].map((i) => Math.round(y0 + i * L.ch));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) { // cells on whole pixels: no seams between them
        const v = p.z[i][j];
        ctx.fillStyle = v === null ? COLORS.masked : scale.color(v);
        ctx.fillRect(xs[j], ys[i], xs[j + 1] - xs[j], ys[i + 1] - ys[i]);
      }
    }
    if (spec.current >= 0) {
      ctx.strokeStyle = COLORS.chosen;
      ctx.lineWidth = 3;
      ctx.strokeRect(x0 + 1.5, y0 + spec.current * L.ch + 1.5, L.panelW - 3, L.ch - 3);
    }
    for (const [i, j] of spec.outlines || []) { // outlined cells (a gold alignment's links): white, black inside
      const [w, h] = [xs[j + 1] - xs[j], ys[i + 1] - ys[i]];
      COLORS.gold.forEach((color, k) => {
        ctx.strokeStyle = color;
        ctx.lineWidth = k ? 1 : 3;
        const inset = k ? 2.5 : 1.5;
        ctx.strokeRect(xs[j] + inset, ys[i] + inset, Math.max(1, w - 2 * inset), Math.max(1, h - 2 * inset));
      });
    }
  });
}

// Every label as page text, at the layout's places: [the rows' labels (repeated for each row of panels), the
// columns' on the strip below the sheet (under each column of panels), the first row of panels' names (the strip
// above the sheet), the other rows' names (on the sheet, in the band above their panels)].
function labelSpans(spec, L, sheetW) {
  const rows = [], columns = [], names = [], band = [], size = L.size, line = size + 2, font = spec.font;
  for (let r = 0; r < L.rows; r++) {
    const y0 = L.y0[r * L.cols];
    spec.rows.forEach((text, i) => {
      rows.push(span("ae-tick-row" + (i === spec.current ? " ae-tick-current" : ""), text, { // in the pin, L.left wide
        right: "6px", top: y0 + (i + 0.5) * L.ch - line / 2 + "px", fontSize: size + "px", lineHeight: line + "px",
      }));
    });
  }
  const y = 5;
  spec.panels.forEach((p, k) => {
    if (spec.panels.length > 1) {
      const first = k < L.cols;
      const name = span("ae-tick-panel", L.names[k], {
        left: L.x0[k] + "px", width: L.panelW + "px", top: (first ? 3 : L.y0[k] - font - 5) + "px",
        fontSize: font + "px", lineHeight: font + 2 + "px",
      });
      name.title = p.name; // the full name, where the short one is drawn
      (first ? names : band).push(name);
    }
    if (k >= L.cols) return; // the columns are labelled once, under each column of panels
    spec.columns.forEach((text, j) => {
      const x = L.x0[k] + (j + 0.5) * L.cw;
      const style = L.rotate
        ? { right: sheetW - x + "px", top: y - line / 2 + "px", transform: "rotate(-60deg)", transformOrigin: "100% 50%" }
        : { left: x + "px", top: y + "px", transform: "translateX(-50%)" };
      columns.push(span("ae-tick-column" + (L.rotate ? " ae-tick-rotated" : ""), text, Object.assign({ fontSize: size + "px", lineHeight: line + "px" }, style)));
    });
  });
  return [rows, columns, names, band];
}

// The width of the colour scales' column: the bar and its widest text (none where the scales are hidden: B of
// Compare two shares A's).
function scaleWidth(spec) {
  if (!spec.scales.length || spec.hideScales) return 0;
  const size = Math.max(11, spec.font - 2), widest = measurer();
  const texts = spec.scales.flatMap((sc) => [sc.label, "masked"].concat(sc.ticks.map(sc.format)));
  return Math.ceil(30 + widest(texts, size));
}

// The colour scales, beside the scrolling grid (they never scroll away): a gradient, its ticks, and the grey of the
// masked future where the grid has it.
function scaleBlocks(spec, font, top, height) {
  const n = spec.scales.length;
  const each = (height - 8 * (n - 1)) / n;
  return spec.scales.map((scale, k) => {
    const block = el("div", "ae-scale");
    block.style.top = top + k * (each + 8) + "px";
    block.style.fontSize = Math.max(11, font - 2) + "px";
    const barH = Math.max(40, each - (scale.masked ? 2 * font + 8 : 0) - 2 * font - 8);
    const label = el("div", "ae-scale-label", scale.label);
    const bar = el("div", "ae-scale-bar");
    bar.style.height = barH + "px";
    const stops = [...Array(17).keys()].map((q) => scale.color(scale.min + (q / 16) * (scale.max - scale.min)) + " " + (q / 16) * 100 + "%");
    bar.style.background = "linear-gradient(to top, " + stops.join(", ") + ")";
    const ticks = el("div", "ae-scale-ticks");
    ticks.style.height = barH + "px";
    const px = Math.max(11, font - 2) + 4, every = Math.ceil(px / (barH / Math.max(1, scale.ticks.length - 1)));
    const last = scale.ticks.length - 1; // the ends always, and what fits between them
    scale.ticks.filter((_, n) => n === last || (n % every === 0 && last - n >= every)).forEach((v) => {
      const t = el("span", "ae-scale-tick", scale.format(v));
      t.style.bottom = ((v - scale.min) / (scale.max - scale.min)) * 100 + "%";
      ticks.appendChild(t);
    });
    const row = el("div", "ae-scale-row");
    row.append(bar, ticks);
    block.append(label, row);
    if (scale.masked) {
      const key = el("div", "ae-scale-masked");
      const swatch = el("span", "ae-swatch");
      swatch.style.background = COLORS.masked;
      key.append(swatch, "masked");
      block.appendChild(key);
    }
    return block;
  });
}

// [text, font style ("600 15")] lines broken at spaces so that none is wider than `width` pixels.
function wrapLines(lines, width) {
  const ctx = document.createElement("canvas").getContext("2d");
  return lines.flatMap(([text, style]) => {
    ctx.font = style + "px " + FAMILY;
    return wrapText(ctx, text, width).map((line) => [line, style]);
  });
}

// The page's label spans painted where they are on screen (their boxes relative to the sheet).
function paintLabels(ctx, labels, sheet) {
  const origin = sheet.getBoundingClientRect();
  ctx.fillStyle = "#1f2937";
  [...labels.children].forEach((s) => {
    const style = getComputedStyle(s);
    ctx.font = style.fontWeight + " " + style.fontSize + " " + FAMILY;
    const size = parseFloat(style.fontSize);
    const text = s.textContent, w = ctx.measureText(text).width;
    const rotated = s.classList.contains("ae-tick-rotated"), vertical = s.classList.contains("ae-tick-axis-y");
    const r = s.getBoundingClientRect();
    const cx = r.left - origin.left + r.width / 2, cy = r.top - origin.top + r.height / 2;
    ctx.save();
    ctx.translate(cx, cy);
    if (rotated) ctx.rotate(-Math.PI / 3);
    if (vertical) ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    if (s.classList.contains("ae-tick-current")) ctx.fillStyle = COLORS.chosen;
    ctx.fillText(text, 0, 0, Math.max(w, size));
    ctx.restore();
    ctx.fillStyle = "#1f2937";
  });
}

function paintScales(ctx, scales, x0, y0, font) {
  const origin = scales.getBoundingClientRect();
  [...scales.querySelectorAll(".ae-scale-bar, .ae-scale-label, .ae-scale-tick, .ae-scale-masked")].forEach((e) => {
    const r = e.getBoundingClientRect(), x = x0 + r.left - origin.left + 4, y = y0 + r.top - origin.top;
    if (e.classList.contains("ae-scale-bar")) {
      const colors = e.style.background.match(/rgba?\([^)]*\)|#[0-9a-fA-F]{6}/g) || [];
      const grad = ctx.createLinearGradient(0, y + r.height, 0, y);
      colors.forEach((c, n) => grad.addColorStop(n / Math.max(1, colors.length - 1), c));
      ctx.fillStyle = grad;
      ctx.fillRect(x, y, r.width, r.height);
      return;
    }
    ctx.fillStyle = "#1f2937";
    ctx.font = Math.max(11, font - 2) + "px " + FAMILY;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    if (e.classList.contains("ae-scale-masked")) {
      ctx.fillStyle = COLORS.masked;
      ctx.fillRect(x, y + 2, 12, 12);
      ctx.fillStyle = "#1f2937";
      ctx.fillText("masked", x + 16, y + r.height / 2);
    } else ctx.fillText(e.textContent, x, y + r.height / 2);
  });
}
