// api.js: the page's one client of the server's API (explorer/app/http_api.py and room_api.py): every call the
// viewer, its companions and the tabs make goes through `call` (the tab's client id, one reading of the answer and of
// the server's one error envelope {error}), and every stream through `events`. Promises; a refusal rejects with the
// server's message and its status. Each browser tab sends the id the server issued it (the server's fair share is per
// tab within its address's: a lecture hall shares one address). A call takes an AbortSignal where its caller can go
// away (a tab mounted again).
import { SETTINGS } from "./settings.js";
import { toBody, toQuery } from "./request.js";

// This tab's client id, issued by the server (POST /client, signed: an id the page made up would count for nothing)
// and kept for the tab's life; "" until it arrives, and the first requests go without one (counted by the address
// alone), so opening the page waits for nothing.
let issuing = null, issued = ""; // kept here too: a tab without sessionStorage asks once, not with every request
function clientId() {
  let id = issued;
  try { id = sessionStorage.getItem("ae-client-issued") || issued; } catch (e) { /* storage off: the variable */ }
  if (!id && !issuing && SETTINGS.API) {
    issuing = fetch(SETTINGS.API + "/client", { method: "POST" }).then((r) => r.json()).then((body) => {
      if (!body.client) return;
      issued = body.client;
      try { sessionStorage.setItem("ae-client-issued", body.client); } catch (e) { /* kept in the variable */ }
    }).catch(() => {}).finally(() => { issuing = null; });
  }
  return id;
}

// The server's answer as its JSON body, or a rejection with its message (`status`: the HTTP status).
function answer(response) {
  return response.json().catch(() => ({ error: "The server answered " + response.status + " without a message." }))
    .then((body) => {
      if (!response.ok || body.error) throw Object.assign(new Error(body.error || "HTTP " + response.status), { status: response.status });
      return body;
    });
}

function clientHeaders(extra) {
  const id = clientId();
  return Object.assign(id ? { [SETTINGS.CLIENT_HEADER]: id } : {}, extra || {});
}

// One call of the API: `path` under SETTINGS.API; options {method, json (sent as JSON), body and type (sent as they
// are), headers, signal}. A GET unless a body is sent.
export function call(path, options) {
  const o = options || {};
  const headers = clientHeaders(o.headers);
  let body = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers["content-type"] = "application/json";
  } else if (o.type) headers["content-type"] = o.type;
  const init = { method: o.method || (body === undefined ? "GET" : "POST"), headers: headers, body: body, signal: o.signal };
  return fetch(SETTINGS.API + path, init).then(answer);
}

// A server-sent event stream of the API (the room's, a training run's): the caller listens and closes it.
export function events(path) { return new EventSource(SETTINGS.API + path); }

const query = (params) => "?" + new URLSearchParams(params);

export const api = {
  trace: (request) => call("/trace?" + toQuery(request)),
  translate: (request) => call("/translate?" + toQuery(request)),
  ask: (request, question, ownModel) =>
    call("/ask/" + question.what, { json: { trace: toBody(request), question: question, own_model: ownModel || null } }),
  // a download link sends no header: it names the browser in its query instead
  npzUrl: (request, step) =>
    SETTINGS.API + "/npz?" + toQuery(request) + "&step=" + step + "&client=" + encodeURIComponent(clientId()),
  timelapse: (sentence) => call("/timelapse" + query({ sentence: sentence })),
  positional: (params, signal) => call("/positional/figures" + query(params), { signal: signal }),
  upload: (file, signal) => call("/uploads", { body: file, type: "text/tab-separated-values", signal: signal }),
  train: (form, signal) => call("/train", { json: form, signal: signal }),
  stopTraining: (run) => call("/train/" + encodeURIComponent(run) + "/stop", { json: {} }),
  trainingEvents: (run) => events("/train/" + encodeURIComponent(run) + "/events"),
  checkpointUrl: (run) => SETTINGS.API + "/train/" + encodeURIComponent(run) + "/checkpoint.zip",
  // the room's calls: `key`, the lecturer's secret, where the call is the lecturer's
  room: (path, body, key) => call("/room" + path, { json: body || {}, headers: key ? { "x-ae-lecturer": key } : {} }),
  roomQrUrl: (code, url) => SETTINGS.API + "/room/" + encodeURIComponent(code) + "/qr.svg" + query({ u: url }),
  roomEvents: (code, key) =>
    events("/room/" + encodeURIComponent(code) + "/events" + (key ? "?key=" + encodeURIComponent(key) : "")),
};
