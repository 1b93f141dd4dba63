// positional.js: the Positional encoding tab's three charts of the model's own table (heatmap, waves, similarity):
// the tab's form asks GET /ae/api/positional/figures for the model on screen, and the figures the server made from the
// table are drawn here. A newer Show ends the one still on its way.
import { DEFAULT_MODEL } from "./settings.js";
import { api } from "./api.js";
import { el } from "./dom.js";
import { react } from "./plot.js";

const CHARTS = ["heatmap", "waves", "similarity"];

class Positional {
  // Build the charts' places in `element` (tabs.js: the context).
  constructor(element, context) {
    this.viewer = context.viewer;
    this.signal = context.signal;
    this.said = el("div", "ae-pe-said");
    this.said.id = "pe-said";
    this.said.setAttribute("role", "status");
    this.charts = CHARTS.map((name) => { const div = el("div", "ae-plot ae-pe-" + name); div.id = "pe-" + name; return div; });
    const row = el("div", "ae-pe-row");
    row.append(this.charts[1], this.charts[2]);
    element.replaceChildren(this.said, this.charts[0], row);
    this.showing = null; // the AbortController of the Show on its way
  }

  // The Show button and the tab's opening ({positions, dims, waves, presentation}): the figures of the model on screen.
  show(values) {
    if (this.showing) this.showing.abort();
    this.showing = new AbortController();
    const signal = AbortSignal.any([this.signal, this.showing.signal]);
    const trace = this.viewer.trace;
    const model = (trace && trace.modelKey) || DEFAULT_MODEL;
    const params = { positions: values.positions, dims: values.dims, waves: values.waves, presentation: !!values.presentation, model: model };
    this.said.textContent = "";
    return api.positional(params, signal)
      .then((answer) => Promise.all(CHARTS.map((name, i) => react(this.charts[i], answer[name].data, answer[name].layout))))
      .catch((error) => { if (!signal.aborted) this.said.textContent = error.message; });
  }
}

export const TAB = { id: "positional", create: (element, context) => new Positional(element, context) };
