// headview.js: the head view lecturers know from BertViz, inside the step-through. Query tokens on the
// left, key tokens on the right, one line per (query, key) pair whose opacity is the weight, each head of
// the chosen layer in its own colour (toggle heads with the chips above); hovering a token keeps only its
// lines. Decoder kinds follow the current step (its query row is drawn last, on top). Canvas, from the trace.
(function (AE) {
  "use strict";

  const el = AE.el;
  // Okabe-Ito: told apart by colour-blind eyes too; more heads than colours reuse them
  const HEAD_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#000000"];
  AE.headColor = (h) => HEAD_COLORS[h % HEAD_COLORS.length];
  const FAMILY = 'system-ui, "Source Sans Pro", sans-serif';

  function parts(div, viewer) {
    if (!div._hv) {
      const chips = el("div", "ae-hv-chips");
      const canvas = document.createElement("canvas");
      canvas.setAttribute("role", "img");
      div.replaceChildren(chips, canvas);
      div._hv = { chips: chips, canvas: canvas, focus: null, geom: null, viewer: viewer };
      canvas.addEventListener("mousemove", (e) => {
        const g = div._hv.geom;
        if (!g) return;
        const box = canvas.getBoundingClientRect();
        const x = e.clientX - box.left, y = e.clientY - box.top;
        const side = x < g.width / 2 ? "query" : "key";
        const n = Math.floor((y - g.top) / g.rowH);
        const count = side === "query" ? g.queries.length : g.keys.length;
        const focus = n >= 0 && n < count ? { side: side, index: n } : null;
        if (JSON.stringify(focus) !== JSON.stringify(div._hv.focus)) {
          div._hv.focus = focus;
          viewer.render();
        }
      });
      canvas.addEventListener("mouseleave", () => { div._hv.focus = null; viewer.render(); });
    }
    return div._hv;
  }

  // Draw the head view of kind/layer at step t; `on` is the set of heads shown. Returns a resolved promise.
  AE.drawHeadView = function (div, viewer, trace, kind, layer, t, on) {
    const hv = parts(div, viewer);
    const font = AE.fontSize();
    const [queries, keys] = trace.labels(kind, t);
    hv.chips.replaceChildren(el("span", "ae-row-label", "Heads"), ...[...Array(trace.H).keys()].map((h) => {
      const chip = el("button", "ae-btn ae-hv-chip" + (on.has(h) ? " ae-on" : ""), "head " + h);
      chip.type = "button";
      chip.style.borderColor = AE.headColor(h);
      chip.style.background = on.has(h) ? AE.headColor(h) : "white";
      chip.style.color = on.has(h) && h % HEAD_COLORS.length !== 6 ? "white" : "#1f2937";
      chip.dataset.head = h;
      chip.title = "show or hide head " + h + "'s lines";
      chip.addEventListener("click", () => { if (on.has(h)) on.delete(h); else on.add(h); viewer.render(); });
      return chip;
    }));
    const rowH = Math.max(font + 8, 22);
    const top = font + 16;
    const height = top + Math.max(queries.length, keys.length, 1) * rowH + 8;
    const width = Math.max(320, div.clientWidth || 600);
    const canvas = hv.canvas;
    const ctx = AE.sizeCanvas(canvas, width, height);
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, width, height);
    const leftX = width * 0.32, rightX = width * 0.68;
    const yOf = (n) => top + (n + 0.5) * rowH;
    ctx.font = "600 " + (font - 1) + "px " + FAMILY;
    ctx.fillStyle = "#475569";
    ctx.textAlign = "right";
    ctx.fillText(AE.AXIS_TITLES[kind][0].replace(" (query)", ""), leftX - 8, font);
    ctx.textAlign = "left";
    ctx.fillText(AE.AXIS_TITLES[kind][1].replace(" (key)", ""), rightX + 8, font);
    const focus = hv.focus;
    const lines = [];
    const rows = [...Array(trace.H).keys()].filter((h) => on.has(h)).map((h) => [h, trace.weights(kind, layer, h, t)]);
    ctx.lineWidth = 2;
    for (const [h, weights] of rows) {
      ctx.strokeStyle = AE.headColor(h);
      weights.forEach((row, i) => row.forEach((w, j) => {
        if (w === null || w < 0.01) return; // masked future, or too faint to see
        if (focus && !((focus.side === "query" && focus.index === i) || (focus.side === "key" && focus.index === j))) return;
        ctx.globalAlpha = Math.min(1, w);
        ctx.beginPath();
        ctx.moveTo(leftX + 4, yOf(i));
        ctx.lineTo(rightX - 4, yOf(j));
        ctx.stroke();
        lines.push([h, i, j, w]);
      }));
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
    hv.geom = { width: width, top: top, rowH: rowH, queries: queries, keys: keys };
    hv.lines = lines; // read by the browser tests
    canvas.setAttribute("aria-label", AE.KIND_TITLES[kind] + " · layer " + layer + " · head view · heads " +
      [...on].sort((p, q) => p - q).join(", ") + (kind === "encoder_self" ? "" : " · step " + t) + ". Lines from queries (left) to keys (right).");
    return Promise.resolve();
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
