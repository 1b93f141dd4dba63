// plot.js: what the Plotly views share: token axes, one layout, plotly.js itself (fetched the first time a view
// draws with it, not with the page: the opening view is a canvas), one Plotly.react wrapper with the PNG button in
// its toolbar, and a chart that only says something.
import { SETTINGS } from "./settings.js";
import { el, escape, fontSize, textFloor, withHeader } from "./dom.js";

export function tokenAxis(labels, title, font) {
  return {
    title: { text: title },
    tickmode: "array",
    tickvals: labels.map((_, i) => i),
    ticktext: labels.map(escape),
    tickfont: { size: font },
    showgrid: false,
    zeroline: false,
    automargin: true,
  };
}

// An axis's ticks for `texts` (at `values`) along `room` px: `size` px text (never under the chart's floor), one tick
// per size + 2 px; where the tokens are more than fit, every other one (or every k-th), the hover naming the rest.
export function tokenTicks(values, texts, room, size) {
  const font = Math.max(textFloor(), size);
  const every = Math.max(1, Math.ceil((font + 2) / (room / Math.max(1, values.length))));
  const kept = values.map((_, i) => i).filter((i) => i % every === 0);
  return { tickmode: "array", tickvals: kept.map((i) => values[i]), ticktext: kept.map((i) => texts[i]), tickfont: { size: font } };
}

export function layout(title, height, font, extra) {
  return Object.assign({
    title: { text: title, x: 0.01, xanchor: "left", font: { size: font + 1 } },
    font: { size: font },
    margin: { l: 10, r: 10, t: 34 + font, b: 10 },
    plot_bgcolor: "white",
    paper_bgcolor: "white",
    height: height,
  }, extra || {});
}

const CONFIG = {
  displaylogo: false,
  responsive: true,
  modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
  toImageButtonOptions: { format: "png", scale: 2, filename: "attention" },
};

// plotly.js (4.8 MB) once; on the exported offline page it is inlined, so window.Plotly is already there. The script
// element is the one record: a failed load removes it, so the next chart tries again.
export function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  const url = SETTINGS.ASSETS.plotly;
  let script = document.querySelector('script[data-ae-plotly]');
  if (!script) {
    script = document.createElement("script");
    script.dataset.aePlotly = "loading";
    script.src = url;
    script.addEventListener("error", () => script.remove());
    document.head.appendChild(script);
  }
  return new Promise((resolve, reject) => {
    script.addEventListener("load", () => resolve(window.Plotly));
    script.addEventListener("error", () => reject(new Error("plotly.js could not be loaded")));
  });
}

// Draw (or update in place) a chart; returns a promise (plotly.js is loaded first if it is not yet).
export function react(div, data, chartLayout) {
  return plotly().then((Plotly) => Plotly.react(div, data, chartLayout, CONFIG));
}

// A Plotly chart that only says something (no data yet).
export function drawMessage(div, text, height) {
  return react(div, [], layout("", height, fontSize(), {
    xaxis: { visible: false }, yaxis: { visible: false },
    annotations: [{ text: escape(text), showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5, font: { size: fontSize() + 2 } }],
  }));
}

// A Plotly chart as a picture for a slide: plotly's own image at scale 2, below `header`.
export function plotPng(div, header) {
  return plotly().then((Plotly) => Plotly.toImage(div, { format: "png", scale: 2 }))
    .then((url) => new Promise((resolve) => { const img = new Image(); img.onload = () => resolve(img); img.src = url; }))
    .then((img) => {
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      c.getContext("2d").drawImage(img, 0, 0);
      return withHeader(c, header, 2);
    });
}

// A view's two parts in its box, made once by the view: a block of sentences above a Plotly chart ({text, plot};
// `name` names their classes).
export function textAbovePlot(div, name) {
  const text = el("div", "ae-" + name + "-text");
  const plot = el("div", "ae-plot ae-" + name + "-plot");
  div.replaceChildren(text, plot);
  return { text: text, plot: plot };
}
