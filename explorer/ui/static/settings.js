// settings.js: what the server tells the browser code before it runs (explorer/ui/viewer.py `settings`): where to
// ask (API, CLIENT_HEADER), where the bundle, stylesheet and plotly.js are (ASSETS), the Translate form's fields
// (FORM), the limits, the models served to everyone (MODELS, the default first), the recorded time-lapse (TIMELAPSE) and
// the font sizes (FONT). Read once; never written.
const given = globalThis.AttentionExplorer || {}; // window.AttentionExplorer on the page

// The exported offline page is given only ASSETS and FONT: it has no server, no form and no time-lapse.
export const SETTINGS = Object.freeze(Object.assign({ FORM: [], LIMITS: {}, MODELS: [], TIMELAPSE: { sentences: [], steps: [] } }, given));

// The key of the model a request without `model=` gets ("shipped" names it too), and whether a key is one of the
// models served to everyone (not one trained in this browser session).
export const DEFAULT_MODEL = SETTINGS.MODELS.length ? SETTINGS.MODELS[0].key : "shipped";
export function isShipped(key) {
  return !key || key === "shipped" || SETTINGS.MODELS.some((m) => m.key === key);
}
