// positional.js: the Positional encoding tab's three charts of the model's own table (heatmap, waves, similarity):
// the tab's form asks GET /ae/api/positional/figures, and the figures the server made from the table are drawn here.
import { SETTINGS, DEFAULT_MODEL } from "./settings.js";
import { clientHeaders } from "./api.js";
import { el } from "./dom.js";
import { react } from "./plot.js";

const CHARTS = ["heatmap", "waves", "similarity"];
let parts = null;

// Build the charts' places in `element` (the gr.HTML's js_on_load).
export function mount(element) {
  const said = el("div", "ae-pe-said");
  said.id = "pe-said";
  said.setAttribute("role", "status");
  const charts = CHARTS.map((name) => { const div = el("div", "ae-plot ae-pe-" + name); div.id = "pe-" + name; return div; });
  const row = el("div", "ae-pe-row");
  row.append(charts[1], charts[2]);
  element.replaceChildren(said, charts[0], row);
  parts = { said, charts };
}

// The Show button and the tab's opening (values: positions, dims, waves, presentation; the page's model).
export function showPositional(values) {
  const [positions, dims, waves, presentation] = values;
  const viewer = window.aeViewer;
  const model = (viewer && viewer.trace && viewer.trace.modelKey) || DEFAULT_MODEL;
  const query = new URLSearchParams({ positions, dims, waves, presentation: !!presentation, model });
  parts.said.textContent = "";
  return fetch(SETTINGS.API + "/positional/figures?" + query, { headers: clientHeaders() })
    .then((response) => response.json().then((answer) => {
      if (!response.ok || answer.error) throw new Error(answer.error || "HTTP " + response.status);
      return Promise.all(CHARTS.map((name, i) => react(parts.charts[i], answer[name].data, answer[name].layout)));
    }))
    .catch((error) => { parts.said.textContent = error.message; });
}
