// api.js: the viewer's client of the server's API (explorer/app/http_api.py): the trace of a request (request.js: its
// model among its fields), its translation, a question about it, the URL of its .npz. Promises; a refusal rejects
// with the server's message (answers.js asks the questions). Each browser tab sends the id the server issued it (the
// server's fair share is per tab within its address's: a lecture hall shares one address).
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

function answer(response) {
  return response.json().catch(() => ({ error: "The server answered " + response.status + " without a message." }))
    .then((body) => {
      if (!response.ok || body.error) throw Object.assign(new Error(body.error || "HTTP " + response.status), { status: response.status });
      return body;
    });
}

export function clientHeaders(extra) {
  const id = clientId();
  return Object.assign(id ? { [SETTINGS.CLIENT_HEADER]: id } : {}, extra || {});
}

export const api = {
  trace: (request) => fetch(SETTINGS.API + "/trace?" + toQuery(request), { headers: clientHeaders() }).then(answer),
  translate: (request) => fetch(SETTINGS.API + "/translate?" + toQuery(request), { headers: clientHeaders() }).then(answer),
  ask: (request, question, ownModel) =>
    fetch(SETTINGS.API + "/ask/" + question.what, {
      method: "POST",
      headers: clientHeaders({ "content-type": "application/json" }),
      body: JSON.stringify({ trace: toBody(request), question: question, own_model: ownModel || null }),
    }).then(answer),
  // a download link sends no header: it names the browser in its query instead
  npzUrl: (request, step) =>
    SETTINGS.API + "/npz?" + toQuery(request) + "&step=" + step + "&client=" + encodeURIComponent(clientId()),
  timelapse: (sentence) =>
    fetch(SETTINGS.API + "/timelapse?sentence=" + encodeURIComponent(sentence), { headers: clientHeaders() }).then(answer),
}
