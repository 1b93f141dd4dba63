// topk.js: the next-token candidates of the current step as horizontal bars, the chosen token in
// vermillion. Clicking a bar forces that candidate at this step (one request: the forced prefix grows).
(function (AE) {
  "use strict";

  AE.drawTopk = function (div, trace, t, height) {
    const font = AE.fontSize();
    if (t === 0) return AE.drawMessage(div, "The candidates appear after the first step.", height);
    const step = trace.steps[t - 1];
    const labels = step.top.map((c, i) => AE.escape(c.token) + "  [" + (i + 1) + "]"); // unique even if two print alike
    const data = [{
      type: "bar", orientation: "h", x: step.top.map((c) => c.prob), y: labels,
      marker: { color: step.top.map((c) => (c.id === step.id ? AE.COLORS.chosen : AE.COLORS.other)) },
      text: step.top.map((c) => (100 * c.prob).toFixed(1) + "%"), textposition: "outside", cliponaxis: false,
      hovertemplate: "%{y}: p = %{x:.4f}<br>click to force this token<extra></extra>",
    }];
    const layout = AE.layout("Next-token distribution at step " + t + " (click a bar to force it)", height, font, {
      xaxis: { range: [0, 1.18], title: { text: "probability" }, tickformat: ".0%" },
      yaxis: { autorange: "reversed", tickfont: { size: font }, automargin: true },
      margin: { l: 10, r: 10, t: 30 + font, b: 40 },
      hovermode: "y", // hover and click anywhere along a candidate's row, even where its bar is thin
      hoverdistance: -1,
    });
    return AE.draw(div, data, layout);
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
