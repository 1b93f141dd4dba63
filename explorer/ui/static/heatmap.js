// heatmap.js: one attention heatmap at the current step: a head, the mean of heads, or every head of
// a layer side by side. Rows are queries, columns keys, both labelled with tokens; cross-attention
// rows are target tokens and columns source tokens; the current step's row is outlined.
(function (AE) {
  "use strict";

  function weightTrace(z, queries, keys, xaxis, yaxis, showscale) {
    return {
      type: "heatmap", z: z, zmin: 0, zmax: 1, colorscale: AE.COLORS.scale, showscale: showscale,
      customdata: z.map((row, i) => row.map((_, j) => [AE.escape(queries[i]), AE.escape(keys[j])])),
      hovertemplate: "query: %{customdata[0]}<br>key: %{customdata[1]}<br>weight %{z:.4f}<extra></extra>",
      colorbar: { title: { text: "weight" }, thickness: 12 }, name: "weights", xaxis: xaxis, yaxis: yaxis,
    };
  }

  // Draw kind/layer/head at step t into div; head is a number, "mean" or "all".
  AE.drawHeatmap = function (div, trace, kind, layer, head, t, height) {
    const font = AE.fontSize();
    const [queries, keys] = trace.labels(kind, t);
    if (queries.length === 0) return AE.drawMessage(div, "No target token yet: press → (Next) to produce the first one.", height);
    const heads = head === "all" ? [...Array(trace.H).keys()] : [head];
    const data = [];
    const layout = AE.layout(title(kind, layer, head, t), height, font);
    const [ytitle, xtitle] = AE.AXIS_TITLES[kind];
    const gap = 0.03;
    heads.forEach((h, n) => {
      const z = trace.weights(kind, layer, h, t);
      const suffix = n === 0 ? "" : String(n + 1);
      const xaxis = "x" + suffix, yaxis = "y" + suffix;
      if (kind === "decoder_self") data.push(AE.maskedLayer(z, xaxis, yaxis));
      data.push(weightTrace(z, queries, keys, xaxis, yaxis, n === 0));
      const width = (1 - gap * (heads.length - 1)) / heads.length;
      const x = AE.tokenAxis(keys, heads.length > 1 ? "head " + h : xtitle, heads.length > 1 ? font - 3 : font);
      x.domain = [n * (width + gap), n * (width + gap) + width];
      x.tickangle = keys.length > 8 || heads.length > 1 ? -60 : 0;
      x.anchor = yaxis;
      const y = AE.tokenAxis(queries, n === 0 ? ytitle : "", font);
      y.autorange = "reversed";
      y.anchor = xaxis;
      if (n > 0) y.showticklabels = false;
      layout["xaxis" + suffix] = x;
      layout["yaxis" + suffix] = y;
    });
    if (kind !== "encoder_self") {
      layout.shapes = heads.map((_, n) => ({
        type: "rect", xref: "x" + (n ? n + 1 : ""), yref: "y" + (n ? n + 1 : ""),
        x0: -0.5, x1: keys.length - 0.5, y0: t - 1.5, y1: t - 0.5, line: { color: AE.COLORS.chosen, width: 3 },
      }));
    }
    return AE.draw(div, data, layout);
  };

  function title(kind, layer, head, t) {
    const which = head === "mean" ? "mean of heads" : head === "all" ? "all heads" : "head " + head;
    const step = kind === "encoder_self" ? "" : " · step " + t;
    return AE.KIND_TITLES[kind] + " · layer " + layer + " · " + which + step;
  }

  AE.drawMessage = function (div, text, height) {
    return AE.draw(div, [], AE.layout("", height, AE.fontSize(), {
      xaxis: { visible: false }, yaxis: { visible: false },
      annotations: [{ text: AE.escape(text), showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5, font: { size: AE.fontSize() + 2 } }],
    }));
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
