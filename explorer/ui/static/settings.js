// settings.js: what the server tells the browser code before it runs (explorer/ui/viewer.py `settings`): where to
// ask (API, CLIENT_HEADER), where the bundle, stylesheet and plotly.js are (ASSETS), the Translate form's fields
// (FORM), the limits, the recorded time-lapse (TIMELAPSE) and the font sizes (FONT). Read once; never written.
const given = window.AttentionExplorer || {};

// The exported offline page is given only ASSETS and FONT: it has no server, no form and no time-lapse.
export const SETTINGS = Object.freeze(Object.assign({ FORM: [], LIMITS: {}, TIMELAPSE: { sentences: [], steps: [] } }, given));
