// plot.js: what every chart shares: token escaping, building elements (AE.el), the fixed colours, the font size (AE.FONT from the
// server, larger in presentation mode), one Plotly.react wrapper with the PNG export button in the toolbar, and a
// chart that only says something.
(function (AE) {
  "use strict";

  AE.COLORS = {
    // one fixed 0..1 colour-blind-safe scale for every weight: Viridis, with Plotly's stops (the canvas heatmap
    // interpolates them the same way)
    scale: [
      [0, "#440154"], [0.0627, "#48186a"], [0.1255, "#472d7b"], [0.1882, "#424086"], [0.251, "#3b528b"], [0.3137, "#33638d"],
      [0.3765, "#2c728e"], [0.4392, "#26828e"], [0.502, "#21918c"], [0.5647, "#1fa088"], [0.6275, "#28ae80"], [0.6902, "#3fbc73"],
      [0.7529, "#5ec962"], [0.8157, "#84d44b"], [0.8784, "#addc30"], [0.9412, "#d8e219"], [1, "#fde725"],
    ],
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

  // An element with a class and text (always text, never markup: tokens may hold anything).
  AE.el = function (tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // A signed value as a colour over white: vermillion positive, blue negative, opacity |value| / peak.
  AE.signedFill = function (value, peak) {
    const a = Math.min(1, Math.abs(value) / (peak || 1));
    return (value >= 0 ? "rgba(213, 94, 0, " : "rgba(0, 114, 178, ") + a.toFixed(3) + ")";
  };

  // A canvas of width x height CSS pixels, sharp on high-DPI screens; returns its context in CSS pixels.
  AE.sizeCanvas = function (canvas, width, height) {
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = width + "px";
      canvas.style.height = height + "px";
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  };

  AE.presenting = function () { return document.body.classList.contains("presentation"); };
  AE.fontSize = function () { return AE.presenting() ? AE.FONT.presentation : AE.FONT.normal; }; // explorer/ui/viewer.py

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

  // plotly.js (4.8 MB) is fetched the first time a view draws with it, not with the page: the opening view is a
  // canvas. On the exported offline page it is inlined, so window.Plotly is already there.
  let loading = null;
  AE.plotly = function () {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = AE.ASSETS.plotly;
        script.onload = () => resolve(window.Plotly);
        script.onerror = () => { loading = null; reject(new Error("plotly.js could not be loaded")); };
        document.head.appendChild(script);
      });
    }
    return loading;
  };

  // Draw (or update in place) a chart; returns a promise (plotly.js is loaded first if it is not yet).
  AE.draw = function (div, data, layout) {
    return AE.plotly().then((Plotly) => Plotly.react(div, data, layout, CONFIG));
  };

  // A grey layer where cells are masked (null in z), hover "masked".
  AE.maskedLayer = function (z, xaxis, yaxis) {
    const grey = z.map((row) => row.map((v) => (v === null ? 1 : null)));
    return {
      type: "heatmap", z: grey, colorscale: [[0, AE.COLORS.masked], [1, AE.COLORS.masked]], showscale: false,
      hovertemplate: "masked: weight exactly 0<extra></extra>", name: "masked", xaxis: xaxis, yaxis: yaxis,
    };
  };

  // A Plotly chart that only says something (no data yet); used by the other views.
  AE.drawMessage = function (div, text, height) {
    return AE.draw(div, [], AE.layout("", height, AE.fontSize(), {
      xaxis: { visible: false }, yaxis: { visible: false },
      annotations: [{ text: AE.escape(text), showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5, font: { size: AE.fontSize() + 2 } }],
    }));
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
