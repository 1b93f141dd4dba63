// settings.js: what the server tells the browser code before it runs (explorer/ui/viewer.py `settings`): where to
// ask (API, CLIENT_HEADER), where the bundle, stylesheet and plotly.js are (ASSETS), the trace request's fields with
// their defaults (REQUEST, read by request.js) and the limits of its numbers (LIMITS), the models served to everyone
// (MODELS, the default first), the recorded time-lapse (TIMELAPSE) and the font sizes (FONT). Read once; never
// written.
const given = globalThis.AttentionExplorerSettings || {}; // window.AttentionExplorerSettings on the page

// The exported offline page is given only ASSETS, FONT and REQUEST: it has no server, no form and no time-lapse.
export const SETTINGS = Object.freeze(Object.assign({ REQUEST: {}, LIMITS: {}, MODELS: [], TIMELAPSE: { sentences: [], steps: [] } }, given));

// The key of the model a request without `model=` gets ("shipped" names it too), and whether a key is one of the
// models served to everyone (not one trained in this browser session).
export const DEFAULT_MODEL = SETTINGS.MODELS.length ? SETTINGS.MODELS[0].key : "shipped";
export function isShipped(key) {
  return !key || key === "shipped" || SETTINGS.MODELS.some((m) => m.key === key);
}
