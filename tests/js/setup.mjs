// setup.mjs: what the page's head gives the browser code before it runs (explorer/ui/viewer.py `settings`), for the
// modules under test in Node: imported first by every test file, so the modules read these settings as on a page.
globalThis.window = globalThis;
globalThis.location = new URL("http://127.0.0.1:7860/");
globalThis.AttentionExplorer = {
  API: "/ae/api",
  CLIENT_HEADER: "x-ae-client",
  ASSETS: { bundle: "/ae/static/viewer.js", css: "/ae/static/viewer.css", plotly: "/ae/vendor/plotly.min.js" },
  FORM: ["sentence", "strategy", "temperature", "top_k", "seed", "beam_size", "alpha", "prefix", "model", "use_own"],
  LIMITS: { temperature: [0.05, 5], top_k: [0, 50], seed: [0, 2147483647], beam_size: [1, 8], alpha: [0, 2] },
  MODELS: [{ key: "lecture-en-de", name: "Lecture en-de" }, { key: "tatoeba-en-de", name: "Tatoeba en-de" }],
  TIMELAPSE: { sentences: [], steps: [] },
  FONT: { normal: 13, presentation: 20 },
};

// A sessionStorage of one tab (Node has none).
const kept = new Map();
globalThis.sessionStorage = {
  getItem: (key) => (kept.has(key) ? kept.get(key) : null),
  setItem: (key, value) => kept.set(key, String(value)),
  removeItem: (key) => kept.delete(key),
  clear: () => kept.clear(),
};

// fetch as a script of answers: `answers` maps a URL's path (and method) to a function of the request, and every
// call is recorded in `fetched`.
export const fetched = [];
export function answerWith(answers) {
  fetched.length = 0;
  globalThis.fetch = async (url, init = {}) => {
    const method = init.method || "GET";
    const path = String(url).split("?")[0];
    fetched.push({ url: String(url), method, headers: init.headers || {}, body: init.body });
    const make = answers[method + " " + path] || answers[path];
    if (!make) return new Response(JSON.stringify({ error: "no route " + path }), { status: 404 });
    const [status, body] = make(url, init);
    return new Response(typeof body === "string" ? body : JSON.stringify(body), { status });
  };
}
