// plot.js: what every chart shares: token escaping, the fixed colours, the font size (larger in
// presentation mode) and one Plotly.react wrapper with the PNG export button in the toolbar.
(function (AE) {
  "use strict";

  AE.COLORS = {
    scale: "Viridis", // one fixed 0..1 colour-blind-safe scale for every weight
    masked: "#d0d0d0", // the masked future: grey, never a small weight
    chosen: "#D55E00", // Okabe-Ito vermillion: the chosen token, the current row, the best head
    other: "#0072B2", // Okabe-Ito blue
    forced: "#CC79A7",
    produced: "#56B4E9",
    start: "#999999",
  };

  // Plotly renders a subset of HTML in text: escape tokens so "<s>" or typed markup show as text.
  AE.escape = function (text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  };

  AE.presenting = function () { return document.body.classList.contains("presentation"); };
  AE.fontSize = function () { return AE.presenting() ? 20 : 13; };

  AE.tokenAxis = function (labels, title, font) {
    return {
      title: { text: title },
      tickmode: "array",
      tickvals: labels.map((_, i) => i),
      ticktext: labels.map(AE.escape),
      tickfont: { size: font },
      showgrid: false,
      zeroline: false,
      automargin: true,
    };
  };

  AE.layout = function (title, height, font, extra) {
    return Object.assign({
      title: { text: title, x: 0.01, xanchor: "left", font: { size: font + 1 } },
      font: { size: font },
      margin: { l: 10, r: 10, t: 34 + font, b: 10 },
      plot_bgcolor: "white",
      paper_bgcolor: "white",
      height: height,
    }, extra || {});
  };

  const CONFIG = {
    displaylogo: false,
    responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
    toImageButtonOptions: { format: "png", scale: 2, filename: "attention" },
  };

  // Draw (or update in place) a chart; returns Plotly's promise.
  AE.draw = function (div, data, layout) {
    return window.Plotly.react(div, data, layout, CONFIG);
  };

  // A grey layer where cells are masked (null in z), hover "masked".
  AE.maskedLayer = function (z, xaxis, yaxis) {
    const grey = z.map((row) => row.map((v) => (v === null ? 1 : null)));
    return {
      type: "heatmap", z: grey, colorscale: [[0, AE.COLORS.masked], [1, AE.COLORS.masked]], showscale: false,
      hovertemplate: "masked: weight exactly 0<extra></extra>", name: "masked", xaxis: xaxis, yaxis: yaxis,
    };
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
