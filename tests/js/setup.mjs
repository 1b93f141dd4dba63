// setup.mjs: what the page gives the browser code before it runs, for the modules under test in Node: the settings
// as the server makes them (fixtures/settings.json, from explorer/ui/viewer.py `settings`: tests/js/make_fixture.py),
// a window with an address, a tab's sessionStorage and a scripted fetch. Imported first by every test file, so the
// modules read these settings as on a page.
import { readFileSync } from "node:fs";

globalThis.window = globalThis;
globalThis.location = new URL("http://127.0.0.1:7860/");
globalThis.AttentionExplorerSettings = JSON.parse(readFileSync(new URL("./fixtures/settings.json", import.meta.url)));

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
    fetched.push({ url: String(url), method, headers: init.headers || {}, body: init.body, signal: init.signal });
    const make = answers[method + " " + path] || answers[path];
    if (!make) return new Response(JSON.stringify({ error: "no route " + path }), { status: 404 });
    const [status, body] = make(url, init);
    return new Response(typeof body === "string" ? body : JSON.stringify(body), { status });
  };
}
