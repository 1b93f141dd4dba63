// request.js: the trace request, the one place the browser writes it. Its fields and their defaults are the server's
// (SETTINGS.REQUEST, from TraceRequest in explorer/interpret/request.py, in its order), so no other module names a
// decoding option: the query of /ae/api/trace and of a deep link, the JSON of a question's `trace` and of the room's
// view, and the Translate form filled from a link all come from here. A request is a plain object of those fields,
// its model among them (a key: "shipped" is the default model). In a query a list is one parameter per item
// (forced_ids=5&forced_ids=9, ablation=cross.2.1), and a value equal to its default is left out, so equal decodes
// have equal queries (the server echoes each trace's request normalised: the options its strategy ignores at their
// defaults).
import { DEFAULT_MODEL, SETTINGS, isShipped } from "./settings.js";

export const FIELDS = SETTINGS.REQUEST || {}; // name -> default
const OLD_LISTS = { forced_ids: "forced", ablation: "ablate" }; // links made before the API's names: forced=5,9

const isList = (name) => Array.isArray(FIELDS[name]);
const isNumber = (name) => typeof FIELDS[name] === "number";

// A whole request from some of its fields (`values`: a trace's echo, a form, a link's); the others take their
// defaults, and a missing model is the default one.
export function traceRequest(values) {
  const out = {};
  for (const [name, byDefault] of Object.entries(FIELDS)) {
    const value = values[name];
    out[name] = value === undefined || value === null ? (isList(name) ? [] : byDefault) : value;
  }
  return out;
}

// The query string of a request: /ae/api/trace's, a link's. The default model is named by no parameter.
export function toQuery(request) {
  const p = new URLSearchParams();
  for (const [name, byDefault] of Object.entries(FIELDS)) {
    const value = request[name];
    if (value === undefined || value === null || value === "") continue;
    if (isList(name)) for (const item of value) p.append(name, Array.isArray(item) ? item.join(".") : item);
    else if (name === "model") { if (value !== "shipped" && value !== DEFAULT_MODEL) p.set(name, value); }
    else if (String(value) !== String(byDefault)) p.set(name, value);
  }
  return p;
}

// The request as a JSON body's `trace` (a question's, the room's view).
export function toBody(request) {
  return traceRequest(request);
}

// Two requests that name the same decode.
export function sameDecode(a, b) {
  return toQuery(a).toString() === toQuery(b).toString();
}

// The request a link's query names (`sentence=`, or an older link's `s=`, forced=5,9 and ablate=cross.2.1,...);
// the server validates it, this only reads the lists.
export function fromQuery(p) {
  const values = { sentence: p.get("sentence") || p.get("s") || "" };
  for (const name of Object.keys(FIELDS)) {
    if (isList(name)) {
      const items = p.getAll(name).concat((p.get(OLD_LISTS[name]) || "").split(",")).filter((x) => x.trim() !== "");
      values[name] = items.map((item) => (item.includes(".") ? item.split(".").map((x, i) => (i ? Number(x) : x)) : Number(item)));
    } else if (name !== "sentence" && p.has(name)) values[name] = p.get(name);
  }
  return traceRequest(values);
}

// The Translate form's values by name as a link fills them (numbers as numbers; the model one served to everyone,
// else the default; "Explore my trained model" off); without a link, the values as they are.
export function formFromLink(form, p) {
  if (!(p.get("sentence") || p.get("s"))) return form;
  const request = fromQuery(p);
  const out = Object.assign({}, form);
  for (const name of Object.keys(form)) {
    if (name === "model") out.model = request.model && isShipped(request.model) && request.model !== "shipped" ? request.model : DEFAULT_MODEL;
    else if (name === "use_own") out.use_own = false;
    else if (name === "sentence") out.sentence = request.sentence;
    else if (name in FIELDS && !isList(name) && p.has(name)) {
      const value = isNumber(name) ? Number(request[name]) : request[name];
      out[name] = isNumber(name) && !Number.isFinite(value) ? form[name] : value;
    }
  }
  return out;
}

// A request from the Translate form's values by name (`form`: Gradio's values; `model`: the model chosen).
export function fromForm(form, model, ablation) {
  const values = { model: model, ablation: ablation || [], forced_ids: [] };
  for (const name of Object.keys(FIELDS)) if (name in form && !(name in values)) values[name] = form[name];
  return traceRequest(values);
}
