"use strict";
(() => {
  // settings.js
  var given = globalThis.AttentionExplorerSettings || {};
  var SETTINGS = Object.freeze(Object.assign({ REQUEST: {}, LIMITS: {}, MODELS: [], TIMELAPSE: { sentences: [], steps: [] } }, given));
  var DEFAULT_MODEL = SETTINGS.MODELS.length ? SETTINGS.MODELS[0].key : "shipped";
  function isShipped(key) {
    return !key || key === "shipped" || SETTINGS.MODELS.some((m) => m.key === key);
  }

  // request.js
  var FIELDS = SETTINGS.REQUEST || {};
  var OLD_LISTS = { forced_ids: "forced", ablation: "ablate" };
  var isList = (name) => Array.isArray(FIELDS[name]);
  var isNumber = (name) => typeof FIELDS[name] === "number";
  function traceRequest(values) {
    const out = {};
    for (const [name, byDefault] of Object.entries(FIELDS)) {
      const value = values[name];
      out[name] = value === void 0 || value === null ? isList(name) ? [] : byDefault : value;
    }
    return out;
  }
  function toQuery(request) {
    const p = new URLSearchParams();
    for (const [name, byDefault] of Object.entries(FIELDS)) {
      const value = request[name];
      if (value === void 0 || value === null || value === "") continue;
      if (isList(name)) for (const item of value) p.append(name, Array.isArray(item) ? item.join(".") : item);
      else if (name === "model") {
        if (value !== "shipped" && value !== DEFAULT_MODEL) p.set(name, value);
      } else if (String(value) !== String(byDefault)) p.set(name, value);
    }
    return p;
  }
  function toBody(request) {
    return traceRequest(request);
  }
  function sameDecode(a, b) {
    return toQuery(a).toString() === toQuery(b).toString();
  }
  function fromQuery(p) {
    const values = { sentence: p.get("sentence") || p.get("s") || "" };
    for (const name of Object.keys(FIELDS)) {
      if (isList(name)) {
        const items = p.getAll(name).concat((p.get(OLD_LISTS[name]) || "").split(",")).filter((x) => x.trim() !== "");
        values[name] = items.map((item) => item.includes(".") ? item.split(".").map((x, i) => i ? Number(x) : x) : Number(item));
      } else if (name !== "sentence" && p.has(name)) values[name] = p.get(name);
    }
    return traceRequest(values);
  }
  function formFromLink(form, p) {
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
  function fromForm(form, model, ablation) {
    const values = { model, ablation: ablation || [], forced_ids: [] };
    for (const name of Object.keys(FIELDS)) if (name in form && !(name in values)) values[name] = form[name];
    return traceRequest(values);
  }

  // link.js
  var DEFAULT_VIEW = "heatmap";
  function linkParams(request, state) {
    const p = toQuery(request);
    p.set("step", state.step);
    p.set("kind", state.kind);
    p.set("layer", state.layer);
    p.set("head", state.head);
    if (state.view !== DEFAULT_VIEW) p.set("view", state.view);
    if (state.lesson) p.set("lesson", state.lesson);
    return p;
  }
  function linkUrl(request, state) {
    const base = window.location.href.split("?")[0].split("#")[0];
    return base + "?" + linkParams(request, state).toString();
  }
  function linkSentence(p) {
    return p.get("sentence") || p.get("s") || "";
  }
  function requestOfLink() {
    return fromQuery(new URLSearchParams(window.location.search));
  }
  function readLink() {
    const p = new URLSearchParams(window.location.search);
    if (!linkSentence(p) && !p.has("step")) return null;
    const view = {}, unread = [];
    for (const name of ["step", "layer", "lesson"]) {
      if (!p.has(name)) continue;
      if (/^\d+$/.test(p.get(name))) view[name] = Number(p.get(name));
      else unread.push(name + "=" + p.get(name).slice(0, 40));
    }
    if (p.has("head")) view.head = /^\d+$/.test(p.get("head")) ? Number(p.get("head")) : p.get("head");
    if (p.has("kind")) view.kind = p.get("kind");
    if (p.has("view")) view.view = p.get("view");
    else if (p.has("step")) view.view = DEFAULT_VIEW;
    if (!p.has("lesson") && p.has("step")) view.lesson = null;
    return { sentence: linkSentence(p) || null, view, unread };
  }
  function placeUrl(request, state) {
    const url = new URL(linkUrl(request, state));
    const room = new URLSearchParams(window.location.search).get("room");
    if (room) url.searchParams.set("room", room);
    return url.toString();
  }

  // trace.js
  function headName(layer, head) {
    return "L" + layer + "·H" + head;
  }
  var KINDS = ["encoder_self", "decoder_self", "cross"];
  var KIND_TITLES = {
    encoder_self: "Encoder self-attention",
    decoder_self: "Decoder masked self-attention",
    cross: "Cross-attention (encoder-decoder)"
  };
  var AXIS_TITLES = {
    encoder_self: ["source token (query)", "source token (key)"],
    decoder_self: ["decoder input → token it produces (query)", "decoder input so far (key)"],
    cross: ["decoder input → token it produces (query)", "source token (key)"]
  };
  var ARROW = " → ";
  function unpack(array) {
    const bin = atob(array.data);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const ints = array.dtype === "<u2" ? new Uint16Array(bytes.buffer) : new Int16Array(bytes.buffer);
    const values = new Float32Array(ints.length);
    for (let i = 0; i < ints.length; i++) values[i] = ints[i] * array.scale;
    return { shape: array.shape, values };
  }
  var Trace = class {
    constructor(wire) {
      this.wire = wire;
      this.request = wire.request;
      this.model = wire.model;
      this.modelKey = wire.model_key || "shipped";
      this.sourceTokens = wire.source_tokens;
      this.targetTokens = wire.target_tokens;
      this.decoderInputTokens = wire.decoder_input_tokens;
      this.steps = wire.steps;
      this.T = wire.steps.length;
      this.S = wire.source_tokens.length;
      this.H = wire.model.n_heads;
      this.attention = {};
      for (const kind of KINDS) this.attention[kind] = unpack(wire.attention[kind]);
      this.scores = { decoder_self: unpack(wire.scores.decoder_self) };
      this.rollout = { encoder_self: unpack(wire.rollout.encoder_self), cross: unpack(wire.rollout.cross) };
      this.gold = wire.gold || null;
      const pair = wire.model.languages || {};
      this.sourceLanguage = pair.source_name || "English";
      this.targetLanguage = pair.target_name || "German";
    }
    // "English → German"
    get languages() {
      return this.sourceLanguage + ARROW + this.targetLanguage;
    }
    // The gold links shown at step t as [row, column] cells of the cross-attention map ([] when the trace did not
    // write the gold translation), and the AER of a head ("mean": the layer's mean of heads; null for the rollout).
    goldCells(t) {
      return this.gold && this.gold.matches ? this.gold.cells.filter(([i]) => i < t) : [];
    }
    goldAer(layer, head) {
      if (!this.gold || !this.gold.matches) return null;
      if (head === "mean") return this.gold.aer_mean[layer];
      return typeof head === "number" ? this.gold.aer[layer][head] : null;
    }
    // The head with the lowest AER on this sentence (the first of equals): {layer, head, aer}, or null.
    goldBest() {
      if (!this.gold || !this.gold.matches) return null;
      let best = null;
      this.gold.aer.forEach((row, layer) => row.forEach((aer, head) => {
        if (!best || aer < best.aer) best = { layer, head, aer };
      }));
      return best;
    }
    nLayers(kind) {
      return this.model.n_layers[kind];
    }
    // (query labels, key labels) of a kind at step t. One convention in every view: a decoder query is the decoder
    // input at its position, labelled with the token it produces ("<s> → Das"), so the row of "Das" in decoder
    // self-attention is the query "<s>" and its own key, on the diagonal, is "<s>".
    labels(kind, t) {
      if (kind === "encoder_self") return [this.sourceTokens, this.sourceTokens];
      const inputs = this.decoderInputTokens.slice(0, t);
      const rows = inputs.map((token, i) => token + ARROW + this.targetTokens[i]);
      return [rows, kind === "decoder_self" ? inputs : this.sourceTokens];
    }
    // One head's weights at step t as rows (queries x keys); masked cells (decoder_self future) are null.
    head(kind, layer, head, t) {
      const a = this.attention[kind];
      const Q = a.shape[2], K = a.shape[3];
      const rows = kind === "encoder_self" ? Q : Math.min(t, Q);
      const cols = kind === "decoder_self" ? rows : K;
      const base = (layer * this.H + head) * Q * K;
      const out = new Array(rows);
      for (let i = 0; i < rows; i++) {
        const row = new Array(cols);
        for (let j = 0; j < cols; j++) row[j] = kind === "decoder_self" && j > i ? null : a.values[base + i * K + j];
        out[i] = row;
      }
      return out;
    }
    // The mean over heads of one layer (masked cells stay null).
    meanOfHeads(kind, layer, t) {
      let sum = null;
      for (let h = 0; h < this.H; h++) {
        const rows = this.head(kind, layer, h, t);
        if (sum === null) sum = rows.map((r) => r.map((v) => v === null ? null : 0));
        rows.forEach((r, i) => r.forEach((v, j) => {
          if (v !== null) sum[i][j] += v / this.H;
        }));
      }
      return sum;
    }
    // Attention rollout exists for the encoder (after `layer`) and for cross-attention (decoder `layer`, through
    // every encoder layer); decoder self-attention has none.
    hasRollout(kind) {
      return kind === "encoder_self" || kind === "cross";
    }
    // The rollout rows of one layer at step t (queries x keys).
    rolloutRows(kind, layer, t) {
      const a = this.rollout[kind];
      const Q = a.shape[1], K = a.shape[2];
      const rows = kind === "encoder_self" ? Q : Math.min(t, Q);
      const out = [];
      for (let i = 0; i < rows; i++) out.push(Array.from(a.values.subarray((layer * Q + i) * K, (layer * Q + i + 1) * K)));
      return out;
    }
    // The weights of a selection: a head number, "mean" or "rollout".
    weights(kind, layer, head, t) {
      if (head === "rollout") return this.rolloutRows(kind, layer, t);
      return head === "mean" ? this.meanOfHeads(kind, layer, t) : this.head(kind, layer, head, t);
    }
    // The decoder_self scores q·k/√d_k of one head at step t (t x t), the future included: the trace holds
    // them from a teacher-forced pass, whose lower triangle equals what each decoding step computed.
    scoresAt(layer, head, t) {
      const a = this.scores.decoder_self;
      const Q = a.shape[2], K = a.shape[3];
      const base = (layer * this.H + head) * Q * K;
      const out = [];
      for (let i = 0; i < t; i++) out.push(Array.from(a.values.subarray(base + i * K, base + i * K + t)));
      return out;
    }
    // The cross-attention row that shades the source chips at step t: the selected cross head, else the best head.
    crossRow(state) {
      if (state.step === 0) return [null, ""];
      let layer = state.layer, head = state.head;
      if (state.kind !== "cross" || head === "all") [layer, head] = this.defaultCross();
      const rows = this.weights("cross", layer, head, state.step);
      const which = { mean: "L" + layer + " mean of heads", rollout: "L" + layer + " attention rollout" }[head] || headName(layer, head);
      return [rows[state.step - 1], which, layer, head];
    }
    // The best-aligning cross-attention head, else the last layer's mean of heads.
    defaultCross() {
      const best = this.model.best_head;
      return best && best.kind === "cross" ? [best.layer, best.head] : [this.nLayers("cross") - 1, "mean"];
    }
  };

  // store.js
  var VIEW_STATE = ["step", "kind", "layer", "head", "view", "panel", "lesson"];
  var SENT = ["trace", "compare", "answers", "panelContent"];
  function createStore(initial, clamp, report = (error) => setTimeout(() => {
    throw error;
  })) {
    let state = Object.freeze(Object.assign({ trace: null, compare: null, answers: {}, panelContent: null }, initial));
    const listeners = /* @__PURE__ */ new Set();
    return {
      get: () => state,
      // change: some fields of the state; source: who changed it ("key", "click", "play", "link", "answer", ...).
      // `force`: tell the subscribers even when nothing changed (the same state drawn again).
      set(change, source, force) {
        const merged = Object.assign({}, state, change);
        const next = Object.freeze(clamp ? clamp(merged) : merged);
        const changed = VIEW_STATE.concat(SENT).filter((name) => next[name] !== state[name]);
        if (!changed.length && !force) return state;
        state = next;
        listeners.forEach((listener) => {
          try {
            listener(state, changed, source);
          } catch (error) {
            report(error);
          }
        });
        return state;
      },
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      }
    };
  }
  function clampToTrace(s, trace, views, panels, extra) {
    if (!trace) return s;
    const out = Object.assign({}, s);
    if (!KINDS.includes(out.kind)) out.kind = "cross";
    if (!views.includes(out.view)) out.view = views[0];
    if (!panels.includes(out.panel)) out.panel = null;
    (extra || []).forEach((clamp) => clamp(out));
    out.step = Math.max(0, Math.min(trace.T, Number(out.step) || 0));
    out.layer = Math.max(0, Math.min(trace.nLayers(out.kind) - 1, Number(out.layer) || 0));
    const named = out.head === "mean" || out.head === "all" || out.head === "rollout" && trace.hasRollout(out.kind);
    if (!(named || Number.isInteger(out.head) && out.head >= 0 && out.head < trace.H)) out.head = "mean";
    return out;
  }

  // opening.js
  var OPENING_STEP = 3;
  function openingOf(trace, previous, pending, opts) {
    const change = { trace, answers: Object.assign({}, trace.wire.answers), panel: null, panelContent: null };
    const best = trace.model.best_head;
    if (!previous && best) Object.assign(change, { kind: best.kind, layer: best.layer, head: best.head });
    const request = trace.request;
    if (pending && (!pending.own || opts.link) && (pending.sentence === null || pending.sentence === request.sentence)) {
      const view = Object.fromEntries(Object.entries(pending.view).filter(([name]) => VIEW_STATE.includes(name)));
      return { change: Object.assign(change, view), link: view };
    }
    if (!previous) change.step = Math.min(OPENING_STEP, trace.T);
    else if (!opts.keepView) {
      const forced = request.forced_ids.length;
      change.step = forced && previous.request.sentence === request.sentence ? forced : 0;
    }
    return { change, link: null };
  }
  function unusedOfLink(link, unread, got, trace, views) {
    const ranges = {
      step: "0–" + trace.T,
      layer: "0–" + (trace.nLayers(got.kind) - 1),
      head: "0–" + (trace.H - 1) + ", mean, all",
      kind: KINDS.join(", "),
      view: views.join(", ")
    };
    const unused = unread.map((item) => item + " (not a number)");
    for (const name of Object.keys(ranges)) {
      if (link[name] !== void 0 && link[name] !== got[name]) unused.push(name + "=" + String(link[name]).slice(0, 40) + " (this page has " + ranges[name] + ")");
    }
    return unused;
  }

  // dom.js
  var FAMILY = 'system-ui, "Source Sans Pro", sans-serif';
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== void 0) node.textContent = text;
    return node;
  }
  function button(label2, title2, onClick, className, signal) {
    const b = el("button", "ae-btn " + (className || ""), label2);
    b.type = "button";
    if (title2) b.title = title2;
    if (onClick) b.addEventListener("click", onClick, { signal });
    return b;
  }
  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function emit(element, name, detail) {
    element.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  }
  function sizeCanvas(canvas, width, height, ratio) {
    const dpr = ratio || window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = width + "px";
      canvas.style.height = height + "px";
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }
  function presenting() {
    return document.body.classList.contains("presentation");
  }
  function fontSize() {
    return presenting() ? SETTINGS.FONT.presentation : SETTINGS.FONT.normal;
  }
  function textFloor() {
    return presenting() ? 16 : 8;
  }
  function belowBand(canvas, band, ratio, paint) {
    const out = document.createElement("canvas");
    out.width = canvas.width;
    out.height = canvas.height + Math.round(band * ratio);
    const ctx = out.getContext("2d");
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(canvas, 0, Math.round(band * ratio));
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = "#1f2937";
    ctx.textBaseline = "middle";
    paint(ctx);
    return out;
  }
  function wrapText(ctx, text, width) {
    const lines = [];
    let line = "";
    for (const word of String(text).split(" ")) {
      const joined = line ? line + " " + word : word;
      if (ctx.measureText(joined).width <= width) {
        line = joined;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      while (ctx.measureText(line).width > width && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && ctx.measureText(line.slice(0, cut)).width > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    if (line) lines.push(line);
    return lines;
  }
  function withHeader(canvas, lines, ratio) {
    const font = fontSize(), width = canvas.width / ratio - 12;
    const measure = document.createElement("canvas").getContext("2d");
    const rows = lines.flatMap((text, n) => {
      measure.font = (n === 0 ? "600 " : "") + font + "px " + FAMILY;
      return wrapText(measure, text, width).map((part) => [part, measure.font]);
    });
    return belowBand(canvas, rows.length * (font + 8) + 8, ratio, (ctx) => rows.forEach(([text, style], n) => {
      ctx.font = style;
      ctx.fillText(text, 6, (n + 0.5) * (font + 8) + 4);
    }));
  }
  function canvasPng(canvas, filename2) {
    const link = document.createElement("a");
    link.href = canvas.toDataURL("image/png");
    link.download = filename2;
    link.click();
  }
  function download(text, filename2, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = filename2;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1e4);
  }
  function filename(sentence, ext) {
    const slug = sentence.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "sentence";
    return "attention-" + slug + ext;
  }
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    try {
      document.execCommand("copy");
    } finally {
      area.remove();
    }
    return Promise.resolve();
  }

  // api.js
  var issuing = null;
  var issued = "";
  function clientId() {
    let id = issued;
    try {
      id = sessionStorage.getItem("ae-client-issued") || issued;
    } catch (e) {
    }
    if (!id && !issuing && SETTINGS.API) {
      issuing = fetch(SETTINGS.API + "/client", { method: "POST" }).then((r) => r.json()).then((body) => {
        if (!body.client) return;
        issued = body.client;
        try {
          sessionStorage.setItem("ae-client-issued", body.client);
        } catch (e) {
        }
      }).catch(() => {
      }).finally(() => {
        issuing = null;
      });
    }
    return id;
  }
  function answer(response) {
    return response.json().catch(() => ({ error: "The server answered " + response.status + " without a message." })).then((body) => {
      if (!response.ok || body.error) throw Object.assign(new Error(body.error || "HTTP " + response.status), { status: response.status });
      return body;
    });
  }
  function clientHeaders(extra) {
    const id = clientId();
    return Object.assign(id ? { [SETTINGS.CLIENT_HEADER]: id } : {}, extra || {});
  }
  function call(path, options) {
    const o = options || {};
    const headers = clientHeaders(o.headers);
    let body = o.body;
    if (o.json !== void 0) {
      body = JSON.stringify(o.json);
      headers["content-type"] = "application/json";
    } else if (o.type) headers["content-type"] = o.type;
    const init = { method: o.method || (body === void 0 ? "GET" : "POST"), headers, body, signal: o.signal };
    return fetch(SETTINGS.API + path, init).then(answer);
  }
  function events(path) {
    return new EventSource(SETTINGS.API + path);
  }
  var query = (params) => "?" + new URLSearchParams(params);
  var api = {
    trace: (request) => call("/trace?" + toQuery(request)),
    translate: (request) => call("/translate?" + toQuery(request)),
    ask: (request, question2, ownModel) => call("/ask/" + question2.what, { json: { trace: toBody(request), question: question2, own_model: ownModel || null } }),
    // a download link sends no header: it names the browser in its query instead
    npzUrl: (request, step) => SETTINGS.API + "/npz?" + toQuery(request) + "&step=" + step + "&client=" + encodeURIComponent(clientId()),
    timelapse: (sentence) => call("/timelapse" + query({ sentence })),
    positional: (params, signal) => call("/positional/figures" + query(params), { signal }),
    upload: (file, signal) => call("/uploads", { body: file, type: "text/tab-separated-values", signal }),
    train: (form, signal) => call("/train", { json: form, signal }),
    stopTraining: (run) => call("/train/" + encodeURIComponent(run) + "/stop", { json: {} }),
    trainingEvents: (run) => events("/train/" + encodeURIComponent(run) + "/events"),
    checkpointUrl: (run) => SETTINGS.API + "/train/" + encodeURIComponent(run) + "/checkpoint.zip",
    // the room's calls: `key`, the lecturer's secret, where the call is the lecturer's
    room: (path, body, key) => call("/room" + path, { json: body || {}, headers: key ? { "x-ae-lecturer": key } : {} }),
    roomQrUrl: (code, url) => SETTINGS.API + "/room/" + encodeURIComponent(code) + "/qr.svg" + query({ u: url }),
    roomEvents: (code, key) => events("/room/" + encodeURIComponent(code) + "/events" + (key ? "?key=" + encodeURIComponent(key) : ""))
  };

  // export.js
  function sourceText(name) {
    const inline = document.querySelector('script[data-ae-source="' + name + '"], style[data-ae-source="' + name + '"]');
    if (inline) return Promise.resolve(inline.textContent);
    return fetch(SETTINGS.ASSETS[name]).then((r) => {
      if (!r.ok) throw new Error(name + ": HTTP " + r.status);
      return r.text();
    });
  }
  function safe(text) {
    return text.replace(/<\/(script|style)/gi, "<\\/$1");
  }
  function standaloneHtml(wire, state) {
    const names = ["plotly", "bundle"];
    return Promise.all([sourceText("css")].concat(names.map(sourceText))).then(([css, ...scripts]) => {
      const title2 = "Attention Explorer: " + wire.request.sentence;
      const parts2 = [
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>" + escape(title2) + "</title>",
        '<style data-ae-source="css">' + safe(css) + "</style>"
      ];
      parts2.push("<script>window.AttentionExplorerSettings = " + JSON.stringify({ ASSETS: SETTINGS.ASSETS, FONT: SETTINGS.FONT, REQUEST: SETTINGS.REQUEST }) + ";<\/script>");
      names.forEach((name, i) => parts2.push('<script data-ae-source="' + name + '">' + safe(scripts[i]) + "<\/script>"));
      parts2.push('</head><body class="ae-standalone"><div id="ae-root"></div>');
      parts2.push('<script type="application/json" id="ae-trace">' + safe(JSON.stringify(wire)) + "<\/script>");
      parts2.push('<script type="application/json" id="ae-state">' + JSON.stringify(state) + "<\/script>");
      parts2.push('<script>AttentionExplorer.standalone(document.getElementById("ae-root"));<\/script></body></html>');
      return parts2.join("\n");
    });
  }

  // exports.js
  function copyLink(viewer, button2) {
    const t = viewer.trace, s = viewer.state;
    const url = linkUrl(t.request, s);
    if (viewer.online) {
      try {
        window.history.replaceState(null, "", placeUrl(t.request, s));
      } catch (e) {
      }
    }
    const say = (text) => {
      button2.textContent = text;
      setTimeout(() => {
        button2.textContent = "Copy link";
      }, 2e3);
    };
    copyText(url).then(() => say("✓ Copied"), () => say("In the address bar"));
    return url;
  }
  function exportPng(viewer) {
    const s = viewer.state, t = viewer.trace;
    const name = filename(t.request.sentence, "") + "-" + s.view + "-step" + s.step;
    const header = [
      "“" + t.request.sentence + "” → “" + (t.wire.outputs[s.step] || "") + "”",
      "Step " + s.step + " of " + t.T + " · model: " + t.model.name + " (" + t.languages + ") · Attention Explorer"
    ];
    return Promise.resolve().then(() => viewer.f.area.view(s.view).png(header)).then((canvas) => canvasPng(canvas, name + ".png"), (error) => viewer.say(error.message));
  }
  function exportHtml(viewer) {
    const t = viewer.trace;
    const place = Object.fromEntries(VIEW_STATE.map((name) => [name, viewer.state[name]]));
    return standaloneHtml(t.wire, place).then((html) => {
      download(html, filename(t.request.sentence, ".html"), "text/html");
      return html.length;
    }).catch((err) => viewer.say("Export failed: " + err.message));
  }
  function exportNpz(viewer) {
    const a = el("a");
    a.href = api.npzUrl(viewer.trace.request, viewer.state.step);
    a.download = "";
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  // colors.js
  var COLORS = {
    scale: [
      [0, "#440154"],
      [0.0627, "#48186a"],
      [0.1255, "#472d7b"],
      [0.1882, "#424086"],
      [0.251, "#3b528b"],
      [0.3137, "#33638d"],
      [0.3765, "#2c728e"],
      [0.4392, "#26828e"],
      [0.502, "#21918c"],
      [0.5647, "#1fa088"],
      [0.6275, "#28ae80"],
      [0.6902, "#3fbc73"],
      [0.7529, "#5ec962"],
      [0.8157, "#84d44b"],
      [0.8784, "#addc30"],
      [0.9412, "#d8e219"],
      [1, "#fde725"]
    ],
    masked: "#d0d0d0",
    // the masked future: grey, never a small weight
    chosen: "#D55E00",
    // Okabe-Ito vermillion: the chosen token, the current row, the best head
    other: "#0072B2",
    // Okabe-Ito blue
    forced: "#CC79A7",
    produced: "#56B4E9",
    start: "#999999",
    gold: ["#ffffff", "#000000"]
    // a hand-aligned link: white around black, seen on every colour of the scale
  };
  var LUT = (function() {
    const stops = COLORS.scale.map(([at, hex]) => [at, [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))]);
    const out = [];
    for (let n = 0; n < 256; n++) {
      const v = n / 255;
      let k = 1;
      while (k < stops.length - 1 && stops[k][0] < v) k++;
      const [a, ca] = stops[k - 1], [b, cb] = stops[k];
      const f = b > a ? (v - a) / (b - a) : 0;
      out.push("rgb(" + ca.map((c, i) => Math.round(c + f * (cb[i] - c))).join(",") + ")");
    }
    return out;
  })();
  function weightColor(v) {
    return LUT[Math.max(0, Math.min(255, Math.round(v * 255)))];
  }
  function signedFill(value, peak) {
    const a = Math.min(1, Math.abs(value) / (peak || 1));
    return (value >= 0 ? "rgba(213, 94, 0, " : "rgba(0, 114, 178, ") + a.toFixed(3) + ")";
  }
  var HEAD_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#000000"];
  function headColor(h) {
    return HEAD_COLORS[h % HEAD_COLORS.length];
  }

  // grid.js
  var GAP = 14;
  var SIN = Math.sin(Math.PI / 3);
  var SCROLLBAR = 16;
  function labelFloor(font) {
    return Math.max(11, textFloor(), Math.round(font * 0.8));
  }
  var Grid = class {
    constructor(div) {
      this.div = div;
      const title2 = this.title = el("div", "ae-grid-title");
      const scroll = this.scroll = el("div", "ae-grid-scroll");
      const sheet = this.sheet = el("div", "ae-grid-sheet");
      const canvas = this.canvas = document.createElement("canvas");
      canvas.setAttribute("role", "img");
      this.labels = el("div", "ae-grid-labels");
      const pin = this.pin = el("div", "ae-grid-pin");
      const tip = this.tip = el("div", "ae-tip");
      tip.hidden = true;
      sheet.append(canvas, this.labels, pin, tip);
      scroll.appendChild(sheet);
      const strip3 = this.strip = el("div", "ae-grid-strip"), headStrip = this.headStrip = el("div", "ae-grid-strip");
      this.columns = el("div", "ae-grid-columns");
      this.names = el("div", "ae-grid-columns");
      strip3.appendChild(this.columns);
      headStrip.appendChild(this.names);
      scroll.addEventListener("scroll", () => {
        strip3.scrollLeft = headStrip.scrollLeft = scroll.scrollLeft;
        pin.style.transform = "translateX(" + scroll.scrollLeft + "px)";
      });
      const stack = el("div", "ae-grid-stack");
      stack.append(headStrip, scroll, strip3);
      this.scales = el("div", "ae-grid-scales");
      this.yTitle = el("div", "ae-tick-axis ae-tick-axis-y");
      this.xTitle = el("div", "ae-tick-axis ae-tick-axis-x");
      const body = el("div", "ae-grid-body");
      body.append(this.yTitle, stack, this.scales);
      div.replaceChildren(title2, body, this.xTitle);
      this.spec = null;
      this.geom = null;
      canvas.addEventListener("mousemove", (e) => this.hover(e));
      canvas.addEventListener("click", (e) => {
        const cell2 = this.cellAt(e);
        if (cell2) emit(div, "ae-cell", cell2);
      });
      canvas.addEventListener("mouseleave", () => {
        tip.hidden = true;
      });
    }
    // Draw spec into the grid's box. Returns a resolved promise.
    draw(spec2) {
      const g = this, div = this.div;
      g.spec = spec2;
      g.tip.hidden = true;
      const font = spec2.font;
      const width = Math.max(300, div.clientWidth || 600);
      const scaleW = scaleWidth(spec2);
      const titleH = font + 12, axisW = font + 10;
      const namesH = spec2.panels.length > 1 && spec2.rows.length ? font + 8 : 0;
      const xTitleH = spec2.bare ? 0 : titleH;
      const boxW = width - scaleW - axisW, boxH = Math.max(120, spec2.height - titleH - xTitleH - namesH);
      g.title.style.fontSize = font + 1 + "px";
      g.title.style.height = g.title.style.lineHeight = titleH + "px";
      g.title.textContent = fitted(spec2.titles, width - 8, font + 1, "600");
      g.title.title = spec2.titles[0] + (spec2.titleTip ? "\n" + spec2.titleTip : "");
      g.scroll.style.width = g.strip.style.width = g.headStrip.style.width = boxW + "px";
      g.headStrip.style.height = g.names.style.height = namesH + "px";
      g.scroll.style.height = boxH + "px";
      g.strip.style.height = "0";
      g.yTitle.style.width = axisW + "px";
      g.yTitle.style.height = boxH + "px";
      g.xTitle.style.height = g.xTitle.style.lineHeight = xTitleH + "px";
      g.xTitle.hidden = Boolean(spec2.bare);
      for (const t of [g.yTitle, g.xTitle]) t.style.fontSize = font + "px";
      if (!spec2.rows.length || !spec2.columns.length) {
        g.geom = null;
        sizeCanvas(g.canvas, boxW - 4, boxH - 4).clearRect(0, 0, boxW, boxH);
        g.sheet.style.width = boxW - 4 + "px";
        g.sheet.style.height = boxH - 4 + "px";
        g.scroll.scrollLeft = 0;
        g.columns.replaceChildren();
        g.names.replaceChildren();
        g.pin.replaceChildren();
        g.pin.style.width = "0";
        g.labels.replaceChildren(span("ae-grid-empty", spec2.empty || "", { left: "0", right: "0", top: boxH / 2 - font + "px", fontSize: font + 1 + "px" }));
        g.scales.replaceChildren();
        g.xTitle.textContent = g.yTitle.textContent = "";
        g.canvas.setAttribute("aria-label", spec2.empty || "");
        return Promise.resolve();
      }
      let L = layout(spec2, boxW, boxH);
      const cols = L.cols;
      if (L.width > boxW) L = arranged(spec2, boxW, boxH - SCROLLBAR, cols);
      if (L.height > boxH) L = arranged(spec2, boxW - SCROLLBAR, L.width > boxW ? boxH - SCROLLBAR : boxH, cols);
      const sheetW = Math.max(L.width, 300), sheetH = L.sheetH;
      const scrollH = Math.min(sheetH + (L.width > boxW ? SCROLLBAR : 0), boxH - L.bottom);
      g.scroll.style.height = scrollH + "px";
      g.strip.style.height = L.bottom + "px";
      g.sheet.style.width = g.columns.style.width = g.names.style.width = sheetW + "px";
      g.sheet.style.height = sheetH + "px";
      g.columns.style.height = L.bottom + "px";
      const ctx = sizeCanvas(g.canvas, sheetW, sheetH);
      paintCells(ctx, spec2, L, sheetW, sheetH);
      const [rowSpans, columnSpans, nameSpans, bandSpans] = labelSpans(spec2, L, sheetW);
      g.columns.replaceChildren(...columnSpans);
      g.names.replaceChildren(...nameSpans);
      g.labels.replaceChildren(...bandSpans);
      g.pin.replaceChildren(...rowSpans);
      g.pin.style.width = L.left + "px";
      g.pin.style.height = sheetH + "px";
      const seenW = Math.min(boxW, sheetW) - L.left, seenH = scrollH - L.top;
      g.xTitle.style.paddingLeft = axisW + L.left + "px";
      g.xTitle.style.width = axisW + L.left + seenW + "px";
      g.xTitle.textContent = fitted(spec2.columnTitles, seenW, font);
      g.yTitle.textContent = fitted(spec2.rowTitles.concat([""]), seenH, font);
      g.scales.replaceChildren(...spec2.hideScales ? [] : scaleBlocks(spec2, font, L.top, seenH));
      g.geom = {
        panels: spec2.panels.map((p, k) => Object.assign({ x0: L.x0[k], y0: L.y0[k] }, p)),
        top: L.top,
        left: L.left,
        cw: L.cw,
        ch: L.ch,
        cols: L.cols,
        rows: L.rows,
        band: L.band,
        queries: spec2.rows,
        keys: spec2.columns,
        width: sheetW,
        height: namesH + sheetH + L.bottom,
        bottom: L.bottom,
        namesH,
        labels: { font: L.size, rotated: L.rotate }
      };
      g.canvas.setAttribute("aria-label", spec2.aria);
      this.keepInView(spec2.current);
      g.pin.style.transform = "translateX(" + g.scroll.scrollLeft + "px)";
      return Promise.resolve();
    }
    // Scroll the grid so that row i (and column j, if given) is in view; nothing moves if it already is.
    keepInView(i, j) {
      const g = this, geom = g.geom;
      if (!geom || i === void 0 || i < 0) return;
      const s = g.scroll, y0 = geom.top + i * geom.ch, y1 = y0 + geom.ch;
      if (y0 < s.scrollTop || y1 > s.scrollTop + s.clientHeight) s.scrollTop = Math.max(0, y1 - s.clientHeight / 2);
      if (j === void 0 || j < 0) return;
      const x0 = geom.panels[0].x0 + j * geom.cw, x1 = x0 + geom.cw;
      if (x0 < s.scrollLeft || x1 > s.scrollLeft + s.clientWidth) s.scrollLeft = Math.max(0, x1 - s.clientWidth / 2);
    }
    // The cell under a mouse event: {row, column, head, weight, x, y, panel}, or null outside the cells.
    cellAt(event) {
      const { canvas, geom } = this;
      if (!geom) return null;
      const box = canvas.getBoundingClientRect();
      const x = event.clientX - box.left, y = event.clientY - box.top;
      const panel = geom.panels.find((p) => x >= p.x0 && x < p.x0 + geom.keys.length * geom.cw && y >= p.y0 && y < p.y0 + geom.queries.length * geom.ch);
      const i = panel ? Math.floor((y - panel.y0) / geom.ch) : -1;
      const j = panel ? Math.floor((x - panel.x0) / geom.cw) : -1;
      if (!panel || i < 0 || i >= geom.queries.length || j < 0 || j >= geom.keys.length) return null;
      return { row: i, column: j, head: panel.head, weight: panel.z[i][j], x, y, panel };
    }
    hover(event) {
      const { tip, sheet, spec: spec2 } = this;
      const cell2 = this.cellAt(event);
      if (!cell2) {
        tip.hidden = true;
        return;
      }
      tip.textContent = spec2.describe(cell2.panel, cell2.row, cell2.column);
      tip.hidden = false;
      tip.style.left = Math.max(0, Math.min(cell2.x + 12, sheet.clientWidth - tip.offsetWidth - 4)) + "px";
      tip.style.top = cell2.y + 14 + "px";
    }
    // The grid as a picture for a slide: `header` lines (the sentence, the step) above the title, the cells, every
    // label and the colour scales, at `scale` times the size on screen. An empty grid (no row yet) is no picture: it
    // throws its own message (the viewer says it) rather than download a blank slide.
    png(header, scale) {
      const g = this, spec2 = g.spec, geom = g.geom, k = scale || 2;
      if (!geom) throw new Error(spec2 && spec2.empty ? spec2.empty.replace(/:.*/, "") + ", so there is no picture: step once (→) and press PNG again." : "Nothing is drawn yet: there is no picture to download.");
      const font = spec2.font;
      const scaleW = scaleWidth(spec2), axisW = font + 10, titleH = font + 12;
      const W = axisW + geom.width + scaleW;
      const lines = wrapLines((header || []).map((text, n) => [text, n === 0 ? "600 " + font : String(font)]).concat([[spec2.titles[0], "600 " + (font + 1)]]), W - 12);
      const headH = lines.length * (font + 8) + 8;
      const H = headH + geom.height + titleH;
      const out = document.createElement("canvas");
      out.width = Math.round(W * k);
      out.height = Math.round(H * k);
      const ctx = out.getContext("2d");
      ctx.scale(k, k);
      ctx.fillStyle = "white";
      ctx.fillRect(0, 0, W, H);
      ctx.fillStyle = "#1f2937";
      ctx.textBaseline = "middle";
      lines.forEach(([text, style], n) => {
        ctx.font = style + "px " + FAMILY;
        ctx.fillText(text, 6, (n + 0.5) * (font + 8) + 4);
      });
      const gridW = geom.cols * geom.cw * geom.keys.length + GAP * (geom.cols - 1);
      const gridH = geom.rows * geom.queries.length * geom.ch + geom.band * (geom.rows - 1);
      ctx.fillStyle = "white";
      ctx.save();
      ctx.translate(axisW, headH);
      paintLabels(ctx, g.names, g.names);
      ctx.translate(0, geom.namesH);
      const L = { cw: geom.cw, ch: geom.ch, panelW: geom.cw * geom.keys.length, x0: geom.panels.map((p) => p.x0), y0: geom.panels.map((p) => p.y0) };
      paintCells(ctx, spec2, L, geom.width, geom.height);
      const pinned = g.pin.style.transform;
      g.pin.style.transform = "";
      paintLabels(ctx, g.pin, g.sheet);
      paintLabels(ctx, g.labels, g.sheet);
      g.pin.style.transform = pinned;
      ctx.translate(0, geom.height - geom.namesH - geom.bottom);
      paintLabels(ctx, g.columns, g.columns);
      ctx.restore();
      ctx.font = font + "px " + FAMILY;
      ctx.fillStyle = "#1f2937";
      ctx.textAlign = "center";
      ctx.fillText(spec2.columnTitles[0], axisW + geom.left + gridW / 2, headH + geom.height + titleH / 2);
      ctx.save();
      ctx.translate(axisW / 2, headH + geom.namesH + geom.top + gridH / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(fitted(spec2.rowTitles.concat([""]), gridH, font), 0, 0);
      ctx.restore();
      paintScales(ctx, g.scales, axisW + geom.width, headH, font);
      return out;
    }
  };
  function measurer() {
    const ctx = measurer.ctx = measurer.ctx || document.createElement("canvas").getContext("2d");
    return (texts, size, weight) => {
      ctx.font = (weight || "") + " " + size + "px " + FAMILY;
      return Math.max(0, ...texts.map((s) => ctx.measureText(s).width));
    };
  }
  function layout(spec2, boxW, boxH) {
    const P = spec2.panels.length;
    let best = null;
    for (let rows = 1; rows <= (spec2.wrap ? P : 1); rows++) {
      const cols = Math.ceil(P / rows);
      if (rows > 1 && cols === Math.ceil(P / (rows - 1))) continue;
      const L = arranged(spec2, boxW, boxH, cols);
      const over = Math.max(1, L.width / boxW) * Math.max(1, L.height / boxH);
      const score = [-over, L.size, -L.rows];
      if (!best || better(score, best.score)) best = { L, score };
    }
    return best.L;
  }
  function better(a, b) {
    const k = a.findIndex((v, i) => v !== b[i]);
    return k >= 0 && a[k] > b[k];
  }
  function arranged(spec2, boxW, boxH, cols) {
    const widest = measurer();
    const font = spec2.font, P = spec2.panels.length, n = spec2.rows.length, m = spec2.columns.length;
    const R = Math.ceil(P / cols), band = R > 1 ? GAP + font + 8 : 0;
    const top = 4;
    const floor = labelFloor(font);
    let size = font, rotate = false, bottom = 0, left = 0, cw = 0, ch = 0;
    for (let pass = 0; pass < 3; pass++) {
      left = 4 + widest(spec2.rows, size, "600") + 8;
      cw = (boxW - left - 8 - GAP * (cols - 1)) / cols / m;
      rotate = P > 1 || m > 8 || widest(spec2.columns, size) + 6 > cw;
      bottom = (rotate ? widest(spec2.columns, size) * SIN + size : size + 6) + 8;
      ch = (boxH - top - bottom - band * (R - 1)) / (n * R);
      const fits = Math.floor(Math.min(font, ch - 2, rotate ? cw * SIN - 2 : font));
      const next = Math.max(floor, fits);
      if (next === size) break;
      size = next;
    }
    ch = Math.max(ch, size + 2);
    if (rotate) cw = Math.max(cw, (size + 2) / SIN);
    let names = spec2.panels.map((p) => p.name);
    const nameW = (texts) => (widest(texts, font, "600") + 8) / m;
    if (P > 1 && nameW(names) > cw && spec2.panels.every((p) => p.short)) names = spec2.panels.map((p) => p.short);
    if (P > 1) cw = Math.max(cw, nameW(names));
    const panelW = cw * m, pitch = n * ch + band;
    const sheetH = Math.ceil(top + R * n * ch + band * (R - 1) + 2);
    return {
      names,
      size,
      rotate,
      top,
      left,
      bottom,
      cw,
      ch,
      panelW,
      cols,
      rows: R,
      band,
      sheetH,
      width: Math.ceil(left + cols * panelW + GAP * (cols - 1) + 8),
      height: sheetH + bottom,
      x0: spec2.panels.map((_, k) => left + k % cols * (panelW + GAP)),
      y0: spec2.panels.map((_, k) => top + Math.floor(k / cols) * pitch)
    };
  }
  function fitted(texts, room, size, weight) {
    const widest = measurer();
    return texts.find((t) => widest([t], size, weight) <= room) || texts[texts.length - 1];
  }
  function span(className, text, style) {
    const s = el("span", "ae-tick " + className, text);
    Object.assign(s.style, style);
    return s;
  }
  function paintCells(ctx, spec2, L, sheetW, sheetH) {
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, sheetW, sheetH);
    const n = spec2.rows.length, m = spec2.columns.length;
    spec2.panels.forEach((p, k) => {
      const scale = spec2.scales[p.scale || 0];
      const x0 = L.x0[k], y0 = L.y0[k];
      const xs = [...Array(m + 1).keys()].map((j) => Math.round(x0 + j * L.cw));
      const ys = [...Array(n + 1).keys()].map((i) => Math.round(y0 + i * L.ch));
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < m; j++) {
          const v = p.z[i][j];
          ctx.fillStyle = v === null ? COLORS.masked : scale.color(v);
          ctx.fillRect(xs[j], ys[i], xs[j + 1] - xs[j], ys[i + 1] - ys[i]);
        }
      }
      if (spec2.current >= 0) {
        ctx.strokeStyle = COLORS.chosen;
        ctx.lineWidth = 3;
        ctx.strokeRect(x0 + 1.5, y0 + spec2.current * L.ch + 1.5, L.panelW - 3, L.ch - 3);
      }
      for (const [i, j] of spec2.outlines || []) {
        const [w, h] = [xs[j + 1] - xs[j], ys[i + 1] - ys[i]];
        COLORS.gold.forEach((color, k2) => {
          ctx.strokeStyle = color;
          ctx.lineWidth = k2 ? 1 : 3;
          const inset = k2 ? 2.5 : 1.5;
          ctx.strokeRect(xs[j] + inset, ys[i] + inset, Math.max(1, w - 2 * inset), Math.max(1, h - 2 * inset));
        });
      }
    });
  }
  function labelSpans(spec2, L, sheetW) {
    const rows = [], columns = [], names = [], band = [], size = L.size, line = size + 2, font = spec2.font;
    for (let r = 0; r < L.rows; r++) {
      const y0 = L.y0[r * L.cols];
      spec2.rows.forEach((text, i) => {
        rows.push(span("ae-tick-row" + (i === spec2.current ? " ae-tick-current" : ""), text, {
          // in the pin, L.left wide
          right: "6px",
          top: y0 + (i + 0.5) * L.ch - line / 2 + "px",
          fontSize: size + "px",
          lineHeight: line + "px"
        }));
      });
    }
    const y = 5;
    spec2.panels.forEach((p, k) => {
      if (spec2.panels.length > 1) {
        const first = k < L.cols;
        const name = span("ae-tick-panel", L.names[k], {
          left: L.x0[k] + "px",
          width: L.panelW + "px",
          top: (first ? 3 : L.y0[k] - font - 5) + "px",
          fontSize: font + "px",
          lineHeight: font + 2 + "px"
        });
        name.title = p.name;
        (first ? names : band).push(name);
      }
      if (k >= L.cols) return;
      spec2.columns.forEach((text, j) => {
        const x = L.x0[k] + (j + 0.5) * L.cw;
        const style = L.rotate ? { right: sheetW - x + "px", top: y - line / 2 + "px", transform: "rotate(-60deg)", transformOrigin: "100% 50%" } : { left: x + "px", top: y + "px", transform: "translateX(-50%)" };
        columns.push(span("ae-tick-column" + (L.rotate ? " ae-tick-rotated" : ""), text, Object.assign({ fontSize: size + "px", lineHeight: line + "px" }, style)));
      });
    });
    return [rows, columns, names, band];
  }
  function scaleWidth(spec2) {
    if (!spec2.scales.length || spec2.hideScales) return 0;
    const size = Math.max(11, spec2.font - 2), widest = measurer();
    const texts = spec2.scales.flatMap((sc) => [sc.label, "masked"].concat(sc.ticks.map(sc.format)));
    return Math.ceil(30 + widest(texts, size));
  }
  function scaleBlocks(spec2, font, top, height) {
    const n = spec2.scales.length;
    const each = (height - 8 * (n - 1)) / n;
    return spec2.scales.map((scale, k) => {
      const block2 = el("div", "ae-scale");
      block2.style.top = top + k * (each + 8) + "px";
      block2.style.fontSize = Math.max(11, font - 2) + "px";
      const barH = Math.max(40, each - (scale.masked ? 2 * font + 8 : 0) - 2 * font - 8);
      const label2 = el("div", "ae-scale-label", scale.label);
      const bar = el("div", "ae-scale-bar");
      bar.style.height = barH + "px";
      const stops = [...Array(17).keys()].map((q) => scale.color(scale.min + q / 16 * (scale.max - scale.min)) + " " + q / 16 * 100 + "%");
      bar.style.background = "linear-gradient(to top, " + stops.join(", ") + ")";
      const ticks = el("div", "ae-scale-ticks");
      ticks.style.height = barH + "px";
      const px = Math.max(11, font - 2) + 4, every = Math.ceil(px / (barH / Math.max(1, scale.ticks.length - 1)));
      const last = scale.ticks.length - 1;
      scale.ticks.filter((_, n2) => n2 === last || n2 % every === 0 && last - n2 >= every).forEach((v) => {
        const t = el("span", "ae-scale-tick", scale.format(v));
        t.style.bottom = (v - scale.min) / (scale.max - scale.min) * 100 + "%";
        ticks.appendChild(t);
      });
      const row = el("div", "ae-scale-row");
      row.append(bar, ticks);
      block2.append(label2, row);
      if (scale.masked) {
        const key = el("div", "ae-scale-masked");
        const swatch = el("span", "ae-swatch");
        swatch.style.background = COLORS.masked;
        key.append(swatch, "masked");
        block2.appendChild(key);
      }
      return block2;
    });
  }
  function wrapLines(lines, width) {
    const ctx = document.createElement("canvas").getContext("2d");
    return lines.flatMap(([text, style]) => {
      ctx.font = style + "px " + FAMILY;
      return wrapText(ctx, text, width).map((line) => [line, style]);
    });
  }
  function paintLabels(ctx, labels, sheet) {
    const origin = sheet.getBoundingClientRect();
    ctx.fillStyle = "#1f2937";
    [...labels.children].forEach((s) => {
      const style = getComputedStyle(s);
      ctx.font = style.fontWeight + " " + style.fontSize + " " + FAMILY;
      const size = parseFloat(style.fontSize);
      const text = s.textContent, w = ctx.measureText(text).width;
      const rotated = s.classList.contains("ae-tick-rotated"), vertical = s.classList.contains("ae-tick-axis-y");
      const r = s.getBoundingClientRect();
      const cx = r.left - origin.left + r.width / 2, cy = r.top - origin.top + r.height / 2;
      ctx.save();
      ctx.translate(cx, cy);
      if (rotated) ctx.rotate(-Math.PI / 3);
      if (vertical) ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      if (s.classList.contains("ae-tick-current")) ctx.fillStyle = COLORS.chosen;
      ctx.fillText(text, 0, 0, Math.max(w, size));
      ctx.restore();
      ctx.fillStyle = "#1f2937";
    });
  }
  function paintScales(ctx, scales, x0, y0, font) {
    const origin = scales.getBoundingClientRect();
    [...scales.querySelectorAll(".ae-scale-bar, .ae-scale-label, .ae-scale-tick, .ae-scale-masked")].forEach((e) => {
      const r = e.getBoundingClientRect(), x = x0 + r.left - origin.left + 4, y = y0 + r.top - origin.top;
      if (e.classList.contains("ae-scale-bar")) {
        const colors = e.style.background.match(/rgba?\([^)]*\)|#[0-9a-fA-F]{6}/g) || [];
        const grad = ctx.createLinearGradient(0, y + r.height, 0, y);
        colors.forEach((c, n) => grad.addColorStop(n / Math.max(1, colors.length - 1), c));
        ctx.fillStyle = grad;
        ctx.fillRect(x, y, r.width, r.height);
        return;
      }
      ctx.fillStyle = "#1f2937";
      ctx.font = Math.max(11, font - 2) + "px " + FAMILY;
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      if (e.classList.contains("ae-scale-masked")) {
        ctx.fillStyle = COLORS.masked;
        ctx.fillRect(x, y + 2, 12, 12);
        ctx.fillStyle = "#1f2937";
        ctx.fillText("masked", x + 16, y + r.height / 2);
      } else ctx.fillText(e.textContent, x, y + r.height / 2);
    });
  }

  // heatmap.js
  function weightScale(peak, masked) {
    return {
      label: peak < 1 ? "rollout" : "weight",
      min: 0,
      max: peak,
      color: (v) => weightColor(v / peak),
      masked,
      ticks: [0, 0.2, 0.4, 0.6, 0.8, 1].map((x) => x * peak),
      format: (v) => v.toFixed(peak < 1 ? 2 : 1)
    };
  }
  var Heatmap = class {
    constructor(div) {
      this.grid = new Grid(div);
    }
    // Draw state's kind/layer/head at state.step (head: a number, "mean", "rollout" or "all"), state.height pixels tall;
    // state.label names the map ("A", "B" in Compare two). Returns a resolved promise.
    draw(trace, state) {
      return this.grid.draw(spec(trace, state));
    }
    // The heatmap as a picture for a slide: the header lines above it, labels and colour scale included, at 2x.
    png(header) {
      return this.grid.png(header, 2);
    }
  };
  function spec(trace, state) {
    const { kind, layer, head, step: t } = state;
    const [queries, keys] = trace.labels(kind, t);
    const heads = head === "all" ? [...Array(trace.H).keys()] : [head];
    const many = heads.length > 1;
    const off = offNote(trace, kind, layer, head);
    const gold = kind === "cross" && head !== "rollout" ? trace.goldCells(t) : [];
    const aer = kind === "cross" ? trace.goldAer(layer, head) : null;
    const note = off + (aer === null ? "" : " · AER " + aer.toFixed(2));
    const titles = [title(kind, layer, head, t), title(kind, layer, head, t, "short"), title(kind, layer, head, t, "shortest")].map((text) => text + note);
    const panels = heads.map((h) => {
      const each = many && kind === "cross" ? trace.goldAer(layer, h) : null;
      return { name: "H" + h + (each === null ? "" : " · AER " + each.toFixed(2)), head: h, aer: each, z: queries.length ? trace.weights(kind, layer, h, t) : [], scale: 0 };
    });
    const peak = head === "rollout" ? Math.max(1e-6, ...panels.flatMap((p) => p.z.flat())) : 1;
    const [rowTitle, columnTitle] = AXIS_TITLES[kind];
    return {
      titles: (state.label ? titles.map((x) => state.label + " · " + x) : []).concat(titles),
      titleTip: aer !== null || panels.some((p) => p.aer !== null) ? AER_TIP : "",
      // an AER shown is explained
      rows: queries,
      columns: keys,
      panels,
      scales: [weightScale(peak, kind === "decoder_self")],
      hideScales: Boolean(state.hideScale),
      rowTitles: [rowTitle, rowTitle.split(" (")[0], "query"],
      columnTitles: [columnTitle, columnTitle.split(" (")[0], "key"],
      current: kind === "encoder_self" ? -1 : t - 1,
      outlines: gold,
      font: many ? fontSize() - 2 : fontSize(),
      height: state.height,
      bare: Boolean(state.bare),
      wrap: many,
      empty: "No target token yet: press → (Next) to produce the first one.",
      describe: (p, i, j) => {
        const v = p.z[i][j];
        const linked = gold.some(([a, b]) => a === i && b === j) ? " · a gold link (aligned by hand)" : "";
        return (many ? "H" + p.head + " · " : "") + "query: " + queries[i] + " · key: " + keys[j] + " · " + (v === null ? "masked: weight exactly 0" : "weight " + v.toFixed(4)) + linked;
      },
      aria: title(kind, layer, head, t) + off + ". Rows (queries): " + queries.join(" ") + ". Columns (keys): " + keys.join(" ") + "."
    };
  }
  var SHORT = { encoder_self: "Encoder self", decoder_self: "Decoder self", cross: "Cross" };
  var AER_TIP = "AER: the alignment error rate of this head on this sentence, against the word links a person aligned by hand (each word of the translation aligned to the source word it attends to most): 0 is exactly the hand alignment, 1 is none of it.";
  function offNote(trace, kind, layer, head) {
    const off = trace.request.ablation.filter(([k, l]) => k === kind && l === layer).map(([, , h]) => h);
    if (!off.length || head === "rollout") return "";
    if (typeof head === "number") return off.includes(head) ? " · switched off" : "";
    return " · " + off.map((h) => "H" + h).join(", ") + " off";
  }
  function title(kind, layer, head, t, length) {
    const named = { mean: " · mean of heads", all: " · all heads", rollout: " · rollout" }[head];
    const which = named ? "L" + layer + named : headName(layer, head);
    const step = kind === "encoder_self" ? "" : " · step " + t;
    if (length === "shortest") return (named ? "L" + layer + " · " + { mean: "mean", all: "all", rollout: "rollout" }[head] : which) + step.replace(" step ", " t=");
    if (length) return SHORT[kind] + " · " + which + step;
    return KIND_TITLES[kind] + " · " + (head === "rollout" ? "L" + layer + " · attention rollout" : which) + step;
  }
  var ROLLOUT = "Attention rollout (Abnar & Zuidema, 2020): each encoder layer taken as ½·attention + ½·identity (the residual), averaged over heads, multiplied through the layers; for cross-attention, this layer's head-averaged rows times the encoder's rollout, so each row says which source tokens the step drew on through every encoder layer. A model of how attention composes: it ignores the values and the feed-forward layers, so it is not a measurement of what the translation depended on. Its colours span 0 to its largest value (the products are small and even), not the fixed 0–1 scale of the weights.";
  function goldCaption(trace, state) {
    const gold = trace && trace.gold;
    if (!gold || state.kind !== "cross" || state.head === "rollout") return "";
    if (!gold.matches) {
      return "This sentence is aligned by hand for the " + trace.targetLanguage + " “" + gold.target + "”, but the model wrote another translation, so there is nothing to outline. Press G to decode the gold translation (its pieces forced) and see its links outlined.";
    }
    const best = trace.goldBest();
    const aer = trace.goldAer(state.layer, state.head);
    const which = typeof state.head === "number" ? headName(state.layer, state.head) : "the mean of layer " + state.layer + "'s heads";
    return "Outlined: the " + gold.links + " word links of a hand alignment of this sentence, on the pieces of each linked word pair. Where attention is alignment, the bright cells sit inside the outlines." + (aer === null ? "" : " Alignment error rate of " + which + " on this sentence: " + aer.toFixed(2) + " (each " + trace.targetLanguage + " word aligned to its most-attended " + trace.sourceLanguage + " word; 0 means exactly the gold links, lower is better).") + " Best head here: " + headName(best.layer, best.head) + ", AER " + best.aer.toFixed(2) + ".";
  }
  function goldView(state) {
    return { view: VIEW.id, kind: "cross", head: typeof state.head === "number" ? state.head : 0 };
  }
  var VIEW = {
    id: "heatmap",
    label: "Heatmap",
    tip: "One head's attention as a grid: each row a query token, each column a key token, each cell the weight (0–1)",
    className: "ae-heat",
    controls: ["kind", "layer", "head"],
    caption: (state, trace) => state.head === "rollout" ? ROLLOUT : goldCaption(trace, state),
    create: (div) => {
      const map = new Heatmap(div);
      return {
        draw: (context, state) => map.draw(context.trace, state),
        png: (header) => map.png(header),
        focus: (cell2) => map.grid.keepInView(cell2.row, cell2.column)
      };
    }
  };

  // keys.js
  var KEY_HELP = "→ / PageDown next · ← / PageUp previous · Home / End first / last · 0–9 head · M mean · A all heads · R rollout · L layer · K kind · V view · G gold alignment · Space play / pause · / type a sentence · Esc closes a panel (then the lesson) · in the lesson: → ← move through its stops · in the quiz: [ ] choose a source token, Enter answer, Esc end";
  function typing(target) {
    if (!target || !target.tagName) return false;
    const tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
    if (tag !== "input") return false;
    const type = (target.type || "text").toLowerCase();
    return !["button", "checkbox", "radio", "range", "submit", "reset"].includes(type);
  }
  function bindKeys(viewer) {
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
      if (!viewer.trace || !viewer.isVisible()) return;
      const key = event.key;
      if (viewer.hooked("onKey").some((c) => c.onKey(key))) {
        event.preventDefault();
        return;
      }
      let handled = true;
      if (key === "ArrowRight" || key === "PageDown") viewer.go(viewer.store.get().step + 1, "key");
      else if (key === "ArrowLeft" || key === "PageUp") viewer.go(viewer.store.get().step - 1, "key");
      else if (key === "Home") viewer.go(0, "key");
      else if (key === "End") viewer.go(viewer.trace.T, "key");
      else if (/^[0-9]$/.test(key) && Number(key) < viewer.trace.H) viewer.select({ head: Number(key) }, "key");
      else if (key === "m" || key === "M") viewer.select({ head: "mean" }, "key");
      else if (key === "a" || key === "A") viewer.select({ head: "all" }, "key");
      else if (key === "r" || key === "R") viewer.select({ head: "rollout" }, "key");
      else if (key === "l" || key === "L") viewer.cycle("layer");
      else if (key === "k" || key === "K") viewer.cycle("kind");
      else if (key === "v" || key === "V") viewer.cycle("view");
      else if (key === "g" || key === "G") viewer.showGold(goldView(viewer.state));
      else if (key === " " || key === "Spacebar") viewer.togglePlay();
      else if (key === "/" && viewer.f.sentence) viewer.f.sentence.open();
      else if (key === "Escape" && viewer.store.get().panel) viewer.select({ panel: null }, "key");
      else handled = false;
      if (handled) event.preventDefault();
    });
  }

  // toolbar.js
  var PACES = [0.5, 1, 2, 3];
  var Toolbar = class {
    constructor(viewer) {
      const go = (step) => () => viewer.go(step(), "click");
      const at = () => viewer.state.step;
      this.buttons = {
        reset: button("« First", "First step (Home)", go(() => 0)),
        prev: button("◀ Previous", "Previous token (← or PageUp)", go(() => at() - 1)),
        next: button("Next ▶", "Next token (→ or PageDown)", go(() => at() + 1), "ae-primary"),
        end: button("Run to end »", "Run to end (End)", go(() => viewer.trace.T)),
        play: button("▶ Play", "Play / pause (Space)", () => viewer.togglePlay())
      };
      this.pace = el("select", "ae-pace");
      this.pace.title = "Autoplay pace";
      PACES.forEach((p) => {
        const o = el("option", "", p + " s / token");
        o.value = p;
        this.pace.appendChild(o);
      });
      this.pace.value = "1";
      this.pace.addEventListener("change", () => {
        if (viewer.player.playing()) viewer.player.start(this.seconds());
      });
      this.slider = el("input", "ae-slider");
      Object.assign(this.slider, { type: "range", min: 0, step: 1 });
      this.slider.addEventListener("input", () => viewer.go(Number(this.slider.value), "slider"));
      this.stepLabel = el("span", "ae-step");
      this.element = el("div", "ae-toolbar");
      this.element.append(...Object.values(this.buttons), this.pace, this.slider, this.stepLabel);
    }
    seconds() {
      return Number(this.pace.value);
    }
    // the autoplay pace
    render(step, T, playing) {
      this.slider.max = T;
      this.slider.value = step;
      this.stepLabel.textContent = "Step " + step + " / " + T;
      this.buttons.prev.disabled = this.buttons.reset.disabled = step === 0;
      this.buttons.next.disabled = this.buttons.end.disabled = step === T;
      this.buttons.play.textContent = playing ? "⏸ Pause" : "▶ Play";
    }
  };

  // headview.js
  var HeadView = class {
    constructor(div) {
      this.div = div;
      this.chips = el("div", "ae-hv-chips");
      const canvas = this.canvas = document.createElement("canvas");
      canvas.setAttribute("role", "img");
      div.replaceChildren(this.chips, canvas);
      this.hovered = null;
      this.geom = null;
      this.on = null;
      this.last = null;
      const redraw = () => {
        if (this.last) this.draw({ trace: this.last[0] }, this.last[1]);
      };
      canvas.addEventListener("mousemove", (e) => {
        const g = this.geom;
        if (!g) return;
        const box = canvas.getBoundingClientRect();
        const x = e.clientX - box.left, y = e.clientY - box.top;
        const side = x < g.width / 2 ? "query" : "key";
        const n = Math.floor((y - g.top) / g.rowH);
        const count = side === "query" ? g.queries.length : g.keys.length;
        const focus = n >= 0 && n < count ? { side, index: n } : null;
        if (JSON.stringify(focus) !== JSON.stringify(this.hovered)) {
          this.hovered = focus;
          redraw();
        }
      });
      canvas.addEventListener("mouseleave", () => {
        this.hovered = null;
        redraw();
      });
      this.chips.addEventListener("click", (e) => {
        const chip2 = e.target.closest(".ae-hv-chip");
        if (!chip2) return;
        const h = Number(chip2.dataset.head);
        if (this.on.has(h)) this.on.delete(h);
        else this.on.add(h);
        redraw();
      });
    }
    // Draw the trace on screen at state. Returns a resolved promise.
    draw(context, state) {
      this.last = [context.trace, state];
      this.paint(this.canvas, context.trace, state);
      return Promise.resolve();
    }
    // Draw the head view of state.kind and state.layer at state.step on `canvas` (the page's, or one off screen for the
    // PNG at state.ratio), with the heads switched on in its chips (all, for a new model).
    paint(canvas, trace, state) {
      const { kind, layer, step: t } = state;
      if (!this.on || [...this.on].some((h) => h >= trace.H)) this.on = /* @__PURE__ */ new Set([...Array(trace.H).keys()]);
      const on = this.on;
      const font = fontSize();
      const [queries, keys] = trace.labels(kind, t);
      this.chips.replaceChildren(el("span", "ae-row-label", "Heads"), ...[...Array(trace.H).keys()].map((h) => {
        const chip2 = el("button", "ae-btn ae-hv-chip" + (on.has(h) ? " ae-on" : ""), "H" + h);
        chip2.type = "button";
        chip2.style.borderColor = headColor(h);
        chip2.style.background = on.has(h) ? headColor(h) : "white";
        chip2.style.color = on.has(h) && h % HEAD_COLORS.length !== 6 ? "white" : "#1f2937";
        chip2.dataset.head = h;
        chip2.title = "show or hide head " + h + "'s lines";
        return chip2;
      }));
      const top = font + 16, rowCount = Math.max(queries.length, keys.length, 1);
      const chipsH = this.chips.offsetHeight || font + 16;
      const rowH = Math.max(font + 4, (state.height - chipsH - top - 8) / rowCount);
      const height = top + rowCount * rowH + 8;
      const width = Math.max(320, this.div.clientWidth || 600);
      const ctx = sizeCanvas(canvas, width, height, state.ratio);
      ctx.fillStyle = "white";
      ctx.fillRect(0, 0, width, height);
      const leftX = width * 0.32, rightX = width * 0.68;
      const yOf = (n) => top + (n + 0.5) * rowH;
      ctx.font = "600 " + (font - 1) + "px " + FAMILY;
      ctx.fillStyle = "#475569";
      ctx.textAlign = "right";
      const queriesTitle = AXIS_TITLES[kind][0].replace(" (query)", "");
      ctx.fillText(ctx.measureText(queriesTitle).width <= leftX - 12 ? queriesTitle : "query", leftX - 8, font);
      ctx.textAlign = "left";
      ctx.fillText(AXIS_TITLES[kind][1].replace(" (key)", ""), rightX + 8, font);
      const focus = this.hovered;
      const strongest = [];
      const rows = [...Array(trace.H).keys()].filter((h) => on.has(h)).map((h) => [h, trace.weights(kind, layer, h, t)]);
      ctx.lineWidth = 2;
      for (const [h, weights] of rows) {
        ctx.strokeStyle = headColor(h);
        let best = null;
        weights.forEach((row, i) => row.forEach((w, j) => {
          if (w === null || w < 0.01) return;
          if (focus && !(focus.side === "query" && focus.index === i || focus.side === "key" && focus.index === j)) return;
          ctx.globalAlpha = Math.min(1, w);
          ctx.beginPath();
          ctx.moveTo(leftX + 4, yOf(i));
          ctx.lineTo(rightX - 4, yOf(j));
          ctx.stroke();
          if (!best || w > best.w) best = { i, j, w };
        }));
        if (best) strongest.push(headName(layer, h) + ": “" + queries[best.i] + "” → “" + keys[best.j] + "” " + best.w.toFixed(2));
      }
      ctx.globalAlpha = 1;
      ctx.font = font + "px " + FAMILY;
      ctx.textBaseline = "middle";
      const label2 = (text, x, y, align, active, current) => {
        ctx.textAlign = align;
        ctx.fillStyle = active ? "#1f2937" : "#94a3b8";
        ctx.font = (current ? "700 " : "") + font + "px " + FAMILY;
        ctx.fillText(text, x, y);
      };
      queries.forEach((q, i) => label2(q, leftX - 8, yOf(i), "right", !focus || focus.side === "query" && focus.index === i || focus.side === "key", kind !== "encoder_self" && i === t - 1));
      keys.forEach((k, j) => label2(k, rightX + 8, yOf(j), "left", !focus || focus.side === "key" && focus.index === j || focus.side === "query", false));
      this.geom = { width, top, rowH, queries, keys };
      const hovered = focus ? " Hovering “" + (focus.side === "query" ? queries : keys)[focus.index] + "” (" + focus.side + " " + focus.index + "): its lines only." : "";
      canvas.setAttribute("aria-label", KIND_TITLES[kind] + " · layer " + layer + " · head view · heads " + [...on].sort((p, q) => p - q).join(", ") + (kind === "encoder_self" ? "" : " · step " + t) + ". Lines from queries (left) to keys (right)." + hovered + " Strongest: " + (strongest.join("; ") || "none") + ".");
    }
    // The head view as a picture that explains itself (the PNG button), drawn again at twice the size: `header` lines
    // (the sentence, the step), a title and a key of the heads' colours above the lines.
    png(header) {
      const [trace, state] = this.last, ratio = 2;
      const lines = document.createElement("canvas");
      this.paint(lines, trace, Object.assign({}, state, { ratio }));
      const font = fontSize();
      const heads = [...this.on].sort((p, q) => p - q);
      const key = belowBand(lines, 2 * font + 24, ratio, (ctx) => {
        ctx.font = "600 " + (font + 1) + "px " + FAMILY;
        const step = state.kind === "encoder_self" ? "" : " · step " + state.step;
        ctx.fillText(KIND_TITLES[state.kind] + " · layer " + state.layer + " · head view" + step, 6, font);
        ctx.font = font + "px " + FAMILY;
        let x = 6;
        heads.forEach((h) => {
          ctx.fillStyle = headColor(h);
          ctx.fillRect(x, 2 * font + 4, 14, 14);
          ctx.fillStyle = "#1f2937";
          ctx.fillText("H" + h, x + 18, 2 * font + 11);
          x += ctx.measureText("H" + h).width + 34;
        });
        ctx.fillText("line opacity = weight", x + 10, 2 * font + 11);
      });
      return withHeader(key, header, ratio);
    }
  };
  var VIEW2 = {
    id: "headview",
    label: "Head view",
    tip: "As in BertViz: a line from every query token to every key token, as opaque as its weight, one colour per head",
    className: "ae-headview",
    controls: ["kind", "layer"],
    caption: () => "Head view (as in BertViz): each line joins a query token (left) to a key token (right); its opacity is the weight, its colour the head. Weights under 0.01 are not drawn. It shows where each head looked at this step, not what the head passed on (the values) nor how the layers combine it.",
    create: (div) => new HeadView(div)
  };

  // plot.js
  function tokenAxis(labels, title2, font) {
    return {
      title: { text: title2 },
      tickmode: "array",
      tickvals: labels.map((_, i) => i),
      ticktext: labels.map(escape),
      tickfont: { size: font },
      showgrid: false,
      zeroline: false,
      automargin: true
    };
  }
  function tokenTicks(values, texts, room, size) {
    const font = Math.max(textFloor(), size);
    const every = Math.max(1, Math.ceil((font + 2) / (room / Math.max(1, values.length))));
    const kept = values.map((_, i) => i).filter((i) => i % every === 0);
    return { tickmode: "array", tickvals: kept.map((i) => values[i]), ticktext: kept.map((i) => texts[i]), tickfont: { size: font } };
  }
  function layout2(title2, height, font, extra) {
    return Object.assign({
      title: { text: title2, x: 0.01, xanchor: "left", font: { size: font + 1 } },
      font: { size: font },
      margin: { l: 10, r: 10, t: 34 + font, b: 10 },
      plot_bgcolor: "white",
      paper_bgcolor: "white",
      height
    }, extra || {});
  }
  var CONFIG = {
    displaylogo: false,
    responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
    toImageButtonOptions: { format: "png", scale: 2, filename: "attention" }
  };
  function plotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    const url = SETTINGS.ASSETS.plotly;
    let script = document.querySelector("script[data-ae-plotly]");
    if (!script) {
      script = document.createElement("script");
      script.dataset.aePlotly = "loading";
      script.src = url;
      script.addEventListener("error", () => script.remove());
      document.head.appendChild(script);
    }
    return new Promise((resolve, reject) => {
      script.addEventListener("load", () => resolve(window.Plotly));
      script.addEventListener("error", () => reject(new Error("plotly.js could not be loaded")));
    });
  }
  function react(div, data, chartLayout) {
    return plotly().then((Plotly) => Plotly.react(div, data, chartLayout, CONFIG));
  }
  function drawMessage(div, text, height) {
    return react(div, [], layout2("", height, fontSize(), {
      xaxis: { visible: false },
      yaxis: { visible: false },
      annotations: [{ text: escape(text), showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5, font: { size: fontSize() + 2 } }]
    }));
  }
  function plotPng(div, header) {
    return plotly().then((Plotly) => Plotly.toImage(div, { format: "png", scale: 2 })).then((url) => new Promise((resolve) => {
      const img = new Image();
      img.onload = () => resolve(img);
      img.src = url;
    })).then((img) => {
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      c.getContext("2d").drawImage(img, 0, 0);
      return withHeader(c, header, 2);
    });
  }
  function textAbovePlot(div, name) {
    const text = el("div", "ae-" + name + "-text");
    const plot = el("div", "ae-plot ae-" + name + "-plot");
    div.replaceChildren(text, plot);
    return { text, plot };
  }

  // answers.js
  var BUSY_RETRY_MS = 1e3;
  var NEEDS_SERVER = "This needs the server (it computes from the model): open the app rather than the exported page.";
  function keyOf(question2) {
    return JSON.stringify(question2);
  }
  var Answers = class {
    // `store`: the viewer's store; `online`: a server to ask; `ownModel()`: the key of the model this page trained.
    constructor(store, online, ownModel) {
      this.store = store;
      this.online = online;
      this.ownModel = ownModel;
      this.asking = /* @__PURE__ */ new Set();
      this.about = null;
    }
    // Asked again (a person pressed the button again): a refusal is not kept, since it may have been a busy server's;
    // an answer is.
    again(question2) {
      const s = this.store.get(), key = keyOf(question2), answer2 = s.answers[key];
      if (answer2 && answer2.error) {
        const answers = Object.assign({}, s.answers);
        delete answers[key];
        this.store.set({ answers }, "again");
      }
    }
    // The answer to `question` about the trace on screen, or null while it is asked (asked now if it was not). A busy
    // server's refusal (429: too many at once) is asked again at the next drawing a second or more later.
    get(question2) {
      const s = this.store.get(), key = keyOf(question2), kept = s.answers[key];
      if (kept && !(kept.busy && Date.now() - kept.busy >= BUSY_RETRY_MS && !this.asking.has(key))) return kept;
      if (!this.online) return { error: NEEDS_SERVER };
      if (this.about !== s.trace) {
        this.about = s.trace;
        this.asking.clear();
      }
      if (this.asking.has(key)) return null;
      this.asking.add(key);
      const trace = s.trace;
      api.ask(trace.request, question2, this.ownModel()).catch((error) => Object.assign({ what: question2.what, error: error.message }, error.status === 429 ? { busy: Date.now() } : {})).then((answer2) => {
        const now = this.store.get();
        if (now.trace !== trace) return;
        this.asking.delete(key);
        this.store.set({ answers: Object.assign({}, now.answers, { [key]: answer2 }) }, "answer");
      });
      return null;
    }
  };

  // roles.js
  var ROLES_QUESTION = { what: "roles" };
  var SHORT2 = {
    "previous token": "prev",
    self: "self",
    "next token": "next",
    positional: "pos",
    "rare word": "rare",
    "end-of-sentence sink": "sink",
    punctuation: "punct",
    broad: "broad",
    alignment: "align"
  };
  function rolesFor(trace, ask) {
    const key = !trace || trace.modelKey === "shipped" ? DEFAULT_MODEL : trace.modelKey;
    const served = SETTINGS.MODELS.find((m) => m.key === key);
    if (served && served.roles) return served.roles;
    return ask ? ask(ROLES_QUESTION) : null;
  }
  function rolesIn(state) {
    const answer2 = state && state.answers ? state.answers[keyOf(ROLES_QUESTION)] : null;
    return answer2 && !answer2.error ? answer2 : null;
  }
  function roleOf(answer2, kind, layer, head) {
    if (!answer2 || !answer2.heads) return null;
    const found = answer2.heads.find((h) => h.kind === kind && h.layer === layer && h.head === head);
    if (!found) return null;
    return { role: found.role, says: found.says, short: found.role ? SHORT2[found.role] || found.role : null };
  }

  // mosaic.js
  function draw(div, trace, state, roles) {
    const { kind, step: t, height } = state;
    const best = trace.model.best_head;
    const font = fontSize();
    const [queries, keys] = trace.labels(kind, t);
    if (queries.length === 0) return drawMessage(div, "No target token yet: press → (Next) to produce the first one.", height);
    const L = trace.nLayers(kind), H = trace.H, q = queries.length, k = keys.length;
    const rows = L * (q + 1) - 1, cols = H * (k + 1) - 1;
    const z = [], custom = [];
    for (let r = 0; r < rows; r++) {
      z.push(new Array(cols).fill(null));
      custom.push(new Array(cols).fill(null));
    }
    const masked = z.map((row) => row.slice());
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const w = trace.head(kind, l, h, t);
        for (let i = 0; i < q; i++) {
          for (let j = 0; j < k; j++) {
            const r = l * (q + 1) + i, c = h * (k + 1) + j;
            if (w[i][j] === null) masked[r][c] = 1;
            else z[r][c] = w[i][j];
            custom[r][c] = [headName(l, h), escape(queries[i]), escape(keys[j])];
          }
        }
      }
    }
    const data = [];
    if (kind === "decoder_self") {
      data.push({ type: "heatmap", z: masked, colorscale: [[0, COLORS.masked], [1, COLORS.masked]], showscale: false, hoverinfo: "skip" });
    }
    data.push({
      type: "heatmap",
      z,
      customdata: custom,
      zmin: 0,
      zmax: 1,
      colorscale: COLORS.scale,
      hoverongaps: false,
      hovertemplate: "%{customdata[0]}<br>query: %{customdata[1]}<br>key: %{customdata[2]}<br>weight %{z:.4f}<extra></extra>",
      colorbar: { title: { text: "weight", side: "right" }, thickness: 12 }
    });
    const annotations = [];
    for (let h = 0; h < H; h++) annotations.push({ x: h * (k + 1) + (k - 1) / 2, y: 1, yref: "paper", yanchor: "bottom", text: "H" + h, showarrow: false });
    for (let l = 0; l < L; l++) annotations.push({ x: 0, xref: "paper", xanchor: "right", y: l * (q + 1) + (q - 1) / 2, text: "L" + l, showarrow: false });
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const role = roleOf(roles, kind, l, h);
        if (!role || !role.short) continue;
        annotations.push({
          x: h * (k + 1) - 0.5,
          y: l * (q + 1) - 0.5,
          xanchor: "left",
          yanchor: "top",
          text: role.short,
          showarrow: false,
          bgcolor: "rgba(255,255,255,0.85)",
          font: { size: Math.max(12, font - 4), color: "#111" },
          hovertext: role.says,
          captureevents: false
        });
      }
    }
    const chartLayout = layout2(KIND_TITLES[kind] + ": every layer × head" + (kind === "encoder_self" ? "" : " · step " + t), height, font, {
      xaxis: { showticklabels: false, ticks: "", showgrid: false, zeroline: false, title: { text: "heads 0.." + (H - 1) + " (keys)" }, range: [-0.5, cols - 0.5] },
      // the axis title stands off to the left of the layer labels ("L0".."L5"), which sit in the margin beside the tiles
      yaxis: {
        showticklabels: false,
        ticks: "",
        showgrid: false,
        zeroline: false,
        autorange: "reversed",
        automargin: true,
        title: { text: "layers 0.." + (L - 1) + " (queries)", standoff: Math.round(1.8 * font) }
      },
      annotations,
      margin: { l: 40, r: 10, t: 50 + font, b: 30 }
    });
    if (best && best.kind === kind) {
      chartLayout.shapes = [{
        type: "rect",
        x0: best.head * (k + 1) - 0.5,
        x1: best.head * (k + 1) + k - 0.5,
        y0: best.layer * (q + 1) - 0.5,
        y1: best.layer * (q + 1) + q - 0.5,
        line: { color: COLORS.chosen, width: 3 }
      }];
    }
    return react(div, data, chartLayout);
  }
  function mosaicCell(trace, kind, t, point) {
    const [queries, keys] = trace.labels(kind, t);
    const q = queries.length, k = keys.length;
    const l = Math.floor(point.y / (q + 1)), h = Math.floor(point.x / (k + 1));
    if (point.y % (q + 1) === q || point.x % (k + 1) === k) return null;
    return { layer: l, head: h };
  }
  var Mosaic = class {
    constructor(div) {
      this.div = div;
      this.last = null;
      this.onClick = (event) => {
        const [t, s] = this.last;
        const cell2 = mosaicCell(t, s.kind, s.step, event.points[0]);
        if (cell2) emit(this.div, "ae-select", { view: "heatmap", layer: cell2.layer, head: cell2.head });
      };
    }
    draw(context, state) {
      this.last = [context.trace, state];
      return draw(this.div, context.trace, state, rolesFor(context.trace, context.ask)).then(() => this.bindClicks());
    }
    // A click on a tile asks for that layer and head in the heatmap ("ae-select"). Bound after Plotly.react has made the
    // div a chart (before it, div.on does not exist), and again after every draw (a new plot drops its listeners): one
    // listener, never a stale one.
    bindClicks() {
      this.div.removeListener("plotly_click", this.onClick);
      this.div.on("plotly_click", this.onClick);
    }
    png(header) {
      return plotPng(this.div, header);
    }
  };
  var VIEW3 = {
    id: "mosaic",
    label: "All heads",
    tip: "Every layer × head of one kind as small heatmaps, the best-aligning head outlined; click a tile to open it",
    className: "ae-plot ae-mosaic",
    controls: ["kind"],
    caption: () => "",
    create: (div) => new Mosaic(div)
  };

  // mask.js
  var STAGES = ["1. raw scores q·k/√d_k", "2. future set to −∞", "3. softmax weights"];
  var SHORT3 = ["1. q·k/√d_k", "2. masked", "3. softmax"];
  function scoreColor(lim) {
    const ends = { pos: [178, 24, 43], neg: [33, 102, 172] };
    return (v) => {
      const f = Math.max(-1, Math.min(1, v / lim)), end = f >= 0 ? ends.pos : ends.neg, a = Math.abs(f);
      return "rgb(" + end.map((c) => Math.round(255 - a * (255 - c))).join(",") + ")";
    };
  }
  function stagesSpec(trace, layer, head, t, height) {
    const [rows, columns] = trace.labels("decoder_self", t);
    const scores = t ? trace.scoresAt(layer, head, t) : [];
    const weights = t ? trace.head("decoder_self", layer, head, t) : [];
    let lim = 0;
    scores.forEach((r) => r.forEach((v) => {
      lim = Math.max(lim, Math.abs(v));
    }));
    lim = Math.ceil((lim || 1) * 10) / 10;
    const allowed = scores.map((r, i) => r.map((v, j) => j > i ? null : v));
    const z = [scores, allowed, weights];
    const what = ["score", "score", "weight"];
    return {
      titles: [
        "Decoder self-attention · " + headName(layer, head) + " · step " + t + ": scores → mask → softmax",
        "Decoder self · " + headName(layer, head) + " · step " + t,
        headName(layer, head) + " · t=" + t
      ],
      rows,
      columns,
      panels: STAGES.map((name, k) => ({ name, short: SHORT3[k], z: z[k], scale: k === 2 ? 1 : 0 })),
      scales: [{
        label: "score",
        min: -lim,
        max: lim,
        color: scoreColor(lim),
        masked: false,
        ticks: [-lim, -lim / 2, 0, lim / 2, lim],
        format: (v) => v.toFixed(1)
      }, weightScale(1, true)],
      rowTitles: ["decoder input → token it produces (query)", "query", ""],
      columnTitles: ["decoder input so far (key)", "key"],
      current: t - 1,
      font: fontSize(),
      height,
      empty: "No target position yet: press → (Next).",
      describe: (p, i, j) => {
        const k = STAGES.indexOf(p.name), v = p.z[i][j];
        const value = v === null ? k === 1 ? "−∞ (the future)" : "exactly 0 (masked)" : what[k] + " " + v.toFixed(k === 2 ? 4 : 3);
        return p.name + " · query: " + rows[i] + " · key: " + columns[j] + " · " + value;
      },
      aria: "The look-ahead mask at step " + t + ", layer " + layer + ", head " + head + ": " + STAGES.join(", ") + "."
    };
  }
  function drawCaption(box, trace, layer, head, t) {
    const swatch = (color) => {
      const span2 = document.createElement("span");
      span2.className = "ae-swatch";
      span2.style.background = color;
      return span2;
    };
    const legend = document.createElement("div");
    legend.className = "ae-mask-legend";
    legend.append(
      swatch(COLORS.masked),
      "blocked: set to −∞ before the softmax, so its weight is exactly 0; ",
      "coloured: allowed, the query may look at this key (itself and the positions before it)"
    );
    const why = document.createElement("p");
    why.className = "ae-mask-caption";
    if (t === 0) {
      why.textContent = "Why a mask: in training the decoder is given the whole " + trace.targetLanguage + " sentence at once; the mask lets each position look only at itself and the words before it, as when it writes one word at a time.";
    } else {
      const labels = trace.decoderInputTokens.slice(0, t);
      const last = trace.head("decoder_self", layer, head, t)[t - 1];
      const best = last.indexOf(Math.max(...last));
      why.textContent = "Why a mask: in training the decoder is given the whole " + trace.targetLanguage + " sentence at once; without the mask position i could read the word it has to predict. At step " + t + " the mask blocks " + t * (t - 1) / 2 + " of the " + t * t + " query–key pairs (every key right of its query). In " + headName(layer, head) + ", the first query “" + labels[0] + "” sees only itself (weight " + trace.head("decoder_self", layer, head, t)[0][0].toFixed(3) + "); the last, “" + labels[t - 1] + "”, sees all " + t + " and puts " + last[best].toFixed(3) + " on “" + labels[best] + "”.";
    }
    box.replaceChildren(legend, why);
  }
  var MaskView = class {
    constructor(div) {
      this.caption = document.createElement("div");
      this.caption.className = "ae-mask-text";
      const stages = document.createElement("div");
      stages.className = "ae-mask-stages";
      div.replaceChildren(this.caption, stages);
      this.stages = new Grid(stages);
    }
    // For state.layer's decoder self-attention and state.head (head 0 unless one head is chosen) the three stages, with
    // their legend and caption above.
    draw(context, state) {
      const trace = context.trace;
      const layer = Math.min(state.layer, trace.nLayers("decoder_self") - 1);
      const head = Number.isInteger(state.head) ? state.head : 0;
      drawCaption(this.caption, trace, layer, head, state.step);
      const height = Math.max(260, state.height - this.caption.offsetHeight - 4);
      return this.stages.draw(stagesSpec(trace, layer, head, state.step, height));
    }
    // The three stages as a picture for a slide, labels and scales included, at 2x, below `header`.
    png(header) {
      return this.stages.png(header, 2);
    }
  };
  var VIEW4 = {
    id: "mask",
    label: "Look-ahead mask",
    tip: "The decoder's mask in three stages: the scores q·k/√d_k, the future set to −∞, the softmax",
    className: "ae-mask",
    controls: ["layer", "head"],
    caption: () => "",
    create: (div) => new MaskView(div)
  };

  // compare.js
  var COMPARE_CAPTION = "Two decodes at the same step, kind, layer and head, and their difference A − B where the maps have the same shape. A difference compares weights position by position: it says nothing about tokens that moved (a different word order puts the same relation in another cell).";
  var COMPARE_KEY = "A − B: vermillion where A attends more, blue where B does.";
  function diffScale(values) {
    return {
      label: "A − B",
      min: -1,
      max: 1,
      color: (v) => blendOverWhite(signedFill(v, 1)),
      masked: values.some((r) => r.includes(null)),
      ticks: [-1, -0.5, 0, 0.5, 1],
      format: (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(1) + (v === 1 ? " A more" : v === -1 ? " B more" : "")
    };
  }
  function diffSpec(rows, columns, values, titles, height, current, both) {
    const panels = [{ name: "A − B", z: values, scale: 0 }];
    const scales = [diffScale(values)];
    if (both) {
      panels.unshift({ name: "A", z: both.a, scale: 1 }, { name: "B", z: both.b, scale: 1 });
      scales.push(weightScale(1, both.masked));
    }
    const said = (p, v) => v === null ? "masked" : p.name === "A − B" ? "A − B = " + (v >= 0 ? "+" : "") + v.toFixed(4) : p.name + " " + v.toFixed(4);
    return {
      titles,
      rows,
      columns,
      panels,
      scales,
      wrap: Boolean(both),
      rowTitles: ["query", ""],
      columnTitles: ["key", ""],
      current,
      font: fontSize() - 1,
      height,
      bare: Boolean(both),
      // the three in a short box: no axis title under the columns
      describe: (p, i, j) => "query: " + rows[i] + " · key: " + columns[j] + " · " + said(p, p.z[i][j]),
      aria: titles[0] + ". Rows: " + rows.join(" ") + ". Columns: " + columns.join(" ") + "."
    };
  }
  function blendOverWhite(rgba) {
    const [r, g, b, a] = rgba.match(/[\d.]+/g).map(Number);
    return "rgb(" + [r, g, b].map((c) => Math.round(255 - a * (255 - c))).join(",") + ")";
  }
  var STACK_BELOW = 900;
  var CompareView = class {
    constructor(div) {
      const input = el("input", "ae-compare-sentence");
      input.type = "text";
      input.placeholder = "second sentence (empty: the same sentence)";
      const model = el("select", "ae-compare-model");
      const choices = [["same", "same model"]].concat(SETTINGS.MODELS.map((m) => [m.key, m.name]), [["own", "the model trained here"]]);
      choices.forEach(([v, text]) => {
        const o = el("option", "", text);
        o.value = v;
        model.appendChild(o);
      });
      const go = el("button", "ae-btn ae-primary", "Compare");
      go.type = "button";
      const ask = () => emit(div, "ae-compare", { sentence: input.value, model: model.value });
      go.addEventListener("click", ask);
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter") ask();
      });
      this.bar = el("div", "ae-compare-bar");
      this.bar.append(el("span", "ae-row-label", "B:"), input, model, go);
      this.pair = el("div", "ae-compare-pair");
      const a = el("div", "ae-compare-map ae-compare-a"), b = el("div", "ae-compare-map ae-compare-b");
      this.pair.append(a, b);
      this.note = el("div", "ae-panel-note ae-compare-note");
      const diff = el("div", "ae-compare-diff");
      div.replaceChildren(this.bar, this.pair, diff, this.note);
      this.a = new Heatmap(a);
      this.b = new Heatmap(b);
      this.diff = new Grid(diff);
    }
    // Draw the trace on screen (A) and the second one (context.compare(): B, asked once Compare two is drawn) at
    // state's step, kind, layer and head; the refusal of the last B asked for is said beside B's form.
    draw(context, state) {
      const b = context.compare();
      const drawn = this.drawPair(context.trace, b.trace, state);
      this.note.classList.toggle("ae-panel-error", Boolean(b.error));
      if (b.error) this.note.textContent = b.error;
      return drawn;
    }
    drawPair(A, B, state) {
      const c = this, s = state, height = state.height;
      const head = s.head === "all" ? "mean" : s.head;
      const pairBox = c.pair;
      const stepB = B ? Math.min(s.step, B.T) : 0;
      const problems = [];
      if (B && s.layer >= B.nLayers(s.kind)) problems.push("B's model has no " + s.kind + " layer " + s.layer);
      if (B && Number.isInteger(head) && head >= B.H) problems.push("B's model has no head " + head);
      const showB = Boolean(B) && !problems.length;
      const [qa, ka] = A.labels(s.kind, s.step), [qb, kb] = showB ? B.labels(s.kind, stepB) : [[], []];
      const showDiff = showB && qa.length === qb.length && ka.length === kb.length && qa.length > 0;
      const same = B && B.request.sentence === A.request.sentence;
      const label2 = B ? "B: " + (same ? "the same sentence" : "“" + B.request.sentence + "”") + " (" + B.model.name + ")" : "";
      const stacked = showB && pairBox.clientWidth < STACK_BELOW;
      const together = stacked && showDiff;
      if (!B) {
        c.note.textContent = "Type a second sentence (or choose the other model) and press Compare: B is decoded once, then both follow the same step, kind, layer and head.";
      } else if (!showB) {
        c.note.textContent = "Cannot show B here: " + problems.join("; ") + ". Choose a layer and head both models have.";
      } else if (!showDiff) {
        c.note.textContent = label2 + ". No difference map: A is " + qa.length + " × " + ka.length + " here and B " + qb.length + " × " + kb.length + " (queries × keys); the two can only be compared side by side.";
      } else c.note.textContent = label2 + ". " + (together ? COMPARE_KEY : COMPARE_CAPTION);
      c.note.title = together ? COMPARE_CAPTION : "";
      pairBox.classList.toggle("ae-compare-single", !showB);
      pairBox.classList.toggle("ae-compare-stacked", stacked);
      pairBox.hidden = together;
      c.a.grid.div.hidden = together;
      c.b.grid.div.hidden = !showB || together;
      c.diff.div.hidden = !showDiff;
      const room = height - c.bar.offsetHeight - c.note.offsetHeight - 14;
      const half = !showB ? Math.max(150, room) : stacked ? Math.max(150, Math.floor((room - 8) / 2)) : Math.max(220, Math.round(height * 0.55));
      const drawn = [];
      if (!together) {
        drawn.push(c.a.draw(A, Object.assign({}, s, { head, height: half, label: "A", bare: stacked })));
        if (!showB) return Promise.all(drawn);
        drawn.push(c.b.draw(B, Object.assign({}, s, { head, step: stepB, height: half, label: "B", hideScale: !stacked, bare: stacked })));
      }
      if (!showDiff) return Promise.all(drawn);
      const wa = A.weights(s.kind, s.layer, head, s.step), wb = B.weights(s.kind, s.layer, head, stepB);
      const values = wa.map((row, i) => row.map((v, j) => v === null || wb[i][j] === null ? null : v - wb[i][j]));
      const rows = qa.map((q, i) => q === qb[i] ? q : q + " / " + qb[i]);
      const columns = ka.map((k, j) => k === kb[j] ? k : k + " / " + kb[j]);
      const which = Number.isInteger(head) ? "H" + head : head === "mean" ? "mean of heads" : head;
      const named = together ? "A, B and A − B" : "A − B";
      const where = s.kind === "encoder_self" ? "" : " · step " + s.step + (stepB !== s.step ? " (B: " + stepB + ")" : "");
      const titles = [named + " · " + KIND_TITLES[s.kind] + " · L" + s.layer + "·" + which + where, named + " · L" + s.layer + "·" + which];
      const both = together ? { a: wa, b: wb, masked: s.kind === "decoder_self" } : null;
      const diffHeight = together ? Math.max(200, room) : Math.max(200, height - half - 8);
      drawn.push(c.diff.draw(diffSpec(rows, columns, values, titles, diffHeight, s.kind === "encoder_self" ? -1 : s.step - 1, both)));
      return Promise.all(drawn);
    }
    // One canvas with what the Compare view shows (A and B side by side, A − B below) at 2x, with `header` above.
    png(header) {
      const shown = (g) => !g.div.hidden && g.spec ? g : null;
      const [a, b, diff] = [this.a.grid, this.b.grid, this.diff].map(shown);
      const pics = [a && a.png(header, 2), b && b.png([], 2), diff && diff.png([], 2)];
      const [pa, pb, pd] = pics;
      const out = document.createElement("canvas");
      const top = Math.max(pa ? pa.height : 0, pb ? pb.height : 0);
      out.width = Math.max((pa ? pa.width : 0) + (pb ? pb.width : 0), pd ? pd.width : 0);
      out.height = top + (pd ? pd.height : 0);
      const ctx = out.getContext("2d");
      ctx.fillStyle = "white";
      ctx.fillRect(0, 0, out.width, out.height);
      if (pa) ctx.drawImage(pa, 0, 0);
      if (pb) ctx.drawImage(pb, pa ? pa.width : 0, top - pb.height);
      if (pd) ctx.drawImage(pd, 0, top);
      return out;
    }
  };
  var VIEW5 = {
    id: "compare",
    label: "Compare two",
    tip: "Two decodes side by side at the same step and head (another sentence, or another model), and A − B",
    className: "ae-compare",
    controls: ["kind", "layer", "head"],
    caption: () => "",
    create: (div) => new CompareView(div)
  };

  // maskless.js
  var CAPTION = "The same small model trained twice, with and without the look-ahead mask. Without it, training lets each position read the next word, the one it must predict: the loss falls far lower, but when translating that word does not exist yet, and the model has learnt nothing else.";
  function draw2(parts2, context, state) {
    const { text, plot } = parts2;
    const font = fontSize(), height = state.height;
    const answer2 = context.ask({ what: "maskless" });
    if (!answer2 || answer2.error) {
      text.replaceChildren();
      const waiting = "Asking the server for the models trained with and without the look-ahead mask…";
      return drawMessage(plot, answer2 ? answer2.error : waiting, height);
    }
    const runs = answer2.runs, forced = answer2.forced;
    const line = (label2, value, className) => {
      const row = el("div", "ae-maskless-line " + (className || ""));
      row.append(el("b", "", label2 + " "), el("span", "", value));
      return row;
    };
    const said = (text2, run) => (text2 ? "“" + text2 + "”" : "nothing: its first word is </s>") + " · training loss at the end " + run.final_loss + ", validation loss " + run.valid_loss + ", chrF " + run.chrf;
    text.replaceChildren(
      line("With the mask:", said(answer2.translations.with_mask, runs.with_mask)),
      line("Without the mask:", said(answer2.translations.without_mask, runs.without_mask), "ae-maskless-bad"),
      line("Teacher-forced, as in training:", "the maskless model gets " + Math.round(100 * forced.accuracy) + "% of the next words right, reading them: its head " + headName(forced.layer, forced.head) + " puts " + forced.next_weight.toFixed(2) + " of its weight on the next position (outlined).")
    );
    const curve = (points, name, color) => ({
      type: "scatter",
      mode: "lines",
      name,
      x: points.map((p) => p[0]),
      y: points.map((p) => p[1]),
      line: { color, width: 2 },
      xaxis: "x",
      yaxis: "y"
    });
    const T = forced.inputs.length;
    const rows = forced.inputs.map((token, i) => escape(token + " → " + forced.targets[i]));
    const heat = {
      type: "heatmap",
      z: forced.weights,
      zmin: 0,
      zmax: 1,
      colorscale: COLORS.scale,
      xaxis: "x2",
      yaxis: "y2",
      x: [...Array(T).keys()],
      y: [...Array(T).keys()],
      customdata: forced.weights.map((r, i) => r.map((_, j) => [rows[i], escape(forced.inputs[j])])),
      hovertemplate: "query: %{customdata[0]}<br>key: %{customdata[1]}<br>weight %{z:.4f}<extra></extra>",
      colorbar: { title: { text: "weight", side: "right" }, thickness: 12, x: 1 }
    };
    const next = [...Array(T - 1).keys()].map((i) => ({
      type: "rect",
      xref: "x2",
      yref: "y2",
      x0: i + 0.5,
      x1: i + 1.5,
      y0: i - 0.5,
      y1: i + 0.5,
      line: { color: COLORS.chosen, width: 2 }
    }));
    const positions = [...Array(T).keys()];
    const tickFont = Math.max(8, Math.min(font - 3, Math.floor(plot.clientWidth * 0.38 / T * 0.7)));
    const chartLayout = layout2("Training loss · without the mask: decoder self-attention, " + headName(
      forced.layer,
      forced.head
    ), Math.max(240, height - text.offsetHeight - 6), font, {
      // the legend in the loss chart's empty corner: top right (the curves start high on the left and fall)
      showlegend: true,
      legend: { x: 0.3, y: 1, xanchor: "right", yanchor: "top", bgcolor: "rgba(255,255,255,0.8)" },
      xaxis: { domain: [0, 0.3], title: { text: "training step" }, zeroline: false },
      yaxis: { title: { text: "loss" }, zeroline: false, rangemode: "tozero" },
      xaxis2: Object.assign({
        domain: [0.55, 0.93],
        anchor: "y2",
        tickangle: -90,
        automargin: true,
        title: { text: "decoder input (key)", standoff: 6 }
      }, tokenTicks(positions, forced.inputs.map(escape), plot.clientWidth * 0.38, tickFont)),
      yaxis2: Object.assign(
        { anchor: "x2", autorange: "reversed", automargin: true },
        tokenTicks(positions, rows, Math.max(240, height - text.offsetHeight - 6) * 0.6, tickFont)
      ),
      shapes: next,
      margin: { l: 50, r: 10, t: 40 + font, b: 40 }
    });
    const data = [
      curve(answer2.losses.with_mask, "with the mask", COLORS.other),
      curve(answer2.losses.without_mask, "without the mask", COLORS.chosen),
      heat
    ];
    return react(plot, data, chartLayout);
  }
  var VIEW6 = {
    id: "maskless",
    label: "Without the mask",
    tip: "The same small model trained without the look-ahead mask: its loss, its translations, and how it cheats",
    className: "ae-maskless",
    controls: [],
    caption: () => CAPTION,
    create: (div) => {
      const parts2 = textAbovePlot(div, "maskless");
      return { draw: (context, state) => draw2(parts2, context, state), png: (header) => plotPng(parts2.plot, header) };
    }
  };

  // valuepath.js
  var DIVERGING = [[0, "#2166ac"], [0.25, "#67a9cf"], [0.5, "#f7f7f7"], [0.75, "#ef8a62"], [1, "#b2182b"]];
  var WEIGHTS = [[0, "#f7fbff"], [1, "#08306b"]];
  var CAPTION2 = "One head, one query, left to right: what the query reads (x, then LN(x)), where it looks (q against every key: the weights), what it carries (the values, summed with those weights into z), and how that joins the other heads (concatenated, through W_o, added back to x).";
  function parts(div) {
    const bar = el("div", "ae-valuepath-bar");
    const label2 = el("span", "ae-row-label", "Query (source token):");
    const select = el("select", "ae-valuepath-row");
    select.addEventListener("change", () => emit(div, "ae-redraw", {}));
    bar.append(label2, select);
    const plot = el("div", "ae-plot ae-valuepath-plot");
    div.replaceChildren(bar, plot);
    return { bar, select, plot, sentence: null };
  }
  function queryRow(trace, state, p) {
    if (state.kind !== "encoder_self") return state.step - 1;
    const tokens = trace.sourceTokens, select = p.select;
    if (select.options.length !== tokens.length || p.sentence !== trace.wire.request.sentence) {
      select.replaceChildren(...tokens.map((t, i) => {
        const o = el("option", "", i + ": " + t);
        o.value = i;
        return o;
      }));
      p.sentence = trace.wire.request.sentence;
    }
    return Number(select.value) || 0;
  }
  var GAP2 = { desk: 2.4, projector: 1.7 };
  function strip(values, x, span2, name) {
    const peak = Math.max(1e-12, ...values.map(Math.abs));
    const n = values.length;
    return {
      type: "heatmap",
      x0: x,
      dx: 1,
      y0: span2 / n / 2,
      dy: span2 / n,
      z: values.map((v) => [v / peak]),
      customdata: values.map((v, i) => [[name, i, v]]),
      zmin: -1,
      zmax: 1,
      colorscale: DIVERGING,
      showscale: false,
      hovertemplate: "%{customdata[0]} [%{customdata[1]}] = %{customdata[2]:.4f}<extra></extra>"
    };
  }
  function block(rows, x, span2, name, tokens, kw) {
    const n = rows[0].length, peak = Math.max(1e-12, ...rows.flat().map(Math.abs));
    const z = [...Array(n).keys()].map((d) => rows.map((r) => r[d] / peak));
    const custom = [...Array(n).keys()].map((d) => rows.map((r, j) => [name + " of " + escape(tokens[j]), d, r[d]]));
    return {
      type: "heatmap",
      x0: x + (kw - 1) / 2,
      dx: kw,
      y0: span2 / n / 2,
      dy: span2 / n,
      z,
      customdata: custom,
      zmin: -1,
      zmax: 1,
      colorscale: DIVERGING,
      showscale: false,
      hovertemplate: "%{customdata[0]} [%{customdata[1]}] = %{customdata[2]:.4f}<extra></extra>"
    };
  }
  function draw3(p, context, state) {
    const { bar, plot } = p;
    const trace = context.trace, font = fontSize(), height = state.height;
    bar.hidden = state.kind !== "encoder_self";
    if (!Number.isInteger(state.head)) return drawMessage(plot, "The value path is one head's: choose a head (0–" + (trace.H - 1) + ").", height);
    if (state.kind !== "encoder_self" && state.step === 0) return drawMessage(plot, "No query yet: press → (Next) to take the first step.", height);
    const row = queryRow(trace, state, p);
    const answer2 = context.ask({ what: "value_path", kind: state.kind, layer: state.layer, head: state.head, row });
    if (!answer2 || answer2.error) return drawMessage(plot, answer2 ? answer2.error : "Asking the server for the head's tensors…", height);
    const D = answer2.d_model, Dh = answer2.d_head, K = answer2.keys.length, span2 = 100;
    const small = Math.max(9, font - 4), labelFont = Math.max(10, font - 2);
    const gap = presenting() ? GAP2.projector : GAP2.desk;
    const build = (kw2) => {
      const data2 = [], annotations2 = [];
      let x2 = 0;
      let titles = 0;
      const title2 = (at, text) => annotations2.push({
        x: at,
        y: 0,
        yanchor: "bottom",
        text,
        showarrow: false,
        font: { size: labelFont },
        yshift: titles++ % 3 * (labelFont + 6)
      });
      const column = (values, name, size, hoverName) => {
        data2.push(strip(values, x2, span2, hoverName || name));
        title2(x2, escape(name) + " (" + size + ")");
        x2 += 1;
      };
      const then = (text) => {
        if (text) annotations2.push({ x: x2 - 0.5 + gap / 2, y: span2 / 2, text: escape(text), textangle: -90, showarrow: false, font: { size: labelFont } });
        x2 += gap;
      };
      if (answer2.embedding) {
        column(answer2.embedding, "emb·√d", D, "embedding · √d_model");
        then("+");
        column(answer2.position, "PE", D, "positional encoding PE(" + row + ")");
        then("=");
      }
      column(answer2.x, "x", D);
      if (answer2.norm_first) {
        then("LayerNorm");
        column(answer2.normed, "LN(x)", D);
      }
      then("× W_q of H" + answer2.head);
      column(answer2.query, "q", Dh, "query of head " + answer2.head);
      then("q·k / √" + Dh);
      const keysAt2 = x2;
      data2.push(block(answer2.keys, x2, span2, "key", answer2.key_tokens, kw2));
      title2(x2 + (K * kw2 - 1) / 2, "keys k (" + K + " × " + Dh + ")");
      x2 += K * kw2;
      then("softmax → weights");
      const valuesAt2 = x2;
      data2.push(block(answer2.values, x2, span2, "value", answer2.key_tokens, kw2));
      title2(x2 + (K * kw2 - 1) / 2, "values v (" + K + " × " + Dh + ")");
      x2 += K * kw2;
      then("Σ w·v");
      column(answer2.z, "z", Dh, "z = Σ w·v of head " + answer2.head);
      then("with the other heads");
      const concatAt2 = x2;
      column(answer2.concat, "heads", D, "the heads concatenated");
      then("× W_o + b");
      column(answer2.out, "out", D, "W_o · heads + b");
      then(answer2.norm_first ? "+ x" : "+ x, LayerNorm");
      column(answer2.residual, answer2.norm_first ? "x+out" : "LN(x+out)", D, "the residual stream after the sublayer");
      data2.push({
        type: "heatmap",
        x0: valuesAt2 + (kw2 - 1) / 2,
        dx: kw2,
        y0: span2 * 1.24,
        dy: span2 * 0.06,
        z: [answer2.weights],
        zmin: 0,
        zmax: 1,
        colorscale: WEIGHTS,
        showscale: false,
        customdata: [answer2.key_tokens.map(escape)],
        hovertemplate: "weight on %{customdata}: %{z:.4f}<extra></extra>"
      });
      return { data: data2, annotations: annotations2, x: x2, keysAt: keysAt2, valuesAt: valuesAt2, concatAt: concatAt2, kw: kw2 };
    };
    const W = plot.clientWidth - 20, need = textFloor() / 0.9;
    let built = build(1);
    const fixed = built.x + 0.4 - 2 * K;
    if (W / (built.x + 0.4) < need && W > 2 * K * need && (W - 2 * K * need) / fixed >= (labelFont + 2) / gap) {
      built = build(need * fixed / (W - 2 * K * need));
    }
    const { data, annotations, x, keysAt, valuesAt, concatAt, kw } = built;
    const keyFont = Math.min(small, Math.floor(W / (x + 0.4) * kw * 0.9));
    if (keyFont >= textFloor()) {
      answer2.weights.forEach((w, j) => {
        annotations.push({ x: valuesAt + (kw - 1) / 2 + j * kw, y: span2 * 1.02, yanchor: "top", text: w.toFixed(2).replace(/^0/, ""), textangle: -90, showarrow: false, font: { size: keyFont } });
        annotations.push({ x: keysAt + (kw - 1) / 2 + j * kw, y: span2 * 1.02, yanchor: "top", text: escape(answer2.key_tokens[j]), textangle: -90, showarrow: false, font: { size: keyFont } });
      });
    }
    const slice = { type: "rect", x0: concatAt - 0.5, x1: concatAt + 0.5, y0: answer2.head * span2 / answer2.x.length * Dh, y1: (answer2.head + 1) * span2 / answer2.x.length * Dh, line: { color: "#D55E00", width: 2 } };
    const where = state.kind === "encoder_self" ? "source token " + escape(answer2.row_token) : "step " + state.step + " (→ " + escape(answer2.row_token) + ")";
    const chartLayout = layout2("Value path · " + state.kind + " " + headName(answer2.layer, answer2.head) + " · query: " + where, height, font, {
      xaxis: { visible: false, range: [-0.7, x - 0.3] },
      // x: just past the last column
      yaxis: { visible: false, autorange: false, range: [span2 * 1.3, -span2 * 0.28] },
      annotations,
      shapes: [slice],
      margin: { l: 24, r: 40, t: 40 + font, b: 10 }
    });
    return react(plot, data, chartLayout);
  }
  var VIEW7 = {
    id: "valuepath",
    label: "Value path",
    tip: "What one head carries for one query: x, LN(x), q, k, the weights, v and z = Σ w·v back into the residual",
    className: "ae-valuepath",
    controls: ["kind", "layer", "head"],
    caption: () => CAPTION2,
    create: (div) => {
      const p = parts(div);
      return { draw: (context, state) => draw3(p, context, state), png: (header) => plotPng(p.plot, header) };
    }
  };

  // lens.js
  var CAPTION3 = "Each decoder layer's output, read as if it were the last: through the final LayerNorm and the output projection. Outlined: the token the model finally chose. The row where it first leads is where the model has decided; the last row is its own next-token distribution.";
  function lensOf(trace, ask) {
    const lens = trace.wire.lens || ask({ what: "lens" });
    if (lens && !lens.error) trace.wire.lens = lens;
    return lens;
  }
  function draw4(div, context, state) {
    const trace = context.trace, t = state.step, font = fontSize(), height = state.height;
    const lens = lensOf(trace, context.ask);
    if (!lens || lens.error) return drawMessage(div, lens ? lens.error : "Asking the server for the logit lens…", height);
    if (t === 0) return drawMessage(div, "No step yet: press → (Next) to see what each layer would predict.", height);
    const L = lens.top_probs.length, K = lens.top_probs[0][0].length, chosen = trace.steps[t - 1];
    const rows = [...Array(L).keys()].map((l) => "layer " + l + (l === L - 1 ? " (the output)" : ""));
    const z = [], text = [], custom = [], shapes = [];
    for (let l = 0; l < L; l++) {
      const probs = lens.top_probs[l][t - 1], tokens = lens.top_tokens[l][t - 1], ids = lens.top_ids[l][t - 1];
      z.push(probs.concat([lens.chosen[l][t - 1]]));
      text.push(tokens.map((tok, r) => escape(tok) + "<br>" + probs[r].toFixed(2)).concat([escape(chosen.token) + "<br>" + lens.chosen[l][t - 1].toFixed(2)]));
      custom.push(tokens.map((tok) => escape(tok)).concat([escape(chosen.token)]));
      ids.forEach((id, r) => {
        if (id === chosen.id) shapes.push({ type: "rect", x0: r - 0.5, x1: r + 0.5, y0: l - 0.5, y1: l + 0.5, line: { color: COLORS.chosen, width: 3 } });
      });
    }
    const columns = [...Array(K).keys()].map((r) => "#" + (r + 1)).concat(["chosen"]);
    const data = [{
      type: "heatmap",
      z,
      text,
      texttemplate: "%{text}",
      customdata: custom,
      zmin: 0,
      zmax: 1,
      colorscale: COLORS.scale,
      textfont: { size: Math.max(10, font - 2) },
      xgap: 2,
      ygap: 2,
      hovertemplate: "%{y} · %{x}: %{customdata} %{z:.4f}<extra></extra>",
      colorbar: { title: { text: "probability", side: "right" }, thickness: 12 }
    }];
    const chartLayout = layout2("Logit lens · step " + t + " · chosen: " + escape(chosen.token), height, font, {
      xaxis: { tickmode: "array", tickvals: [...Array(K + 1).keys()], ticktext: columns, side: "bottom", showgrid: false, zeroline: false, automargin: true },
      yaxis: { tickmode: "array", tickvals: [...Array(L).keys()], ticktext: rows, autorange: "reversed", showgrid: false, zeroline: false, automargin: true },
      shapes: shapes.concat([{ type: "line", x0: K - 0.5, x1: K - 0.5, y0: -0.5, y1: L - 0.5, line: { color: "#333", width: 2 } }]),
      margin: { l: 10, r: 10, t: 40 + font, b: 10 }
    });
    return react(div, data, chartLayout);
  }
  var VIEW8 = {
    id: "lens",
    label: "Logit lens",
    tip: "What each decoder layer would write if it were the last, and from which layer the chosen token leads",
    className: "ae-plot ae-lens",
    controls: [],
    caption: () => CAPTION3,
    create: (div) => ({ draw: (context, state) => draw4(div, context, state), png: (header) => plotPng(div, header) })
  };

  // qkspace.js
  var LINES = 3;
  var CAPTION4 = "The head's queries (vermillion circles; this step's is the large one) and keys (blue diamonds) projected together onto their two main directions. Lines: this step's query to its strongest keys, as thick as their weights (hover any point for its token). Nearness is only part of the story: the weight is the dot product q·k, which the plane shows only in part.";
  function draw5(div, context, state) {
    const trace = context.trace, font = fontSize(), height = state.height;
    if (!Number.isInteger(state.head)) return drawMessage(div, "Queries and keys are one head's: choose a head (0–" + (trace.H - 1) + ").", height);
    const answer2 = context.ask({ what: "qk_space", kind: state.kind, layer: state.layer, head: state.head });
    if (!answer2 || answer2.error) return drawMessage(div, answer2 ? answer2.error : "Asking the server for the head's queries and keys…", height);
    const encoder = state.kind === "encoder_self";
    const row = encoder ? null : state.step - 1;
    const rows = encoder ? answer2.query_points.length : Math.max(0, state.step);
    const weights = row === null || row < 0 ? null : answer2.weights[row];
    const keyText = answer2.key_tokens.map((t, j) => escape(t) + (weights ? " " + weights[j].toFixed(2) : ""));
    const data = [
      {
        type: "scatter",
        mode: "markers",
        name: "keys",
        x: answer2.key_points.map((p) => p[0]),
        y: answer2.key_points.map((p) => p[1]),
        marker: { symbol: "diamond", size: 10, color: COLORS.other },
        customdata: keyText,
        hovertemplate: "key %{customdata}<extra></extra>"
      },
      {
        type: "scatter",
        mode: "markers",
        name: "queries",
        x: answer2.query_points.slice(0, rows).map((p) => p[0]),
        y: answer2.query_points.slice(0, rows).map((p) => p[1]),
        text: answer2.query_tokens.slice(0, rows).map(escape),
        marker: { symbol: "circle", size: 8, color: COLORS.chosen, opacity: 0.55 },
        hovertemplate: "query %{text}<extra></extra>"
      }
    ];
    const shapes = [], labels = [];
    if (weights) {
      const q = answer2.query_points[row];
      const strongest = weights.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, LINES);
      strongest.forEach(([w, j]) => {
        const k = answer2.key_points[j];
        shapes.push({ type: "line", x0: q[0], y0: q[1], x1: k[0], y1: k[1], line: { color: COLORS.chosen, width: 1 + 8 * w }, layer: "below" });
      });
      labels.push(...strongest.map(([w, j]) => ({
        x: answer2.key_points[j][0],
        y: answer2.key_points[j][1],
        text: escape(answer2.key_tokens[j]) + " " + w.toFixed(2),
        showarrow: false,
        yshift: 12,
        font: { size: Math.max(10, font - 2), color: COLORS.other }
      })));
      labels.push({ x: q[0], y: q[1], text: escape(answer2.query_tokens[row]), showarrow: false, yshift: -16, font: { size: Math.max(10, font - 2), color: COLORS.chosen } });
      data.push({
        type: "scatter",
        mode: "markers",
        name: "this step's query",
        x: [q[0]],
        y: [q[1]],
        marker: { symbol: "circle", size: 16, color: COLORS.chosen, line: { color: "black", width: 2 } },
        hovertemplate: "query " + escape(answer2.query_tokens[row]) + " (this step)<extra></extra>"
      });
    }
    const share = answer2.explained.map((v) => Math.round(100 * v) + "%");
    const chartLayout = layout2("Q·K space · " + state.kind + " " + headName(answer2.layer, answer2.head) + (weights ? " · step " + state.step : ""), height, font, {
      xaxis: { title: { text: "direction 1 (" + share[0] + " of the variance)", standoff: 8 }, zeroline: false, automargin: true },
      yaxis: { title: { text: "direction 2 (" + share[1] + ")", standoff: 8 }, zeroline: false, scaleanchor: "x", automargin: true },
      shapes,
      annotations: labels,
      showlegend: false,
      margin: { l: 10, r: 10, t: 40 + font, b: 10 }
    });
    return react(div, data, chartLayout);
  }
  var VIEW9 = {
    id: "qkspace",
    label: "Q·K space",
    tip: "One head's queries and keys in one plane: a query lies near the keys it attends to",
    className: "ae-plot ae-qkspace",
    controls: ["kind", "layer", "head"],
    caption: () => CAPTION4,
    create: (div) => ({ draw: (context, state) => draw5(div, context, state), png: (header) => plotPng(div, header) })
  };

  // nopos.js
  var CAPTION5 = "Attention alone ignores order: without the positional encoding, reversing the sentence only reverses the rows and columns of every encoder map (permutation equivariance). The encoding is the model's only sense of word order.";
  function draw6(parts2, context, state) {
    const { text, plot } = parts2;
    const font = fontSize(), height = state.height;
    const answer2 = context.ask({ what: "no_position" });
    if (!answer2 || answer2.error) {
      text.replaceChildren();
      return drawMessage(plot, answer2 ? answer2.error : "Asking the server for the encoder without its positions…", height);
    }
    const layer = Math.min(state.layer, answer2.original.length - 1);
    const head = Number.isInteger(state.head) ? state.head : 0;
    const t = answer2.translations;
    const line = (label2, value) => {
      const row = el("div", "ae-maskless-line");
      row.append(el("b", "", label2 + " "), el("span", "", value ? "“" + value + "”" : "nothing (</s> first)"));
      return row;
    };
    text.replaceChildren(
      line("With positions:", t.with),
      line("Without positions:", t.without),
      line("Reversed, without positions:", t.reversed_without),
      el("div", "ae-maskless-line", "Without positions, the reversed sentence's maps are the original maps reversed, to within " + answer2.gap_without.toExponential(1) + "; with positions they differ by up to " + answer2.gap_with.toFixed(2) + ".")
    );
    const tokens = answer2.source_tokens.map(escape);
    const reversed = answer2.order.map((i) => tokens[i]);
    const tickFont = Math.max(8, Math.min(font - 3, Math.floor(plot.clientWidth * 0.4 / tokens.length * 0.7)));
    const heat = (z, axis2, rows, columns) => ({
      type: "heatmap",
      z,
      zmin: 0,
      zmax: 1,
      colorscale: COLORS.scale,
      xaxis: "x" + axis2,
      yaxis: "y" + axis2,
      x: columns,
      y: rows,
      showscale: axis2 === "2",
      colorbar: { title: { text: "weight", side: "right" }, thickness: 12 },
      hovertemplate: "query %{y} · key %{x}: %{z:.4f}<extra></extra>"
    });
    const named = (list) => list.map((tok, i) => i + " " + tok);
    const data = [
      heat(answer2.original[layer][head], "", named(tokens), named(tokens)),
      heat(answer2.reversed[layer][head], "2", named(reversed), named(reversed))
    ];
    const ticks = (list, room2) => tokenTicks(named(list), named(list), room2, tickFont);
    const room = plot.clientWidth * 0.4, tall = Math.max(240, height - text.offsetHeight - 6) * 0.6;
    const axis = (domain, anchor, list) => Object.assign({ domain, anchor, tickangle: -90, automargin: true }, ticks(list, room));
    const chartLayout = layout2(
      "Encoder self-attention without positions · " + headName(layer, head) + ": as typed | reversed",
      Math.max(240, height - text.offsetHeight - 6),
      font,
      {
        xaxis: axis([0, 0.42], "y", tokens),
        yaxis: Object.assign({ autorange: "reversed", automargin: true }, ticks(tokens, tall)),
        xaxis2: axis([0.55, 0.95], "y2", reversed),
        yaxis2: Object.assign({ anchor: "x2", autorange: "reversed", automargin: true }, ticks(reversed, tall)),
        margin: { l: 10, r: 10, t: 40 + font, b: 10 }
      }
    );
    return react(plot, data, chartLayout);
  }
  var VIEW10 = {
    id: "nopos",
    label: "No positions",
    tip: "The encoder without its positional encoding: the sentence as typed and reversed, and what the model writes",
    className: "ae-nopos",
    controls: ["layer", "head"],
    caption: () => CAPTION5,
    // the subject and the object differ only by their order: without positions the model cannot tell who bites whom
    // (the shipped model writes "Der Hund beißt den Hund."; tests/test_no_position.py holds it)
    offer: { sentence: "The dog bites the man.", why: "Who bites whom is only in the word order: what does the model write without positions?" },
    create: (div) => {
      const parts2 = textAbovePlot(div, "nopos");
      return { draw: (context, state) => draw6(parts2, context, state), png: (header) => plotPng(parts2.plot, header) };
    }
  };

  // contributions.js
  var TOP = 3;
  var QUESTION = { what: "contributions" };
  function largest(values, tokens, n) {
    return values.map((v, i) => [v, i]).filter(([v]) => v > 0).sort((a, b) => b[0] - a[0]).slice(0, n).map(([v, i]) => [tokens[i], v]);
  }
  function sayStep(answer2, t) {
    const i = t - 1, share = answer2.source_share[i];
    const [src] = largest(answer2.source[i], answer2.source_tokens, 1);
    const [pre] = largest(answer2.prefix[i], answer2.prefix_tokens, 1);
    return "Step " + t + ": “" + answer2.target_tokens[i] + "” takes " + share.toFixed(2) + " of its prediction from the source" + (src ? " (most from “" + src[0] + "”, " + src[1].toFixed(2) + ")" : "") + " and " + (1 - share).toFixed(2) + " from the translation so far" + (pre ? " (most from “" + pre[0] + "”, " + pre[1].toFixed(2) + ")" : "") + ".";
  }
  var CAPTION6 = "ALTI+ (Ferrando et al., 2022): each attention block's output split into one vector per input token, each scored by how close it brings the output, rolled out through the layers. Content words usually take more from the source, function words and word endings more from the prefix; a forced or hallucinated continuation takes less from the source.";
  function draw7(div, context, state) {
    const trace = context.trace, t = state.step, font = fontSize(), height = state.height;
    const answer2 = context.ask(QUESTION);
    if (!answer2 || answer2.error) {
      return drawMessage(div, answer2 ? answer2.error : "Asking the server where each token comes from…", height);
    }
    if (t === 0) return drawMessage(div, "No token yet: press → (Next) to see where the first one comes from.", height);
    const steps = [...Array(t).keys()];
    const hover = (i, side) => {
      const values = side === "source" ? answer2.source[i] : answer2.prefix[i];
      const tokens = side === "source" ? answer2.source_tokens : answer2.prefix_tokens;
      return largest(values, tokens, TOP).map(([tok, v]) => escape(tok) + " " + v.toFixed(2)).join("<br>");
    };
    const x = steps.map((i) => i + 1 + " " + answer2.target_tokens[i]);
    const focus = steps.map((i) => i === t - 1 ? 1 : 0.45);
    const line = steps.map((i) => i === t - 1 ? 3 : 0);
    const bar = (side, name, color, values) => ({
      type: "bar",
      name,
      x,
      y: values,
      marker: { color, opacity: focus, line: { color: COLORS.chosen, width: line } },
      customdata: steps.map((i) => hover(i, side)),
      hovertemplate: "%{x}<br>" + name + ": %{y:.2f}<br>%{customdata}<extra></extra>"
    });
    const data = [
      bar("source", "from the source (" + trace.sourceLanguage + ")", COLORS.other, steps.map((i) => answer2.source_share[i])),
      bar("prefix", "from the translation so far", COLORS.produced, steps.map((i) => 1 - answer2.source_share[i]))
    ];
    const chartLayout = layout2("Source or prefix: where each token comes from · step " + t, height, font, {
      barmode: "stack",
      xaxis: { tickangle: -45, automargin: true, title: { text: "token written (step)" } },
      yaxis: { range: [0, 1], title: { text: "share of the prediction" }, automargin: true },
      legend: { orientation: "h", y: 1.02, yanchor: "bottom", x: 0, font: { size: font }, traceorder: "normal" },
      margin: { l: 10, r: 10, t: 60 + 2 * font, b: 10 }
    });
    return react(div, data, chartLayout);
  }
  var VIEW11 = {
    id: "contributions",
    label: "Source or prefix",
    className: "ae-plot ae-contributions",
    controls: [],
    tip: "How much of each generated token comes from the source sentence, and how much from the translation written so far (ALTI+)",
    caption: (state) => {
      const answer2 = (state.answers || {})[keyOf(QUESTION)];
      const said = answer2 && !answer2.error && state.step > 0 ? sayStep(answer2, Math.min(state.step, answer2.source_share.length)) : "";
      return (said ? said + " " : "") + CAPTION6;
    },
    create: (div) => ({ draw: (context, state) => draw7(div, context, state), png: (header) => plotPng(div, header) })
  };

  // views.js
  var VIEWS = [VIEW, VIEW2, VIEW3, VIEW4, VIEW5, VIEW8, VIEW11, VIEW7, VIEW9, VIEW10, VIEW6];
  function viewOf(id) {
    return VIEWS.find((v) => v.id === id) || VIEWS[0];
  }

  // selectors.js
  var KIND_NAMES = { encoder_self: "Encoder self", decoder_self: "Decoder self (masked)", cross: "Cross" };
  function selectorRows() {
    return { view: el("div", "ae-row ae-view-tabs"), kind: el("div", "ae-row ae-kinds"), layer: el("div", "ae-row ae-layers"), head: el("div", "ae-row ae-heads") };
  }
  function drawSelectors(rows, t, s, select, roles) {
    const row = (box, label2, items, current, name) => {
      box.replaceChildren(el("span", "ae-row-label", label2), ...items.map(([value, text, title2, chip2]) => {
        const b = button(text, title2, () => select({ [name]: value }), value === current ? "ae-on" : "");
        if (chip2) b.appendChild(el("span", "ae-role-chip", chip2));
        b.dataset.value = value;
        b.setAttribute("aria-pressed", String(value === current));
        return b;
      }));
    };
    row(rows.view, "View", VIEWS.map((v) => [v.id, v.label, v.tip + " (V cycles the views)"]), s.view, "view");
    row(rows.kind, "Kind", KINDS.map((k) => [k, KIND_NAMES[k], KIND_TITLES[k] + " (K cycles)"]), s.kind, "kind");
    const layers = [...Array(t.nLayers(s.kind)).keys()];
    row(rows.layer, "Layer", layers.map((l) => [l, String(l), "layer " + l + " (L cycles)"]), s.layer, "layer");
    const best = t.model.best_head;
    const heads = [...Array(t.H).keys()].map((h) => {
      const isBest = best && best.kind === s.kind && best.layer === s.layer && best.head === h;
      const role = roleOf(roles, s.kind, s.layer, h);
      return [
        h,
        String(h) + (isBest ? " ★" : ""),
        "head " + h + (isBest ? ": best word alignment" : "") + (role ? "; " + role.says : "") + " (key " + h + ")",
        role && role.short
      ];
    });
    heads.push(["mean", "mean", "mean of heads (M)"], ["all", "all", "all heads of this layer (A)"]);
    if (t.hasRollout(s.kind)) heads.push(["rollout", "rollout", "attention rollout through every encoder layer (R)"]);
    row(rows.head, "Head", heads, s.head, "head");
    const controls = viewOf(s.view).controls;
    for (const name of ["kind", "layer", "head"]) rows[name].hidden = !controls.includes(name);
  }

  // attribution.js
  var NAMES = { gradient_x_input: "gradient × input", integrated_gradients: "integrated gradients" };
  function cell(v, peak, token) {
    const td = el("td", "", v.toFixed(Math.abs(v) < 0.1 ? 3 : 2));
    td.style.background = signedFill(v, peak);
    td.style.color = Math.abs(v) / peak > 0.55 ? "white" : "#1f2937";
    td.title = token + ": " + v.toFixed(4);
    return td;
  }
  function heading(label2, note) {
    const th = el("th", "", label2);
    if (note) th.appendChild(el("div", "ae-attr-note", note));
    return th;
  }
  function measuresTable(tokens, measures) {
    const table = el("table", "ae-attr");
    const peaks = measures.map((m) => Math.max(...m.values.map(Math.abs), 1e-12));
    const header = el("tr");
    header.appendChild(el("th", "", "source"));
    if (presenting()) {
      measures.forEach((m) => header.appendChild(heading(m.label, m.short || m.note)));
      table.appendChild(header);
      tokens.forEach((token, i) => {
        const row = el("tr");
        row.appendChild(el("th", "", token));
        measures.forEach((m, k) => row.appendChild(cell(m.values[i], peaks[k], token)));
        table.appendChild(row);
      });
      return table;
    }
    tokens.forEach((t) => header.appendChild(el("th", "", t)));
    table.appendChild(header);
    measures.forEach((m, k) => {
      const row = el("tr");
      row.appendChild(heading(m.label, m.note));
      m.values.forEach((v, i) => row.appendChild(cell(v, peaks[k], tokens[i])));
      table.appendChild(row);
    });
    return table;
  }
  function draw8(div, a) {
    const measures = [{ label: "cross-attention", note: a.attention.which, values: a.attention.weights }];
    Object.entries(a.methods).forEach(([method, m]) => {
      const rho = m.rank_correlation === null ? "— (a constant row)" : m.rank_correlation.toFixed(2);
      measures.push({ label: NAMES[method], note: "Spearman ρ with attention " + rho, short: "ρ with attention " + rho, values: m.scores });
    });
    const table = measuresTable(a.source_tokens, measures);
    const ig = a.methods.integrated_gradients;
    const caption = "Attention says where this head looked; the attributions say how much each source token's embedding moved log p(“" + a.token + "”) = " + a.methods.gradient_x_input.log_prob.toFixed(3) + ": gradient × input at the input itself, integrated gradients along the straight path from a baseline of all-zero embeddings (no words, positions kept) in " + ig.steps + " steps; its scores add up to log p − log p(baseline) = " + (a.methods.integrated_gradients.log_prob - ig.baseline_log_prob).toFixed(3) + " within " + (100 * ig.completeness_gap).toFixed(1) + " %. A low ρ means the head's attention and the token's sensitivity to its inputs disagree here; neither is the whole reason for the choice.";
    div.replaceChildren(
      el("div", "ae-panel-title", "Step " + a.step + ", “" + a.token + "”: attention against attribution"),
      table,
      el("div", "ae-caption", caption)
    );
  }
  var PANEL = {
    what: "attribution",
    button: ["Attention vs attribution", "The current step's cross-attention row beside gradient attributions (asks the server)"],
    question(trace, state) {
      if (state.step === 0) return { note: "Step forward first: at step 0 no token has been produced to attribute." };
      const [, , layer, head] = trace.crossRow(state);
      return {
        question: { what: "attribution", step: state.step, layer, head },
        waiting: "Integrating gradients for “" + trace.targetTokens[state.step - 1] + "”…"
      };
    },
    draw: draw8
  };

  // beamtree.js
  var COL = 96;
  var ROW = 34;
  var PAD = 16;
  var HALF = 30;
  var BEAM_CAPTION = "Every hypothesis beam search considered: at each position the best 2 × beam size continuations of the live beams are looked at, the best beam-size non-final ones kept (dark), the rest pruned (grey); a beam that chooses </s> is finished (green). The winner (vermillion) has the best log-probability divided by the length penalty ((5 + length) / 6)^α. Click a node to step through that hypothesis.";
  function beamPath(nodes, id) {
    const ids = [];
    for (let n = nodes[id]; n.parent !== -1; n = nodes[n.parent]) ids.push(n.token_id);
    return ids.reverse();
  }
  function draw9(div, a) {
    const nodes = a.nodes;
    const depth = Math.max(...nodes.map((n) => n.step)) + 2;
    const room = (div.clientWidth || 700) - PAD * 2 - HALF * 2;
    const col = Math.max(2 * HALF + 10, Math.min(COL, Math.floor(room / depth)));
    const byStep = {};
    nodes.forEach((n) => {
      (byStep[n.step] = byStep[n.step] || []).push(n);
    });
    const place = {};
    Object.values(byStep).forEach((column) => {
      column.sort((p, q) => q.log_prob - p.log_prob);
      column.forEach((n, r) => {
        place[n.id] = [PAD + HALF + (n.step + 1) * col, PAD + r * ROW];
      });
    });
    const winnerPath = /* @__PURE__ */ new Set();
    for (let n = nodes[a.winner]; n; n = n.parent === -1 ? null : nodes[n.parent]) winnerPath.add(n.id);
    const rows = Math.max(...Object.values(byStep).map((c) => c.length));
    const width = PAD * 2 + HALF * 2 + depth * col, height = PAD * 2 + rows * ROW;
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    const ctx = sizeCanvas(canvas, width, height);
    ctx.fillStyle = "white";
    ctx.fillRect(0, 0, width, height);
    const font = Math.min(fontSize(), 14);
    nodes.forEach((n) => {
      if (n.parent === -1) return;
      const [x0, y0] = place[n.parent], [x1, y1] = place[n.id];
      ctx.strokeStyle = winnerPath.has(n.id) ? COLORS.chosen : n.status === "pruned" ? "#cbd5e1" : "#64748b";
      ctx.lineWidth = winnerPath.has(n.id) ? 3 : 1.2;
      ctx.beginPath();
      ctx.moveTo(x0 + HALF, y0 + ROW / 2);
      ctx.lineTo(x1 - HALF, y1 + ROW / 2);
      ctx.stroke();
    });
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    nodes.forEach((n) => {
      const [x, y] = place[n.id];
      const pruned = n.status === "pruned";
      ctx.fillStyle = winnerPath.has(n.id) ? "#fde7d9" : pruned ? "#f8fafc" : "#e2e8f0";
      ctx.strokeStyle = n.status === "finished" ? "#047857" : winnerPath.has(n.id) ? COLORS.chosen : pruned ? "#e2e8f0" : "#94a3b8";
      ctx.lineWidth = n.status === "finished" || winnerPath.has(n.id) ? 2.5 : 1;
      ctx.beginPath();
      ctx.rect(x - HALF, y + 3, 2 * HALF, ROW - 6);
      ctx.fill();
      ctx.stroke();
      ctx.fillStyle = pruned ? "#94a3b8" : "#1f2937";
      ctx.font = (winnerPath.has(n.id) ? "700 " : "") + font + "px " + FAMILY;
      ctx.fillText(n.token.length > 9 ? n.token.slice(0, 8) + "…" : n.token, x, y + ROW / 2 - 5);
      ctx.font = font - 3 + "px " + FAMILY;
      ctx.fillText(n.log_prob.toFixed(2), x, y + ROW / 2 + 8);
    });
    canvas.setAttribute("aria-label", "Beam search tree: " + nodes.length + " hypotheses, beam size " + a.beam_size + ", winner “" + a.translation + "”.");
    const scroller = el("div", "ae-beamtree");
    scroller.appendChild(canvas);
    nodes.forEach((n) => {
      if (n.parent === -1) return;
      const [x, y] = place[n.id];
      const b = el("button", "ae-beam-node");
      b.type = "button";
      b.style.left = x - HALF + "px";
      b.style.top = y + 3 + "px";
      b.style.width = 2 * HALF + "px";
      b.style.height = ROW - 6 + "px";
      b.setAttribute("aria-label", "Step " + n.step + ": “" + n.token + "”, log p " + n.log_prob.toFixed(2) + ", " + n.status + (winnerPath.has(n.id) ? ", on the winner's path" : "") + ". Step through this hypothesis.");
      b.title = b.getAttribute("aria-label");
      b.addEventListener("click", () => emit(b, "ae-follow", { forced_ids: beamPath(nodes, n.id) }));
      scroller.appendChild(b);
    });
    const steps = depth - 1, fits = width <= (div.clientWidth || 700);
    const note = fits ? "" : "All " + steps + " steps: scroll sideways for the later ones.";
    div.replaceChildren(
      el("div", "ae-panel-title", "Beam search tree (beam " + a.beam_size + ", α " + a.alpha + "): winner “" + a.translation + "”"),
      ...note ? [el("div", "ae-panel-note ae-beam-scroll-note", note)] : [],
      scroller,
      el("div", "ae-caption", BEAM_CAPTION)
    );
  }
  var QUESTION2 = { what: "beam_tree" };
  var PANEL2 = {
    what: "beam_tree",
    button: ["Beam tree", "Beam search as a tree of hypotheses (asks the server)"],
    question: () => ({ question: QUESTION2, waiting: "Searching with every hypothesis recorded…" }),
    draw: draw9
  };

  // explain.js
  var fmt = (v, digits) => v === null ? "−∞" : Number(v).toFixed(digits === void 0 ? 3 : digits);
  function strip2(values, peak, label2) {
    const row = el("div", "ae-strip");
    row.title = label2 + ": " + values.map((v) => fmt(v, 2)).join(", ");
    values.forEach((v) => {
      const cell2 = el("span", "ae-strip-cell");
      cell2.style.background = signedFill(v, peak);
      row.appendChild(cell2);
    });
    return row;
  }
  var EXPLAIN_CAPTION = "How one weight is computed, from this head's own projections of the two tokens: q·k / √d_k for every key of the row, the mask, then the softmax. It explains the arithmetic of the weight, not why the model learned these vectors, nor what the head's output does with it.";
  function draw10(div, a, state) {
    const shown = a.kind === "decoder_self" ? state.step : null;
    const peak = Math.max(...a.query.map(Math.abs), ...a.key.map(Math.abs), 1e-9);
    const title2 = el(
      "div",
      "ae-panel-title",
      "Why " + headName(a.layer, a.head) + " puts weight " + fmt(a.weight, 4) + " on “" + a.column_token + "” from “" + a.row_token + "”"
    );
    const vectors = el("div", "ae-explain-vectors");
    vectors.append(
      el("span", "ae-strip-label", "q (“" + a.row_token + "”, " + a.query.length + " values)"),
      strip2(a.query, peak, "q"),
      el("span", "ae-strip-label", "k (“" + a.column_token + "”)"),
      strip2(a.key, peak, "k")
    );
    const arithmetic = el(
      "div",
      "ae-explain-math",
      "q·k = " + fmt(a.dot) + "   ÷ √d_k = √" + a.query.length + " = " + fmt(a.scale, 2) + "   → score " + fmt(a.dot / a.scale) + "   (the row's largest allowed score m = " + fmt(a.max_score) + ")"
    );
    const listed = Math.min(a.column_tokens.length, shown || a.column_tokens.length);
    const columns = a.column_tokens.slice(0, listed).map((token, j) => {
      const on = j === a.column ? "ae-on" : "";
      return [
        el("td", on, token),
        el("td", on + (a.scores[j] === null ? " ae-masked" : ""), fmt(a.scores[j], 2)),
        el("td", on, a.scores[j] === null ? "0" : fmt(a.weights[j], 3))
      ];
    });
    const masked = a.scores.filter((s) => s === null).length;
    const later = a.column_tokens.length - listed;
    const softmax = el(
      "div",
      "ae-explain-math",
      (masked === later && later ? "The " + later + " later key(s), not produced yet, are masked (−∞: weight exactly 0). " : masked ? masked + " key(s) masked (set to −∞: weight exactly 0). " : "") + "softmax: exp(" + fmt(a.scores[a.column]) + " − " + fmt(a.max_score) + ") / Σ exp(score − m) = " + fmt(Math.exp(a.scores[a.column] - a.max_score), 4) + " / " + fmt(a.denominator, 4) + " = " + fmt(a.weight, 4)
    );
    const rows = el("div", "ae-explain-rows");
    div.replaceChildren(title2, vectors, arithmetic, rows, softmax, el("div", "ae-caption", EXPLAIN_CAPTION));
    fitRow(rows, columns);
  }
  function fitRow(box, columns) {
    const table = (part2) => {
      const t = el("table", "ae-explain-row");
      ["key", "score", "softmax"].forEach((label3, r) => {
        const tr = el("tr");
        tr.append(el("th", "", label3), ...part2.map((column) => column[r]));
        t.appendChild(tr);
      });
      return t;
    };
    const whole = table(columns);
    box.replaceChildren(whole);
    const room = box.clientWidth;
    if (!room || whole.offsetWidth <= room) return;
    const label2 = whole.querySelector("th").offsetWidth;
    const widths = columns.map((column) => Math.max(...column.map((cell2) => cell2.offsetWidth)));
    const parts2 = [];
    let part = [], used = label2;
    columns.forEach((column, j) => {
      if (part.length && used + widths[j] > room) {
        parts2.push(part);
        part = [];
        used = label2;
      }
      part.push(column);
      used += widths[j];
    });
    parts2.push(part);
    box.replaceChildren(...parts2.map(table));
  }
  var PANEL3 = {
    what: "explain",
    button: null,
    onCell: true,
    question(trace, state, cell2) {
      if (!Number.isInteger(cell2.head)) {
        return { note: "Choose one head (0–" + (trace.H - 1) + ") to see how a weight is computed: the mean of heads and the rollout are not one softmax." };
      }
      if (cell2.weight === null) {
        return { note: "That key lies in the future of the query: the look-ahead mask sets its score to −∞ before the softmax, so its weight is exactly 0." };
      }
      return {
        question: { what: "explain", kind: state.kind, layer: state.layer, head: cell2.head, row: cell2.row, column: cell2.column },
        waiting: "Computing q and k for this cell…"
      };
    },
    draw: draw10
  };

  // heads.js
  var EXACT_CAPTION = "Exact: each tile is how much log-probability the translation above loses when that one head is switched off (its output zeroed) and every other head stays on; one batched pass over all heads. It measures heads one at a time: two heads that can stand in for each other both look unimportant alone. A negative number means the translation became more likely without that head (it stays white). Click a tile to switch that head off in the viewer.";
  var ESTIMATE_CAPTION = "Estimate: a gate multiplies each head's output (1: on, 0: off), and one forward and one backward pass give the slope of log p along every gate at once. Switching a head off moves its gate from 1 to 0, so the slope is the drop to first order (Michel, Levy and Neubig 2019). Where log p is not a straight line in the gate (heads that make up for each other, or matter only together) the estimate is off: press Exact to see where. It is their gate gradient, signed and for this sentence alone; their importance score is its absolute value averaged over a whole dataset, where a head this sentence is better without (a negative estimate) would count as important.";
  var LECTURE_ORDER = ["cross", ...KINDS.filter((kind) => kind !== "cross")];
  function draw11(div, a, state) {
    const roles = rolesFor(state && state.trace, () => rolesIn(state));
    const shown = a.estimate ? [a.estimate, a.drops] : [a.drops];
    const all = shown.map((d) => Object.values(d).flat(2)).flat().filter((v) => v !== null);
    const peak = Math.max(...all.map(Math.abs), 1e-9);
    const grids = el("div", "ae-heads-grids");
    LECTURE_ORDER.forEach((kind) => {
      const box = el("div", "ae-heads-kind");
      box.appendChild(el("div", "ae-label", KIND_TITLES[kind]));
      const pair = el("div", "ae-heads-pair");
      if (a.estimate) {
        pair.append(
          labelled("estimate (one pass)", grid(kind, a.estimate[kind], peak, "estimated", roles)),
          labelled("exact (each head switched off)", grid(kind, a.drops[kind], peak, "exact", roles))
        );
      } else pair.appendChild(grid(kind, a.drops[kind], peak, "estimated", roles));
      box.appendChild(pair);
      grids.appendChild(box);
    });
    const title2 = "Which heads matter for “" + a.translation + "” (log p = " + a.log_prob.toFixed(2) + ")" + (a.method === "exact" ? " · estimate against exact: " + agreement(a) : " · estimated in one pass");
    const parts2 = [el("div", "ae-panel-title", title2), grids];
    if (a.method === "estimate") {
      parts2.push(button(
        "Exact: switch each head off",
        "Ask for the exact drops (one pass per head, batched), shown beside this estimate",
        () => emit(div, "ae-ask", { what: "heads", method: "exact" }),
        "ae-heads-exact"
      ));
    }
    parts2.push(el("div", "ae-caption", a.method === "exact" ? EXACT_CAPTION + " " + ESTIMATE_CAPTION : ESTIMATE_CAPTION));
    div.replaceChildren(...parts2);
  }
  function agreement(a) {
    const rho = "Spearman ρ = " + (a.rho === null ? "–" : a.rho.toFixed(2));
    return a.top3 === null || a.top3 === void 0 ? rho : rho + ", top 3 shared: " + a.top3 + " of 3";
  }
  function labelled(text, table) {
    const box = el("div", "ae-heads-one");
    box.append(el("div", "ae-heads-method", text), table);
    return box;
  }
  function grid(kind, drops, peak, word, roles) {
    const best = Math.max(...drops.flat().filter((v) => v !== null));
    const table = el("table", "ae-heads-grid");
    table.dataset.kind = kind;
    table.dataset.method = word === "exact" ? "exact" : "estimate";
    const header = el("tr");
    header.appendChild(el("th", "", ""));
    drops[0].forEach((_, h) => header.appendChild(el("th", "", "H" + h)));
    table.appendChild(header);
    drops.forEach((row, layer) => {
      const tr = el("tr");
      tr.appendChild(el("th", "", "L" + layer));
      row.forEach((drop, head) => {
        if (drop === null) {
          const off = el("td", "ae-off", "off");
          off.title = KIND_TITLES[kind] + ", " + headName(layer, head) + ": switched off in this trace";
          return tr.appendChild(off);
        }
        const td = el("td", drop === best ? "ae-top" : "", drop.toFixed(2));
        const role = roleOf(roles, kind, layer, head);
        if (role && role.short) td.appendChild(el("span", "ae-role", role.short));
        const share = Math.max(0, drop) / peak;
        td.style.background = signedFill(share, 1);
        td.style.color = share > 0.55 ? "white" : "#1f2937";
        const change = drop >= 0 ? "loses " + drop.toFixed(3) : "gains " + (-drop).toFixed(3);
        td.title = KIND_TITLES[kind] + ", " + headName(layer, head) + ": the translation " + change + " log-probability without it (" + word + "; click to switch it off)" + (role ? ". Its role: " + role.says : "");
        td.dataset.layer = layer;
        td.dataset.head = head;
        td.addEventListener("click", () => emit(td, "ae-switch-off", { kind, layer, head }));
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return table;
  }
  var PANEL4 = {
    what: "heads",
    button: ["Heads that matter", "How much the translation loses with each head off alone: estimated in one pass, exact on request (asks the server)"],
    question(trace, state, cell2, extra) {
      const method = extra && extra.method || "estimate";
      return {
        question: { what: "heads", method },
        waiting: method === "exact" ? "Switching each head off in turn…" : "Estimating every head in one pass…"
      };
    },
    draw: draw11
  };

  // panels.js
  var PANELS = [PANEL, PANEL2, PANEL4, PANEL3];
  var ON_CELL = PANELS.find((p) => p.onCell);
  function panelOf(what) {
    const panel = PANELS.find((p) => p.what === what);
    if (!panel) throw new Error("no such panel: " + what);
    return panel;
  }
  function question(what, trace, state, cell2, extra) {
    return panelOf(what).question(trace, state, cell2, extra);
  }
  function draw12(div, content, state) {
    div.hidden = !content;
    if (!content) return;
    const close = button("✕", "Close this panel", () => emit(div, "ae-close-panel", {}), "ae-panel-close");
    const body = el("div", "ae-panel-body");
    div.replaceChildren(close, body);
    if (content.answer && content.answer.error) body.appendChild(el("div", "ae-panel-error", content.answer.error));
    else if (content.answer) panelOf(content.what).draw(body, content.answer, state);
    else body.appendChild(el("div", "ae-panel-note", content.note));
    for (const caption of body.querySelectorAll(".ae-caption")) {
      const fold = el("details", "ae-panel-fold");
      fold.open = !document.body.classList.contains("presentation");
      caption.replaceWith(fold);
      fold.append(el("summary", "", "How to read this"), caption);
    }
  }

  // layout.js
  var MIN_CHART = 190;
  var ChartArea = class {
    constructor(refresh, online) {
      this.refresh = refresh;
      this.online = online;
      this.element = el("div", "ae-right");
      this.offer = el("div", "ae-offer");
      this.offer.hidden = true;
      this.offered = null;
      this.offerHeight = 0;
      this.charts = Object.fromEntries(VIEWS.map((view) => [view.id, el("div", view.className)]));
      this.made = {};
      this.caption = el("div", "ae-caption");
      this.panel = el("div", "ae-panel");
      this.panel.hidden = true;
      this.panel.addEventListener("toggle", () => {
        this.panelNeed = null;
        refresh();
      }, true);
      this.element.append(this.offer, ...Object.values(this.charts), this.caption, this.panel);
      this.captionText = null;
      this.captionFolded = false;
      this.captionHeight = null;
      this.shown = null;
      this.panelNeed = null;
    }
    // The view `id` in its chart, made the first time it is asked for.
    view(id) {
      const view = viewOf(id);
      if (!this.made[view.id]) this.made[view.id] = view.create(this.charts[view.id]);
      return this.made[view.id];
    }
    resized() {
      this.captionHeight = this.panelNeed = this.offered = null;
    }
    // text wraps anew
    // The room for the chart: what is left of the window below where it starts. Normal mode: as the page scrolled to
    // the top lays it out. Presentation mode: with the viewer at the top of the window (it scrolls there when the mode
    // is switched on and when a new sentence arrives).
    height(root, presenting2) {
      const chartTop = this.element.getBoundingClientRect().top;
      const top = presenting2 ? chartTop - root.getBoundingClientRect().top : chartTop + window.scrollY;
      const room = window.innerHeight - top - 12;
      return Math.max(280, Math.min(900, room > 0 ? room : 460));
    }
    // Lay out the caption and the panel (`content`: {what, note} or {what, answer}, or null) for state `s`; returns the
    // chart's height.
    fit(s, t, height, presenting2, content) {
      height -= this.drawOffer(s, t);
      const caption = s.panel ? "" : viewOf(s.view).caption(s, t);
      if (caption !== this.captionText || presenting2 !== this.captionFolded) this.drawCaption(caption, presenting2);
      this.caption.hidden = !caption;
      if (presenting2 && caption && this.captionHeight === null) this.captionHeight = this.caption.offsetHeight + 10;
      let chart = presenting2 && caption ? Math.max(MIN_CHART, height - this.captionHeight) : height;
      const shown = s.panel ? content : null;
      const same = shown && this.shown && shown.what === this.shown.what && shown.answer === this.shown.answer && shown.note === this.shown.note;
      if (!same) {
        this.shown = shown;
        this.panelNeed = null;
        draw12(this.panel, shown, s);
      }
      if (shown) {
        if (this.panelNeed === null) {
          this.panel.style.maxHeight = "";
          this.panelNeed = this.panel.scrollHeight + this.panel.offsetHeight - this.panel.clientHeight;
        }
        chart = Math.max(MIN_CHART, height - this.panelNeed - 10);
        this.panel.style.maxHeight = Math.max(160, height - chart - 10) + "px";
      } else this.panel.style.maxHeight = "";
      for (const [id, div] of Object.entries(this.charts)) div.hidden = id !== s.view;
      return chart;
    }
    // The view's offer while another sentence is on screen: one line, and a button that traces the offered sentence in
    // this view ("ae-try"); returns the height it takes from the chart.
    drawOffer(s, t) {
      const offer = viewOf(s.view).offer;
      const shown = this.online && offer && !s.panel && t.request.sentence !== offer.sentence ? offer : null;
      if (shown !== this.offered) {
        this.offered = shown;
        this.offer.hidden = !shown;
        this.offerHeight = 0;
        if (shown) {
          const go = button(
            "Show “" + shown.sentence + "”",
            "Translate this sentence and show it in this view",
            () => emit(this.offer, "ae-try", { sentence: shown.sentence }),
            "ae-offer-try"
          );
          const why = el("span", "ae-offer-why", shown.why);
          why.title = shown.why;
          this.offer.replaceChildren(go, why);
          this.offerHeight = this.offer.offsetHeight + 6;
        } else this.offer.replaceChildren();
      }
      return this.offerHeight;
    }
    // The caption's text at a desk; on a projector folded under "How to read this view", so the chart keeps the window.
    drawCaption(text, presenting2) {
      this.captionText = text;
      this.captionFolded = presenting2;
      this.captionHeight = null;
      if (!presenting2) {
        this.caption.textContent = text;
        return;
      }
      const fold = el("details", "ae-caption-fold");
      fold.append(el("summary", "", "How to read this view"), el("span", "", text));
      fold.addEventListener("toggle", () => {
        this.captionHeight = null;
        this.refresh();
      });
      this.caption.replaceChildren(fold);
    }
  };

  // page.js
  function agree(trace) {
    label();
    document.querySelectorAll(".ae-model-name").forEach((node) => {
      node.textContent = trace.model.name;
    });
    document.querySelectorAll(".ae-languages").forEach((node) => {
      node.textContent = trace.languages;
    });
    showSentence(trace.request.sentence);
    showModel(trace);
  }
  function showModel(trace) {
    const key = trace.modelKey === "shipped" ? DEFAULT_MODEL : trace.modelKey;
    const radios = [...document.querySelectorAll("#opt-model input[type=radio]")];
    const mine = radios.find((r) => r.value === key);
    if (mine) radios.forEach((r) => {
      r.checked = r === mine;
    });
  }
  function showSentence(sentence) {
    const box = document.querySelector("#sentence textarea");
    if (!box || box.value === sentence || document.activeElement === box) return;
    box.value = sentence;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function exampleAgrees(sentence, example) {
    window.setTimeout(label, 50);
    return example && String(sentence).trim() === String(example).trim() ? example : null;
  }
  function label() {
    const input = document.querySelector("#example input");
    if (input && !input.placeholder) input.placeholder = "Examples…";
  }
  function openOptions() {
    const options = document.querySelector("#options");
    if (!options) return;
    const strategy = () => document.querySelector("#opt-strategy");
    const open = () => strategy() && strategy().offsetParent !== null;
    if (!open()) options.querySelector("button").click();
    const show = () => {
      options.scrollIntoView({ block: "center" });
      const first = strategy() && strategy().querySelector("input:checked, input");
      if (first) first.focus({ preventScroll: true });
    };
    requestAnimationFrame(() => requestAnimationFrame(show));
  }

  // topk.js
  var Candidates = class {
    constructor(online) {
      this.online = online;
      this.element = el("div", "ae-topk");
      this.drawn = null;
      this.element.addEventListener("click", (event) => {
        const row = event.target.closest && event.target.closest(".ae-cand");
        const [trace, step] = this.drawn || [];
        if (row && step > 0) emit(this.element, "ae-force", trace.steps[step - 1].top[Number(row.dataset.index)]);
      });
    }
    // The candidates of step t, unless they are on screen already. Returns a resolved promise.
    draw(trace, t) {
      const key = [trace, t, fontSize()];
      if (this.drawn && key.every((x, i) => x === this.drawn[i])) return Promise.resolve();
      this.drawn = key;
      const online = this.online;
      if (t === 0) {
        this.element.replaceChildren(el("div", "ae-label", "The next-token candidates appear after the first step."));
        return Promise.resolve();
      }
      const step = trace.steps[t - 1];
      const rows = step.top.map((c, i) => {
        const row = el("button", "ae-cand" + (c.id === step.id ? " ae-chosen" : ""));
        row.type = "button";
        row.dataset.index = i;
        row.title = "p = " + c.prob.toFixed(4) + (c.id === step.id ? " (chosen)" : "") + (online ? " · click to force this token" : "");
        const bar = el("span", "ae-cand-bar");
        bar.style.width = (100 * c.prob).toFixed(2) + "%";
        const track = el("span", "ae-cand-track");
        track.append(bar);
        row.append(el("span", "ae-cand-token", c.token), track, el("span", "ae-cand-p", (100 * c.prob).toFixed(1) + "%"));
        return row;
      });
      this.element.replaceChildren(el("div", "ae-label", "Next-token distribution at step " + t + (online ? " (click a candidate to force it)" : "")), ...rows);
      return Promise.resolve();
    }
  };

  // sentencefield.js
  var SentenceField = class {
    constructor(viewer) {
      this.viewer = viewer;
      const form = this.element = el("form", "ae-sentence-field");
      form.hidden = true;
      const input = this.input = el("input", "ae-sentence-input");
      input.type = "text";
      input.maxLength = 1e3;
      input.setAttribute("aria-label", "The next sentence to translate (Enter decodes it, Escape closes)");
      input.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          this.close();
        }
      });
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.submit();
      });
      form.append(
        el("span", "ae-row-label", "Sentence"),
        input,
        button("Translate", "Decode this sentence with the options and the model on screen", null, "ae-sentence-go"),
        button("✕", "Close (Escape)", () => this.close(), "ae-sentence-close")
      );
      form.querySelector(".ae-sentence-go").type = "submit";
    }
    open() {
      const t = this.viewer.trace;
      this.element.hidden = false;
      this.input.value = t ? t.request.sentence : "";
      this.input.focus({ preventScroll: true });
      this.input.select();
    }
    close() {
      this.element.hidden = true;
      this.input.blur();
    }
    submit() {
      const sentence = this.input.value.trim();
      if (!sentence) return this.viewer.say("Type a sentence first, then press Enter.");
      this.close();
      const t = this.viewer.trace;
      if (t && sentence === t.request.sentence && !t.request.forced_ids.length && !t.request.prefix) return null;
      return this.viewer.decodeWith({ sentence, forced_ids: [], prefix: "" });
    }
  };

  // frame.js
  function buildFrame(viewer) {
    const online = viewer.online, hooked = (name) => viewer.hooked(name);
    const f = { toolbar: new Toolbar(viewer), rows: selectorRows(), area: new ChartArea(() => viewer.refresh(), viewer.online) };
    const tools = f.tools = el("div", "ae-row ae-tools");
    tools.appendChild(el("span", "ae-row-label", "Tools"));
    const copy = button("Copy link", "Copy a link to exactly this view", () => copyLink(viewer, copy));
    if (online) {
      f.decoding = button("Decoding: greedy ▾", "Beam search, sampling and a what-if prefix: open the decoding options", () => openOptions());
      f.decoding.classList.add("ae-decoding");
      tools.append(f.decoding);
    }
    if (online) {
      f.sentence = new SentenceField(viewer);
      tools.append(button("✎ Sentence", "Type the next sentence here, without leaving the viewer (key /)", () => f.sentence.open()));
    }
    const html = button("⬇ HTML", "Download this sentence as one HTML file that works offline", () => exportHtml(viewer));
    html.classList.add("ae-desk-only");
    const png = button("⬇ PNG", "Download the chart on the right as a PNG image", () => exportPng(viewer));
    tools.append(copy, png, html, ...hooked("tools").flatMap((c) => c.tools(online)));
    if (online) {
      tools.append(
        ...PANELS.filter((p) => p.button).map((p) => button(p.button[0], p.button[1], () => viewer.openPanel(p.what))),
        button("⬇ .npz", "Download every attention tensor of this sentence up to this step", () => exportNpz(viewer), "ae-desk-only")
      );
    }
    f.status = el("div", "ae-status");
    f.message = el("div", "ae-message");
    f.message.hidden = true;
    f.notes = el("ul", "ae-notes");
    f.sourceLabel = el("div", "ae-label");
    f.sourceBox = el("div", "ae-chips ae-source-chips");
    f.sourceBox.addEventListener("click", (event) => {
      const chip2 = event.target.closest(".ae-chip[data-index]");
      if (chip2) hooked("answer").some((c) => c.answer(Number(chip2.dataset.index)));
    });
    for (const name of ["targetBox", "output", "beamLine", "beams"]) f[name] = el("div", { targetBox: "ae-chips ae-target-chips", output: "ae-output", beamLine: "ae-beam-line", beams: "ae-beams" }[name]);
    f.beamLine.hidden = true;
    f.topk = new Candidates(online);
    const left = el("div", "ae-left");
    left.append(
      ...hooked("bar").map((c) => c.bar),
      f.notes,
      ...Object.values(f.rows),
      ...hooked("selectorRow").map((c) => c.selectorRow),
      tools,
      f.sourceLabel,
      f.sourceBox,
      el("div", "ae-label", "Target so far"),
      f.targetBox,
      f.output,
      f.beamLine,
      f.topk.element,
      f.beams
    );
    const body = el("div", "ae-body");
    body.append(left, f.area.element);
    const help = el("div", "ae-keys", "Keys: " + KEY_HELP + ". " + (online ? "Click a candidate bar to force it; click a tile of All heads to select it; click a cell of a head's heatmap to see how its weight is computed." : "Click a tile of All heads to select it. This page works offline: forcing a candidate and the questions that compute from the model need the app."));
    const frame = el("div", "ae-viewer");
    frame.append(f.toolbar.element, ...f.sentence ? [f.sentence.element] : [], f.message, f.status, ...hooked("banner").map((c) => c.banner), body, help);
    viewer.root.replaceChildren(frame);
    f.place = () => presenting() ? (f.sentence ? f.sentence.element : f.toolbar.element).after(tools) : left.insertBefore(tools, f.sourceLabel);
    f.place();
    return f;
  }

  // player.js
  var Player = class {
    constructor(viewer) {
      this.viewer = viewer;
      this.timer = null;
    }
    playing() {
      return this.timer !== null;
    }
    start(pace) {
      this.stop();
      const v = this.viewer;
      if (v.store.get().step >= v.trace.T) v.go(0, "play");
      this.timer = setInterval(() => {
        if (v.store.get().step < v.trace.T) v.go(v.store.get().step + 1, "play");
        else {
          this.stop();
          v.showPlaying();
        }
      }, pace * 1e3);
    }
    stop() {
      if (this.timer !== null) clearInterval(this.timer);
      this.timer = null;
    }
  };

  // busy.js
  var Busy = class {
    constructor(element) {
      this.element = element;
      this.pending = 0;
    }
    // Busy until the function returned is called (once; again does nothing).
    hold() {
      this.pending += 1;
      this.element.setAttribute("aria-busy", "true");
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        this.pending -= 1;
        if (this.pending === 0) this.element.setAttribute("aria-busy", "false");
      };
    }
    // Busy until `promise` settles (and no other is pending); returns `promise`.
    during(promise) {
      const release = this.hold();
      promise.then(release, release);
      return promise;
    }
  };

  // room.js
  var KEY = "ae-room";
  var post = api.room;
  function viewOf2(viewer) {
    const s = viewer.state;
    const trace = toBody(Object.assign({}, viewer.trace.request, { model: viewer.modelKey }));
    return { trace, step: s.step, kind: s.kind, layer: s.layer, head: s.head, view: s.view, lesson: s.lesson };
  }
  var Room = class {
    constructor(viewer) {
      this.viewer = viewer;
      this.bar = el("div", "ae-room");
      this.bar.hidden = true;
      this.code = null;
      this.key = null;
      this.following = true;
      this.latest = null;
      this.question = null;
      this.dismissed = null;
      this.guess = null;
      this.answeredWith = null;
      this.score = { right: 0, answers: 0, counted: [] };
      this.sending = null;
      this.sent = null;
      this.token = null;
      this.adopting = false;
      this.lecturer = null;
      this.unloading = false;
      const going = () => {
        this.unloading = true;
      };
      window.addEventListener("beforeunload", going);
      window.addEventListener("pagehide", going);
      window.addEventListener("pageshow", () => {
        this.unloading = false;
      });
      viewer.store.subscribe((state) => {
        if (state.trace) this.decorateChips(viewer.f.sourceBox);
      });
    }
    // On page load: a lecturer's room to drive again, or a room to follow (?room=CODE). True when there is one: the room
    // gives the page its view, not the address (a lecturer's reload or Back would open the address's place, a step
    // behind the room's, and send it to the class).
    start() {
      const code = new URLSearchParams(window.location.search).get("room");
      let mine = null;
      try {
        mine = JSON.parse(sessionStorage.getItem(KEY) || "null");
      } catch (e) {
        mine = null;
      }
      if (mine && (!code || code === mine.code)) {
        if (mine.score && Array.isArray(mine.score.counted)) this.score = mine.score;
        this.lead(mine.code, mine.key, true);
      } else if (code) this.join(code);
      return Boolean(this.code);
    }
    // ---- the lecturer
    present() {
      if (this.key) return this.showCode();
      return post("", {}).then((made) => {
        this.lead(made.code, made.key);
        this.keep();
      }, (error) => this.viewer.say(error.message));
    }
    // The lecturer's room, its key and the class score, kept for this tab (a reload drives the room again).
    keep() {
      try {
        sessionStorage.setItem(KEY, JSON.stringify({ code: this.code, key: this.key, score: this.score }));
      } catch (e) {
      }
    }
    lead(code, key, resumed) {
      this.code = code;
      this.key = key;
      this.adopting = Boolean(resumed);
      this.viewer.store.subscribe(() => this.send());
      this.listen();
      this.send();
    }
    studentUrl() {
      return window.location.href.split("?")[0].split("#")[0] + "?room=" + this.code;
    }
    // The lecturer's view to the room: the newest only, one request at a time.
    send() {
      if (!this.key || !this.viewer.trace || this.adopting) return;
      const view = viewOf2(this.viewer);
      if (JSON.stringify(view) === this.sent) return;
      if (this.sending) {
        this.queued = view;
        return;
      }
      this.sent = JSON.stringify(view);
      this.sending = post("/" + this.code + "/view", view, this.key).catch((error) => this.viewer.say(error.message)).finally(() => {
        this.sending = null;
        if (this.queued) {
          this.queued = null;
          this.send();
        }
      });
    }
    ask() {
      const s = this.viewer.state, t = this.viewer.trace;
      if (s.step >= t.T) return this.viewer.say("The decode is at its last step: go back one step to ask about the next.");
      const [layer, head] = s.kind === "cross" && Number.isInteger(s.head) ? [s.layer, s.head] : t.defaultCross().map((x) => x === "mean" ? 0 : x);
      this.viewer.select({ view: "heatmap", kind: "cross", layer, head }, "room");
      post("/" + this.code + "/question", { step: s.step + 1, layer, head, sources: t.S }, this.key).catch((error) => this.viewer.say(error.message));
    }
    // Reveal: the class's guesses, and the step taken, so the heatmap's new row is the answer (the class follows).
    reveal() {
      post("/" + this.code + "/reveal", {}, this.key).then((q) => this.viewer.go(q.step, "room")).catch((error) => this.viewer.say(error.message));
    }
    end() {
      post("/" + this.code + "/end", {}, this.key).catch(() => null);
      try {
        sessionStorage.removeItem(KEY);
      } catch (e) {
      }
      this.close();
    }
    // ---- a student
    join(code) {
      this.code = code.toUpperCase();
      this.viewer.store.subscribe((state, changed, source) => {
        const moved = changed.some((name) => VIEW_STATE.includes(name));
        if (this.code && this.following && moved && source !== "room" && source !== "trace") this.detach();
      });
      this.listen();
    }
    detach() {
      this.following = false;
      this.draw();
    }
    follow() {
      this.following = true;
      if (this.latest) this.apply(this.latest);
      this.draw();
    }
    // Take the room's view: the trace first if the sentence or its options changed (from the shared cache), then the
    // state. A lecturer's own page never applies what it sent, except once after a reload (it adopts the room's view).
    apply(view) {
      this.latest = view;
      if (this.key && this.adopting) {
        this.adopting = false;
        this.draw();
        if (!view) return this.send();
      } else if (this.key || !this.following || !view) return;
      const v = this.viewer, state = { step: view.step, kind: view.kind, layer: view.layer, head: view.head, view: view.view, lesson: view.lesson || null };
      const request = traceRequest(view.trace);
      const same = v.trace && sameDecode(v.trace.request, request);
      if (same) v.select(state, "room");
      else {
        v.requestTrace(request, { byRoom: true, opensAt: { sentence: request.sentence, view: state } });
      }
    }
    // A student leaves the class's view by a trace of their own (a sentence, a candidate, a head off, a hypothesis).
    explore() {
      if (this.code && !this.key && this.following) this.detach();
    }
    // ---- companion hooks (companions.js)
    tools(online) {
      return online ? [button("Present to class", "A room the class follows live: its code and QR code for the projector", () => this.present())] : [];
    }
    loading() {
      this.draw();
    }
    // a question is about one trace: the room bar says whether it is this one
    // Is the trace on screen the one question `q` is about?
    onScreen(q) {
      const t = this.viewer.trace;
      if (!q || !t || !q.trace) return false;
      return sameDecode(t.request, traceRequest(q.trace)) && q.step <= t.T;
    }
    answer(j) {
      const q = this.question;
      if (!q || q.revealed || this.guess !== null || this.key || !this.onScreen(q)) return false;
      this.guess = j;
      this.sendGuess(q, null);
      this.draw();
      return true;
    }
    // The guess, under this stream's token; `previous`: the token it was counted under before the stream reconnected
    // (the server moves it). Refused, the page forgets the guess and says why, unless the stream or the question has
    // moved on meanwhile.
    sendGuess(q, previous) {
      const token = this.answeredWith = this.token;
      post("/" + this.code + "/answer", { question: q.id, pick: this.guess, token, previous }).catch((error) => {
        if (this.token !== token) return;
        if (!this.question || this.question.id !== q.id) return;
        this.guess = null;
        this.viewer.say(error.message);
      }).finally(() => this.draw());
    }
    // A page that reconnected has a new token: its guess moves to it (its old token's answer counted meanwhile).
    answerAgain() {
      const q = this.question;
      if (q && !q.revealed && this.guess !== null && !this.key) this.sendGuess(q, this.answeredWith || null);
    }
    // ---- both: the room's events
    listen() {
      if (this.source) this.source.close();
      this.source = api.roomEvents(this.code, this.key);
      const on = (name, handle) => this.source.addEventListener(name, (e) => {
        handle(JSON.parse(e.data));
        this.draw();
      });
      on("state", (state) => {
        this.count = state.following;
        const again = state.token && this.token && state.token !== this.token;
        if (state.token) this.token = state.token;
        if (state.lecturer === false) this.lecturer = "away";
        else if (this.lecturer === "away") this.lecturerBack();
        this.setQuestion(state.question);
        if (again) this.answerAgain();
        this.apply(state.view);
      });
      on("view", (view) => this.apply(view));
      on("following", (data) => {
        this.count = data.following;
      });
      on("lecturer", (data) => {
        if (!data.present) this.lecturer = "away";
        else if (this.lecturer === "away") this.lecturerBack();
      });
      on("question", (q) => this.setQuestion(q));
      on("answered", (data) => {
        if (this.question && this.question.id === data.id) this.question.answered = data.answered;
      });
      on("end", () => {
        const code = this.code;
        this.close();
        this.viewer.say("The lecturer ended room " + code + ".");
      });
      this.source.onerror = () => {
        if (this.unloading) return;
        if (this.source && this.source.readyState === EventSource.CLOSED) {
          const code = this.code;
          window.setTimeout(() => {
            if (this.unloading || this.code !== code) return;
            if (this.key) try {
              sessionStorage.removeItem(KEY);
            } catch (e) {
            }
            this.close();
            this.viewer.say("Room " + code + " cannot be followed: it has ended, the server restarted, or it is full.");
          }, 1e3);
        } else {
          this.error = "reconnecting…";
          this.draw();
        }
      };
      this.source.onopen = () => {
        this.error = null;
        this.draw();
      };
      this.draw();
    }
    // "The lecturer is back", said for a few seconds, then the bar as it was.
    lecturerBack() {
      this.lecturer = "back";
      window.clearTimeout(this.backTimer);
      this.backTimer = window.setTimeout(() => {
        if (this.lecturer === "back") {
          this.lecturer = null;
          this.draw();
        }
      }, 6e3);
    }
    setQuestion(q) {
      if (q && (!this.question || this.question.id !== q.id)) this.guess = null;
      if (q && q.revealed && this.key && this.onScreen(q) && !this.score.counted.includes(q.id)) {
        const row = this.row(q), best = row.indexOf(Math.max(...row));
        this.score.right += q.counts[best];
        this.score.answers += q.answered;
        this.score.counted.push(q.id);
        this.keep();
      }
      this.question = q;
      this.viewer.refresh();
    }
    close() {
      if (this.source) this.source.close();
      this.source = null;
      this.code = this.key = this.question = null;
      this.bar.hidden = true;
    }
    // The head's actual row at the question's step, from the trace on screen.
    row(q) {
      return this.viewer.trace.weights("cross", q.layer, q.head, q.step)[q.step - 1];
    }
    // Source chips as answers while a question is open (a student's page).
    decorateChips(box) {
      const q = this.question;
      if (!q || this.key || q.revealed || !this.onScreen(q)) return;
      Array.from(box.children).forEach((chip2, j) => {
        chip2.classList.add("ae-room-choice");
        chip2.classList.toggle("ae-room-guess", j === this.guess);
        chip2.dataset.index = j;
      });
    }
    // ---- the room bar
    draw() {
      this.bar.hidden = !this.code;
      if (!this.code) return;
      const parts2 = [el("b", "ae-room-code", "Room " + this.code)];
      if (this.key && this.adopting) {
        parts2.push(el("span", "ae-room-count", "rejoining as the lecturer…"));
      } else if (this.key) {
        parts2.push(
          el("span", "ae-room-count", (this.count || 0) + " following"),
          button("Show code", "The code, the address and a QR code, large, for the projector", () => this.showCode()),
          button("Ask the class", "Which source token will the shown cross-attention head attend to most at the next step?", () => this.ask()),
          button("Reveal", "Show the class's guesses beside the head's actual row", () => this.reveal()),
          button("End room", "Close the room: the students' pages stop following", () => this.end())
        );
        if (this.score.answers) {
          parts2.push(el("span", "ae-room-score", "Class score: " + this.score.right + " of " + this.score.answers + " right"));
        }
      } else {
        const how = !this.following ? "exploring on your own" : this.token ? "following the lecturer" : "joining the room…";
        parts2.push(el("span", "ae-room-count", how));
        if (this.lecturer === "away") {
          parts2.push(el("span", "ae-room-lecturer ae-room-note", "the lecturer's page is away: this view waits for it (a reload or a sleeping laptop comes back on its own)"));
        } else if (this.lecturer === "back") parts2.push(el("span", "ae-room-lecturer", "the lecturer is back"));
        parts2.push(
          this.following ? button("Explore on my own", "Stop following; the class is not affected", () => this.detach()) : button("Follow again", "Back to the lecturer's view", () => this.follow(), "ae-primary")
        );
      }
      if (this.error) parts2.push(el("span", "ae-room-note", this.error));
      const q = this.question;
      if (q && this.shows(q)) parts2.push(this.questionPart(q));
      this.bar.replaceChildren(...parts2);
    }
    // Whether question `q` stays on this page: a student's revealed question leaves at the next sentence (it is about
    // one no longer on screen) or when dismissed; the next question replaces it. The lecturer's stays, as the record.
    shows(q) {
      if (this.key || !q.revealed) return true;
      return this.onScreen(q) && this.dismissed !== q.id;
    }
    questionPart(q) {
      const box = el("div", "ae-room-question");
      const trace = this.viewer.trace, tokens = trace.sourceTokens;
      box.appendChild(el("div", "ae-room-ask", "Class question " + q.id + " · " + headName(q.layer, q.head) + ": which source token will step " + q.step + " attend to most? " + q.answered + " answered."));
      if (!this.onScreen(q)) {
        const about = q.trace ? "“" + q.trace.sentence + "”" : "the lecturer's sentence";
        box.appendChild(el("div", "ae-room-note", "This question is about " + about + (this.key ? ": translate it again to see the answer." : ": follow again to answer and see it.")));
        return box;
      }
      if (!q.revealed) {
        box.appendChild(el("div", "ae-room-note", this.key ? "Students click a source token; press Reveal when ready." : this.guess === null ? "Click it in Source." : "Your guess: “" + tokens[this.guess] + "”. Wait for the reveal."));
        return box;
      }
      const row = this.row(q), best = row.indexOf(Math.max(...row)), peak = Math.max(1, ...q.counts);
      const table = el("div", "ae-room-histogram");
      tokens.forEach((token, j) => {
        const bar = el("div", "ae-room-bar" + (j === best ? " ae-room-best" : "") + (j === this.guess ? " ae-room-mine" : ""));
        const meter = (className, share, text) => {
          const track = el("span", "ae-room-track " + className), fill = el("span", "ae-room-fill");
          fill.style.width = (100 * share).toFixed(1) + "%";
          track.append(fill, el("span", "ae-room-value", text));
          return track;
        };
        bar.append(
          el("span", "ae-room-token", token),
          meter("ae-room-guesses", q.counts[j] / peak, String(q.counts[j])),
          meter("ae-room-weight", row[j], row[j].toFixed(2))
        );
        table.appendChild(bar);
      });
      if (!this.key) {
        box.appendChild(button("✕ Dismiss", "Hide this answer (the next question shows on its own)", () => {
          this.dismissed = q.id;
          this.draw();
        }, "ae-room-dismiss"));
      }
      box.append(el("div", "ae-room-note", "The class's guesses (blue) beside the head's weights (orange); the head looked most at “" + tokens[best] + "”." + (this.key || this.guess === null ? "" : this.guess === best ? " Your guess was right." : " Your guess, “" + tokens[this.guess] + "”, got weight " + row[this.guess].toFixed(2) + ".")), table);
      return box;
    }
    showCode() {
      const overlay = el("div", "ae-room-overlay");
      const url = this.studentUrl();
      const qr = document.createElement("img");
      qr.alt = "QR code of " + url;
      qr.src = api.roomQrUrl(this.code, url);
      overlay.append(
        el("div", "ae-room-big", this.code),
        qr,
        el("div", "ae-room-url", url),
        button("Close", "Back to the viewer", () => overlay.remove(), "ae-primary")
      );
      overlay.addEventListener("click", (e) => {
        if (e.target === overlay) overlay.remove();
      });
      document.body.appendChild(overlay);
    }
  };

  // lesson.js
  var KIND_NAMES2 = { encoder_self: "encoder", decoder_self: "decoder self-attention", cross: "cross-attention" };
  var w2 = (x) => x.toFixed(2);
  var pct = (p) => (100 * p).toFixed(1) + "%";
  var quote = (token) => "“" + token + "”";
  function argmax(row) {
    let best = 0;
    row.forEach((v, j) => {
      if (v !== null && v > row[best]) best = j;
    });
    return best;
  }
  function clearestStep(trace, layer, head) {
    let best = { step: 1, j: 0, weight: -1 };
    for (let t = 1; t <= trace.T; t++) {
      const row = trace.weights("cross", layer, head, t)[t - 1];
      const j = argmax(row);
      const isEnd = trace.targetTokens[t - 1] === "</s>" || trace.sourceTokens[j] === "</s>";
      if (!isEnd && row[j] > best.weight) best = { step: t, j, weight: row[j] };
    }
    return best;
  }
  function goldSentence(t, layer, head) {
    const aer = t.goldAer(layer, head);
    if (aer !== null) {
      return "The outlines are the links a person aligned by hand: " + headName(layer, head) + "'s alignment error rate (AER) on this sentence is " + aer.toFixed(2) + " (0: exactly the gold links).";
    }
    if (t.gold) return "This sentence is aligned by hand: press G to decode its gold translation and see the links outlined.";
    return "Read down the rows: where a head's weight follows the words' correspondence, attention is an alignment.";
  }
  function rolesSaid(t, ask) {
    const answer2 = rolesFor(t, ask);
    if (!answer2) return "… (asking the server what each head does over many sentences)";
    if (answer2.error) return "";
    const seen = /* @__PURE__ */ new Map();
    for (const h of answer2.heads) if (h.role && !seen.has(h.role)) seen.set(h.role, h);
    const unlabelled = answer2.heads.filter((h) => !h.role).length;
    if (!seen.size) return "Measured over " + answer2.probe + " sentences, no head of this model has a clear role: each mixes several.";
    return "Over " + answer2.probe + " sentences, heads take roles: " + [...seen.values()].map((h) => KIND_NAMES2[h.kind] + " " + headName(h.layer, h.head) + ", " + h.says).join("; ") + ". " + unlabelled + " of the " + answer2.heads.length + " heads have none that the data supports (Voita et al. 2019 found that the heads that matter are the ones with a role).";
  }
  function wordsOf(pieces) {
    let word = -1;
    return pieces.map((p, i) => i > 0 && p.startsWith("·") ? word : ++word);
  }
  function strongestEncoderLink(trace) {
    let best = { layer: 0, head: 0, i: 0, j: 0, weight: -1 };
    const words = wordsOf(trace.sourceTokens);
    for (let layer = 0; layer < trace.nLayers("encoder_self"); layer++) {
      for (let head = 0; head < trace.H; head++) {
        trace.head("encoder_self", layer, head, 0).forEach((row, i) => row.forEach((v, j) => {
          const plain = words[i] !== words[j] && trace.sourceTokens[i] !== "</s>" && trace.sourceTokens[j] !== "</s>";
          if (plain && v > best.weight) best = { layer, head, i, j, weight: v };
        }));
      }
    }
    return best;
  }
  function decidedAt(trace, step, ask) {
    const lens = lensOf(trace, ask);
    if (!lens) return "… (asking the server)";
    if (lens.error) return "not known here (" + lens.error + ")";
    const id = trace.steps[step - 1].id;
    const layer = lens.top_ids.findIndex((layerIds) => layerIds[step - 1][0] === id);
    return layer < 0 ? "no layer (it was sampled or forced)" : "layer " + layer;
  }
  function softmaxGap(scores, weights, order, tokens) {
    if (order.length < 2) return "";
    const [a, b] = order, gap = scores[a] - scores[b], factor = Math.exp(gap);
    const times = factor < 10 ? factor.toFixed(1) : Math.round(factor).toLocaleString("en-US");
    return "Why so lopsided: each weight is e^score divided by the sum of them all, so the gap of " + w2(scores[a]) + " − " + w2(scores[b]) + " = " + w2(gap) + " in score makes the weight of " + quote(tokens[a]) + " e^" + w2(gap) + " ≈ " + times + " times that of " + quote(tokens[b]) + ": " + w2(weights[a]) + " against " + w2(weights[b]) + ".";
  }
  var dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);
  var norm = (a) => Math.sqrt(dot(a, a));
  function headTensors(t, ask) {
    const [layer, head] = lessonHead(t);
    const step = clearestStep(t, layer, head).step;
    return { step, answer: ask({ what: "value_path", kind: "cross", layer, head, row: step - 1 }) };
  }
  function lessonHead(trace) {
    const [layer, head] = trace.defaultCross();
    return [layer, head === "mean" ? 0 : head];
  }
  var STOPS = [
    {
      title: "The sentence as word pieces",
      view: () => ({ view: "heatmap", kind: "encoder_self", layer: 0, head: "mean", step: 0 }),
      say(t) {
        const pieces = t.sourceTokens;
        const split = pieces.filter((p) => p.startsWith("·"));
        return [
          "The model never reads words. Your sentence is " + (pieces.length - 1) + " word pieces, and " + quote("</s>") + " closes it: " + pieces.map(quote).join(" ") + ".",
          "Each piece is a number in a vocabulary the tokenizer learned: " + quote(pieces[0]) + " is id " + t.wire.source_ids[0] + ". " + (split.length ? "A word the vocabulary lacks is cut into pieces: " + split.map(quote).join(", ") + (split.length === 1 ? " continues the word before it (“·”)." : " continue the word before them (“·”).") : "Every word here is one piece of the vocabulary: none had to be cut."),
          "The grid on the right has one row and one column per piece: the " + pieces.length + " × " + pieces.length + " encoder self-attention of layer 0."
        ];
      }
    },
    {
      title: "Embeddings plus the positional encoding",
      view: () => ({ view: "heatmap", kind: "encoder_self", layer: 0, head: "mean", step: 0 }),
      say(t) {
        const d = t.model.n_heads * t.model.d_head;
        return [
          "Each piece's id picks one row of the embedding table: a vector of d_model = " + d + " numbers. On its own it says what the piece is, not where it stands.",
          "So the model adds the positional encoding PE(pos), the same sine and cosine waves for every sentence: " + quote(t.sourceTokens[0]) + " gets PE(0), " + quote(t.sourceTokens[t.S - 1]) + " gets PE(" + (t.S - 1) + "). Attention itself ignores order; these waves are the only way the model knows it (the Positional encoding tab draws them; the view “No positions” takes them away)."
        ];
      }
    },
    {
      title: "Encoder self-attention",
      view(t) {
        const link = strongestEncoderLink(t);
        return { view: "heatmap", kind: "encoder_self", layer: link.layer, head: link.head, step: 0 };
      },
      say(t) {
        const link = strongestEncoderLink(t);
        return [
          "Every piece asks every other piece of the source how much it matters to it, in " + t.nLayers("encoder_self") + " layers of " + t.H + " heads. A row of the grid is one piece's question; it sums to 1.",
          "In " + headName(link.layer, link.head) + ", " + quote(t.sourceTokens[link.i]) + " puts " + w2(link.weight) + " of its weight on " + quote(t.sourceTokens[link.j]) + ": the strongest link between two words in this sentence."
        ];
      }
    },
    {
      title: "The decoder starts from <s>",
      view: () => ({ view: "heatmap", kind: "decoder_self", layer: 0, head: 0, step: 1 }),
      say(t) {
        const first = t.steps[0];
        return [
          "The decoder writes the " + t.targetLanguage + " one piece at a time. At step 1 its only input is " + quote("<s>") + " (start), and it writes " + quote(first.token) + " with probability " + pct(first.prob) + ".",
          "Each step appends the piece just written to the decoder's input: at step 2 it reads " + quote("<s>") + " and " + quote(first.token) + ". This sentence took " + t.T + " steps and " + (t.wire.finished === "eos" ? "ended when the model wrote </s>." : "stopped at the length limit.")
        ];
      }
    },
    {
      title: "The look-ahead mask",
      view: (t) => ({ view: "mask", kind: "decoder_self", layer: 0, head: 0, step: Math.min(3, t.T) }),
      say(t, s) {
        const step = Math.max(2, Math.min(s.step, t.T));
        if (t.T < 2) return ["This translation has one step only: the mask has nothing to hide. Try a longer sentence."];
        const scores = t.scoresAt(0, 0, step);
        const inputs = t.decoderInputTokens;
        return [
          "Training shows the decoder the whole " + t.targetLanguage + " sentence at once, so it must not peek at the pieces it has not written yet. Before the softmax, every score of a later position is set to −∞.",
          "Row " + quote(inputs[0] + ARROW + t.targetTokens[0]) + " scores the next input " + quote(inputs[1]) + " at " + w2(scores[0][1]) + " (" + headName(0, 0) + "), but the mask makes that −∞, so its weight is exactly 0; the row's only visible key, " + quote(inputs[0]) + ", gets weight " + w2(t.head("decoder_self", 0, 0, step)[0][0]) + ".",
          "The three grids: the scores q·k/√d_k, the mask, the weights after the softmax. The view “Without the mask” shows a model trained without it."
        ];
      }
    },
    {
      title: "Cross-attention as alignment",
      view(t) {
        const [layer, head] = lessonHead(t);
        return { view: "heatmap", kind: "cross", layer, head, step: clearestStep(t, layer, head).step };
      },
      say(t) {
        const [layer, head] = lessonHead(t);
        const c = clearestStep(t, layer, head);
        return [
          "Cross-attention is where the decoder reads the source: the query comes from the decoder (the " + t.targetLanguage + " written so far), the keys and the values from the encoder (its output for every " + t.sourceLanguage + " piece), so each " + t.targetLanguage + " step asks every " + t.sourceLanguage + " piece.",
          "At step " + c.step + " the decoder writes " + quote(t.targetTokens[c.step - 1]) + "; " + headName(layer, head) + " puts " + w2(c.weight) + " of its weight on " + quote(t.sourceTokens[c.j]) + ".",
          goldSentence(t, layer, head)
        ];
      }
    },
    {
      title: "Query, key and value",
      view(t) {
        const [layer, head] = lessonHead(t);
        return { view: "heatmap", kind: "cross", layer, head, step: clearestStep(t, layer, head).step };
      },
      say(t, s, ask) {
        const [layer, head] = lessonHead(t);
        const { step, answer: answer2 } = headTensors(t, ask);
        const intro = "Where does a weight come from? From each piece's vector, three learned matrices make a query (what this position is looking for), a key (what a piece offers to be found by) and a value (what a piece passes on).";
        if (!answer2) return [intro, "… (asking the server for this head's queries and keys)"];
        if (answer2.error) return [intro, "Not known here (" + answer2.error + ")."];
        const scores = answer2.keys.map((k) => dot(answer2.query, k) / Math.sqrt(answer2.d_head));
        const order = scores.map((_, j) => j).sort((a, b) => scores[b] - scores[a]).slice(0, 2);
        return [
          intro + " In " + headName(layer, head) + " each is d_k = " + answer2.d_head + " numbers.",
          "At step " + step + " the query that writes " + quote(t.targetTokens[step - 1]) + " meets the key of every " + t.sourceLanguage + " piece: q·k/√d_k = " + order.map((j) => w2(scores[j]) + " for " + quote(answer2.key_tokens[j])).join(", ") + ". The softmax turns the scores into the weights of the heatmap: " + w2(answer2.weights[order[0]]) + " on " + quote(answer2.key_tokens[order[0]]) + ".",
          softmaxGap(scores, answer2.weights, order, answer2.key_tokens),
          "Click any cell of the heatmap to see this arithmetic for that weight: q, k, the whole row's scores and the softmax's denominator."
        ];
      }
    },
    {
      title: "The weighted sum of the values",
      view(t) {
        const [layer, head] = lessonHead(t);
        return { view: "heatmap", kind: "cross", layer, head, step: clearestStep(t, layer, head).step };
      },
      say(t, s, ask) {
        const { step, answer: answer2 } = headTensors(t, ask);
        const intro = "The weights say where to look; what the head passes on is the weighted sum of the values, z = Σ w·v.";
        if (!answer2) return [intro, "… (asking the server for this head's values)"];
        if (answer2.error) return [intro, "Not known here (" + answer2.error + ")."];
        const j = argmax(answer2.weights), v = answer2.values[j], z = answer2.z;
        return [
          intro + " Here z is d_k = " + answer2.d_head + " numbers, a mix of the values of the pieces the query looks at.",
          "At step " + step + ", " + quote(answer2.key_tokens[j]) + " has weight " + w2(answer2.weights[j]) + ", so z is mostly its value: |z| = " + w2(norm(z)) + " against |v| = " + w2(norm(v)) + ", cosine " + w2(dot(z, v) / (norm(z) * norm(v))) + ".",
          "Every head's z is put side by side (" + t.H + " × " + answer2.d_head + " = " + answer2.d_model + " numbers), projected back by the output matrix and added to the residual stream. The view “Value path” (View row) draws each of these vectors, left to right, for the head and step on screen."
        ];
      }
    },
    {
      title: "The next token: a distribution, then a choice",
      view(t) {
        const [layer, head] = lessonHead(t);
        return { view: "heatmap", kind: "cross", layer, head, step: clearestStep(t, layer, head).step };
      },
      say(t, s) {
        const step = Math.max(1, s.step);
        const top = t.steps[step - 1].top.slice(0, 3);
        const chosen = t.steps[step - 1];
        const beam = t.request.strategy === "beam";
        return [
          "After the last layer, the decoder gives every piece of the vocabulary a probability. At step " + step + " the best were " + top.map((c) => quote(c.token) + " " + pct(c.prob)).join(", ") + " (the bars on the left).",
          beam ? "Beam search kept the " + t.request.beam_size + " best partial translations at every step instead of one; the best finished one, " + quote(t.wire.beams[0].text) + ", scored " + t.wire.beams[0].score.toFixed(2) + "." : "Greedy decoding takes the most probable one: " + quote(chosen.token) + ". Beam search would keep several candidates alive (Decoding ▾); click a bar to force another piece and see the model go on from it."
        ];
      }
    },
    {
      title: "Many heads, different patterns",
      view(t, s) {
        return { view: "heatmap", kind: "cross", layer: t.nLayers("cross") - 1, head: "all", step: Math.max(1, s.step) };
      },
      say(t, s, ask) {
        const step = Math.max(1, s.step), layer = t.nLayers("cross") - 1;
        const looks = [...Array(t.H).keys()].map((h) => {
          const row = t.head("cross", layer, h, step)[step - 1];
          const j = argmax(row);
          return "H" + h + " → " + quote(t.sourceTokens[j]) + " " + w2(row[j]);
        });
        return [
          "Each layer has " + t.H + " heads, each with its own queries and keys, so each can look somewhere else.",
          "At step " + step + ", writing " + quote(t.targetTokens[step - 1]) + ", the heads of cross-attention layer " + layer + " look most at: " + looks.join("; ") + ".",
          rolesSaid(t, ask)
        ];
      }
    },
    {
      title: "The layers",
      view(t, s) {
        return { view: "heatmap", kind: "cross", layer: t.nLayers("cross") - 1, head: "mean", step: Math.max(1, s.step) };
      },
      say(t, s, ask) {
        const step = Math.max(1, s.step);
        const per = [...Array(t.nLayers("cross")).keys()].map((layer) => {
          const row = t.meanOfHeads("cross", layer, step)[step - 1];
          const j = argmax(row);
          return "layer " + layer + ": " + quote(t.sourceTokens[j]) + " " + w2(row[j]);
        });
        return [
          "The decoder stacks " + t.nLayers("cross") + " layers; each reads the source again with what the layers below made of the " + t.targetLanguage + " so far.",
          "At step " + step + " the mean of the heads looks most at " + per.join(", ") + " (L cycles the layers).",
          "The view “Logit lens” reads every decoder layer as if it were the last: at step " + step + ", the layer from which " + quote(t.targetTokens[step - 1]) + " leads is " + decidedAt(t, step, ask) + "."
        ];
      }
    },
    {
      title: "Now try it yourself",
      view: () => ({}),
      say(t) {
        return [
          "Type your own sentence and press Enter; → steps through its translation as you did through " + quote(t.wire.outputs[t.T]) + ".",
          "Click a cell to see how its weight is computed, press Quiz to guess where a head will look, or switch a head off in the Head ablation tab and watch the translation change."
        ];
      }
    }
  ];
  var SEEN = "ae-lesson-pointed";
  var Lesson = class {
    constructor(viewer) {
      this.viewer = viewer;
      this.bar = el("div", "ae-lesson");
      this.bar.hidden = true;
      this.hint = this.pointer();
      viewer.store.subscribe((state) => {
        if (state.trace) this.shown(state);
      });
    }
    // Beside the Lesson button on a browser's first visit (not in presentation mode, not in a room): where to start,
    // and the button that starts. In the tools row, so it moves nothing a lecturer has found.
    pointer() {
      const box = el("span", "ae-first-visit");
      const following = new URLSearchParams(window.location.search).has("room");
      let seen = true;
      try {
        seen = window.localStorage.getItem(SEEN) === "1";
      } catch (e) {
        seen = true;
      }
      box.hidden = !this.viewer.online || following || seen;
      const done = () => {
        box.hidden = true;
        try {
          window.localStorage.setItem(SEEN, "1");
        } catch (e) {
        }
      };
      box.title = "The lesson walks through this sentence in " + STOPS.length + " stops, from its word pieces to attention and the layers, each with this sentence's own numbers.";
      box.append(
        el("span", "", "New to Transformers?"),
        button("Start here", "Open the lesson's first stop (→ ← move through the stops)", () => {
          done();
          this.go(1);
        }, "ae-primary"),
        button("✕", "Hide this for good", done)
      );
      this.pointed = done;
      return box;
    }
    // Open the lesson at its first stop, or close it.
    toggle() {
      if (this.viewer.state.lesson) this.close();
      else this.go(1);
    }
    // Stop n (1..STOPS.length): its view, through the store.
    go(n) {
      const v = this.viewer, t = v.trace;
      if (!t || n < 1 || n > STOPS.length) return;
      v.player.stop();
      if (!v.state.lesson) v.bringIntoView(".ae-lesson");
      v.select(Object.assign({ lesson: n, panel: null }, STOPS[n - 1].view(t, v.state)), "lesson");
    }
    move(delta) {
      this.go(this.viewer.state.lesson + delta);
    }
    close() {
      this.viewer.select({ lesson: null }, "lesson");
    }
    // The lesson's bar for the state shown (`state.trace`).
    shown(state) {
      if (state.lesson && !this.hint.hidden) this.pointed();
      this.draw(state.trace, state);
    }
    // ---- companion hooks (companions.js)
    tools() {
      return [button("Lesson", "A guided lesson through the model on this sentence, in " + STOPS.length + " stops (→ ← move)", () => this.toggle()), this.hint];
    }
    clamp(s) {
      const stop = Number(s.lesson);
      s.lesson = Number.isInteger(stop) && stop >= 1 ? Math.min(STOPS.length, stop) : null;
      return s;
    }
    opened(link) {
      if (!link || typeof link.lesson !== "number") return;
      const n = STOPS.length, stop = Math.min(n, Math.max(1, link.lesson));
      if (link.lesson !== stop) {
        const v = this.viewer, before = v.f.message.hidden ? "" : v.f.message.textContent + " ";
        v.say(before + "This link asks for lesson stop " + link.lesson + ", and the lesson has " + n + " stops (1–" + n + "): it opens at stop " + stop + ".");
      }
      if (link.step === void 0 || link.lesson !== stop) this.go(stop);
    }
    onKey(key) {
      const s = this.viewer.state;
      if (!s.lesson) return false;
      if (key === "ArrowRight" || key === "PageDown") this.move(1);
      else if (key === "ArrowLeft" || key === "PageUp") this.move(-1);
      else if (key === "Escape" && !s.panel) this.close();
      else return false;
      return true;
    }
    draw(t, s) {
      this.bar.hidden = !s.lesson;
      if (!s.lesson) return;
      const stop = STOPS[s.lesson - 1];
      const head = el("div", "ae-lesson-head");
      head.append(
        el("span", "ae-lesson-title", "Lesson " + s.lesson + " / " + STOPS.length + " · " + stop.title),
        button("◀", "Previous stop (←)", () => this.move(-1)),
        button("▶", "Next stop (→)", () => this.move(1), "ae-primary"),
        button("Close", "Close the lesson (Esc)", () => this.close())
      );
      head.children[1].disabled = s.lesson === 1;
      head.children[2].disabled = s.lesson === STOPS.length;
      const text = el("div", "ae-lesson-text");
      stop.say(t, s, (question2) => this.viewer.answers.get(question2)).forEach((sentence) => text.appendChild(el("p", "", sentence)));
      this.bar.replaceChildren(head, text);
    }
  };

  // quiz.js
  var Quiz = class {
    constructor(viewer) {
      this.viewer = viewer;
      this.on = false;
      this.banner = el("div", "ae-quiz");
      this.banner.hidden = true;
      this.reset();
      viewer.store.subscribe((state) => {
        if (!state.trace) return;
        this.decorateChips(viewer.f.sourceBox);
        this.draw(state.trace, state);
      });
    }
    // A new sentence: a new round.
    reset() {
      this.cursor = 0;
      this.answers = [];
      this.last = null;
    }
    // The head being quizzed: the selected cross-attention head, else the best-aligning one (else head 0).
    head(state) {
      const s = state || this.viewer.store.get(), t = this.viewer.trace;
      if (s.kind === "cross" && Number.isInteger(s.head)) return [s.layer, s.head];
      const best = t.model.best_head;
      return best && best.kind === "cross" ? [best.layer, best.head] : [t.nLayers("cross") - 1, 0];
    }
    toggle() {
      this.on = !this.on;
      this.reset();
      if (!this.on) return this.viewer.refresh();
      const [layer, head] = this.head(Object.assign({}, this.viewer.store.get(), { kind: "cross" }));
      this.viewer.select({ view: "heatmap", kind: "cross", layer, head }, "quiz", true);
    }
    // The student's answer for the next step: source position `j` (null: revealed without a pick).
    pick(j) {
      const v = this.viewer, t = v.trace, step = v.store.get().step + 1;
      if (!this.on || step > t.T) return;
      if (j !== null && !(j >= 0 && j < t.S)) return;
      const [layer, head] = this.head();
      const row = t.weights("cross", layer, head, step)[step - 1];
      const best = row.indexOf(Math.max(...row));
      this.last = { step, pick: j, weight: j === null ? null : row[j], best, bestWeight: row[best], layer, head };
      if (!this.answers.some((a) => a.step === step)) this.answers.push(this.last);
      v.go(step, "quiz");
    }
    move(delta) {
      const S = this.viewer.trace.S;
      this.cursor = (this.cursor + delta + S) % S;
      this.viewer.refresh();
    }
    score() {
      const picked = this.answers.filter((a) => a.pick !== null);
      const right = picked.filter((a) => a.pick === a.best).length;
      const share = picked.length ? picked.reduce((sum, a) => sum + a.weight / a.bestWeight, 0) / picked.length : 0;
      return { right, picked: picked.length, share };
    }
    // The quiz bar: the question for the next step, the last answer revealed, the running score.
    draw(trace, state) {
      const bar = this.banner;
      bar.hidden = !this.on;
      if (!this.on) return;
      const [layer, head] = this.head(state);
      const parts2 = [];
      if (this.last && this.last.step === state.step) {
        const a = this.last;
        const verdict = a.pick === null ? "Revealed without a guess: " : a.pick === a.best ? "Right: " : "You picked “" + trace.sourceTokens[a.pick] + "” (weight " + a.weight.toFixed(2) + "); ";
        parts2.push(el(
          "div",
          "ae-quiz-result " + (a.pick === a.best ? "ae-quiz-right" : ""),
          verdict + "the head put most weight, " + a.bestWeight.toFixed(2) + ", on “" + trace.sourceTokens[a.best] + "”."
        ));
      }
      const sc = this.score();
      parts2.push(el("div", "ae-quiz-score", "Score: " + sc.right + " of " + sc.picked + " right" + (sc.picked ? "; your picks got " + Math.round(100 * sc.share) + " % of the largest weight on average" : "")));
      if (state.step < trace.T) {
        parts2.unshift(el("div", "ae-quiz-question", "Quiz · " + headName(layer, head) + ": which source token will step " + (state.step + 1) + " attend to most? Click it in Source (or [ ] to move, Enter to choose); → reveals without a guess."));
      } else parts2.unshift(el("div", "ae-quiz-question", "Quiz finished for this sentence."));
      const stop = el("button", "ae-btn", "End quiz");
      stop.type = "button";
      stop.addEventListener("click", () => this.toggle());
      parts2.push(stop);
      bar.replaceChildren(...parts2);
    }
    // ---- companion hooks (companions.js)
    tools() {
      return [button("Quiz", "Predict, then reveal: guess where a head will look before each step", () => this.toggle())];
    }
    loading() {
      this.reset();
    }
    // a new sentence: a new round
    answer(j) {
      if (!this.on) return false;
      this.pick(j);
      return true;
    }
    onKey(key) {
      if (!this.on) return false;
      if (key === "[" || key === "]") this.move(key === "]" ? 1 : -1);
      else if (key === "Enter") this.pick(this.cursor);
      else if (key === "ArrowRight" || key === "PageDown") this.pick(null);
      else if (key === "Escape" && !this.viewer.state.panel) this.toggle();
      else return false;
      return true;
    }
    // Source chips as answers: clickable, the keyboard cursor outlined.
    decorateChips(box) {
      if (!this.on) return;
      Array.from(box.children).forEach((chip2, j) => {
        chip2.classList.add("ae-quiz-choice");
        chip2.classList.toggle("ae-quiz-cursor", j === this.cursor);
        chip2.dataset.index = j;
      });
    }
  };

  // timelapse.js
  var PACE_MS = 1500;
  var TimeLapse = class {
    // `record`: the sentences and steps the checkpoint's time-lapse holds (the page's settings)
    constructor(viewer, record = SETTINGS.TIMELAPSE) {
      this.viewer = viewer;
      this.record = record;
      this.traces = {};
      this.select = el("select", "ae-training-step");
      this.select.title = "The model at an earlier point of its training (recorded examples only)";
      this.select.addEventListener("change", () => {
        const i = Number(this.select.value);
        this.stop();
        this.choose(i);
      });
      this.label = el("label", "ae-row-label", "Training step");
      this.play = button(
        "▶ Play training",
        "Play the time-lapse: each recorded training step in turn, then the final model",
        () => this.togglePlay(),
        "ae-training-play"
      );
      this.note = el("span", "ae-training-note");
      this.selectorRow = el("div", "ae-row ae-training");
      this.selectorRow.append(this.label, this.select, this.play, this.note);
      this.shown = null;
      this.playing = null;
      this.pace = PACE_MS;
    }
    // The plain greedy trace of a recorded sentence with the shipped model: the only one the time-lapse has.
    recorded(trace) {
      const r = trace.request, recorded = this.record.sentences;
      return this.viewer.online && recorded.includes(r.sentence) && r.strategy === "greedy" && !(r.forced_ids || []).length && !(r.ablation || []).length && !r.prefix && (trace.modelKey === "shipped" || trace.modelKey === DEFAULT_MODEL);
    }
    // A trace the viewer loads (companions.js): the final model's unless the time-lapse asked for it.
    loading(trace, options) {
      if (!options.keepView) {
        this.shown = null;
        this.playing = null;
      }
      this.update();
    }
    // Offer the steps for the trace on screen, or say why not.
    update() {
      const steps = this.record.steps;
      const ok = steps.length > 0 && this.recorded(this.viewer.trace);
      if (!ok) this.playing = null;
      this.selectorRow.hidden = !steps.length;
      this.select.disabled = !ok;
      this.play.disabled = !ok;
      this.play.textContent = this.playing ? "⏸ Pause training" : "▶ Play training";
      this.play.setAttribute("aria-pressed", this.playing ? "true" : "false");
      this.select.replaceChildren(...steps.map((step, i2) => {
        const o = el("option", "", i2 === steps.length - 1 ? "final (" + step + ")" : String(step));
        o.value = i2;
        return o;
      }));
      const i = this.shown === null ? steps.length - 1 : steps.indexOf(this.shown);
      this.select.value = String(Math.max(0, i));
      this.note.textContent = !steps.length ? "" : ok ? this.shown === null ? "" : "The model after " + this.shown + " of " + steps[steps.length - 1] + " training steps." : "Only the Translate tab's examples (greedy, nothing forced or switched off) have a training time-lapse.";
    }
    // Show point `i` of the time-lapse: the same view of the same sentence, decoded by that model.
    choose(i) {
      const v = this.viewer, sentence = v.trace.request.sentence;
      if (!this.traces[sentence]) {
        this.traces[sentence] = api.timelapse(sentence);
        this.traces[sentence].catch(() => {
          delete this.traces[sentence];
        });
      }
      v.explore();
      const point = this.traces[sentence].then((recorded) => {
        this.shown = i === recorded.steps.length - 1 ? null : recorded.steps[i];
        return recorded.traces[i];
      });
      return v.show(point, { keepView: true });
    }
    // Play: from the step after the one shown (from the first when the final model is shown) to the final model, each
    // point drawn and then left `pace` ms on screen; pressed again (Pause), it stops where it is.
    async togglePlay() {
      if (this.playing) return this.stop();
      const run = this.playing = {}, steps = this.record.steps;
      this.update();
      const from = this.shown === null ? 0 : steps.indexOf(this.shown) + 1;
      for (let i = from; i < steps.length && this.playing === run; i++) {
        const drawn = await this.choose(i);
        if (!drawn) break;
        if (i < steps.length - 1 && this.playing === run) await new Promise((resolve) => setTimeout(resolve, this.pace));
      }
      if (this.playing === run) this.stop();
    }
    stop() {
      this.playing = null;
      this.update();
    }
  };

  // companions.js
  var COMPANIONS = [Room, Lesson, Quiz, TimeLapse];

  // chips.js
  function chip(text, className, style, title2) {
    const span2 = document.createElement("span");
    span2.className = "ae-chip " + className;
    span2.textContent = text;
    if (style) span2.setAttribute("style", style);
    if (title2) span2.title = title2;
    return span2;
  }
  function drawSourceChips(box, trace, row) {
    box.replaceChildren(...trace.sourceTokens.map((token, j) => {
      if (!row) return chip(token, "ae-source");
      const w = row[j];
      const style = "background: rgba(213, 94, 0, " + Math.min(1, w * 1.5).toFixed(3) + ");" + (w > 0.45 ? " color: white;" : "");
      return chip(token, "ae-source", style, "weight " + w.toFixed(4));
    }));
  }
  function drawTargetChips(box, trace, t) {
    const chips = [chip("<s>", "ae-start")];
    for (let i = 0; i < t; i++) {
      const s = trace.steps[i];
      const kind = i === t - 1 ? "ae-current" : s.forced ? "ae-forced" : "ae-produced";
      chips.push(chip(s.token, kind, null, "p = " + (100 * s.prob).toFixed(1) + "%" + (s.forced ? " (forced)" : "")));
    }
    if (trace.steps.slice(0, t).some((s) => s.forced)) chips.push(forcedLegend());
    box.replaceChildren(...chips);
  }
  function forcedLegend() {
    const legend = document.createElement("span");
    legend.className = "ae-chip-legend";
    const swatch = document.createElement("span");
    swatch.className = "ae-swatch ae-swatch-forced";
    legend.append(swatch, "forced: you chose it, not the model");
    return legend;
  }
  function statusText(trace, t) {
    if (t === 0) return "Step 0 of " + trace.T + ": ready. Press → (Next) to produce the first target token.";
    const s = trace.steps[t - 1];
    const how = s.forced ? "forced" : { sample: "sampled", beam: "from the best beam" }[trace.request.strategy] || "argmax";
    let text = "Step " + t + " of " + trace.T + ": produced “" + s.token + "” (p = " + (100 * s.prob).toFixed(1) + "%, " + how + ").";
    if (t === trace.T) text += trace.wire.finished === "eos" ? " Decoding finished at </s>." : " Decoding stopped at the length limit.";
    return text;
  }
  function drawStatus(box, trace, t) {
    const line = document.createElement("div");
    line.className = "ae-status-line";
    line.textContent = statusText(trace, t);
    box.replaceChildren(line);
  }
  function drawNotes(box, trace) {
    box.hidden = !trace.wire.notes.length;
    box.replaceChildren(...trace.wire.notes.map((note) => {
      const item = document.createElement("li");
      item.textContent = note;
      return item;
    }));
  }
  function drawBeams(box, trace) {
    const beams = trace.wire.beams;
    box.hidden = !beams.length;
    if (!beams.length) return;
    const table = el("table", "ae-beam-table");
    const head = el("tr");
    ["rank", "translation", "score", "log-prob", "finished"].forEach((h) => head.appendChild(el("th", "", h)));
    table.appendChild(head);
    beams.forEach((b, i) => {
      const tr = el("tr");
      [String(i + 1), b.text, b.score.toFixed(3), b.log_prob.toFixed(3), b.finished ? "yes" : "cut off"].forEach((c) => tr.appendChild(el("td", "", c)));
      table.appendChild(tr);
    });
    box.replaceChildren(el("div", "ae-label", "Beams (the best one is stepped through)"), table);
  }

  // beamline.js
  function asksBeam(trace) {
    const r = trace.request;
    return r.strategy === "greedy" && !(r.forced_ids && r.forced_ids.length) && !r.prefix;
  }
  function beamLine(trace, answer2, followed) {
    const r = trace.request;
    if (followed && followed.sentence === r.sentence && followed.model === trace.modelKey && sameIds(followed.ids, r.forced_ids || [])) {
      return {
        text: "Stepping through what beam search (" + followed.beamSize + ") writes, its tokens forced: at each step the candidates show where greedy decoding would have gone instead.",
        action: { label: "Back to greedy", title: "Decode this sentence greedily again", change: { forced_ids: [], prefix: "" } }
      };
    }
    if (!asksBeam(trace) || !answer2 || answer2.error || !answer2.nodes) return null;
    const greedy = trace.wire.outputs[trace.wire.outputs.length - 1];
    if (answer2.translation === greedy) return null;
    return {
      text: "Beam search (" + answer2.beam_size + ") writes: “" + answer2.translation + "”",
      action: {
        label: "Step through it",
        title: "Step through beam search's translation: its tokens forced, one at a time",
        change: { strategy: "greedy", forced_ids: beamPath(answer2.nodes, answer2.winner), prefix: "" },
        beamSize: answer2.beam_size
      }
    };
  }
  function sameIds(a, b) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  function drawBeamLine(box, line) {
    box.hidden = !line;
    if (!line) return box.replaceChildren();
    const act = button(line.action.label, line.action.title, () => emit(box, "ae-beam-line", line.action), "ae-beam-step");
    box.replaceChildren(el("span", "ae-beam-text", line.text), act);
  }

  // viewer.js
  function decodingName(request) {
    const how = { beam: "beam search (" + request.beam_size + ")", sample: "sampling (T " + request.temperature + ")" }[request.strategy] || "greedy";
    return how + (request.prefix ? " + what-if prefix" : "");
  }
  var Viewer = class {
    constructor(root, online) {
      this.root = root;
      this.busy = new Busy(root);
      this.online = online;
      this.ownKey = null;
      this.traceSeq = 0;
      const clamps = () => this.hooked("clamp").map((c) => (s) => c.clamp(s));
      const opening = { step: 0, kind: "cross", layer: 0, head: 0, view: VIEWS[0].id, panel: null, lesson: null };
      const panelIds = PANELS.map((p) => p.what);
      this.store = createStore(opening, (s) => clampToTrace(s, s.trace, VIEWS.map((v) => v.id), panelIds, clamps()));
      this.answers = new Answers(this.store, online, () => this.ownKey);
      this.store.subscribe(() => this.render());
      this.pendingView = readLink();
      this.player = new Player(this);
      this.companions = COMPANIONS.map((Companion) => new Companion(this));
      this.f = buildFrame(this);
      this.listen();
      bindKeys(this);
      this.presenting = presenting();
      new MutationObserver(() => {
        const now = presenting();
        if (now !== this.presenting) {
          this.f.place();
          this.f.area.resized();
        }
        if (now && !this.presenting) this.root.scrollIntoView({ block: "start" });
        this.presenting = now;
        this.refresh();
      }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
      window.addEventListener("resize", () => {
        this.f.area.resized();
        this.refresh();
      });
      new ResizeObserver(() => {
        if (this.trace && this.f.area.height(this.root, this.presenting) !== this.drawnHeight) this.refresh();
      }).observe(document.body);
    }
    // The companions (companions.js) that have hook `name`, in their order.
    hooked(name) {
      return this.companions.filter((c) => c[name] !== void 0);
    }
    // The person asked for a trace of their own (not the room's): a student following a room explores.
    explore() {
      this.hooked("explore").forEach((c) => c.explore());
    }
    get state() {
      return this.store.get();
    }
    // read-only: changes go through store.set (the actions below)
    get trace() {
      return this.opening || this.store.get().trace;
    }
    // while one opens (load), the companions see it
    get modelKey() {
      return this.trace ? this.trace.modelKey : DEFAULT_MODEL;
    }
    // the model of the trace on screen
    // What the views ask for, as the events they emit.
    listen() {
      const on = (name, handle) => this.root.addEventListener(name, (event) => handle(event.detail));
      on("ae-cell", (cell2) => this.openPanel(ON_CELL.what, cell2));
      on("ae-select", (change) => this.select(change, "click"));
      on("ae-force", (candidate) => this.force(candidate));
      on("ae-switch-off", (head) => this.switchOff(head.kind, head.layer, head.head));
      on("ae-follow", (path) => this.decodeWith({ strategy: "greedy", forced_ids: path.forced_ids, prefix: "" }));
      on("ae-beam-line", (action) => {
        const t = this.trace;
        this.beamFollowed = action.beamSize ? { sentence: t.request.sentence, model: t.modelKey, ids: action.change.forced_ids, beamSize: action.beamSize } : null;
        this.decodeWith(action.change);
      });
      on("ae-compare", (b) => {
        const compare = { what: "compare", sentence: b.sentence.trim(), model: b.model };
        this.answers.again(compare);
        this.store.set({ compare }, "click");
      });
      on("ae-close-panel", () => this.store.set({ panel: null }, "click"));
      on("ae-ask", (q) => this.openPanel(q.what, null, q));
      on("ae-redraw", () => this.refresh());
      on("ae-try", (offer) => this.tryOffer(offer.sentence));
    }
    // A new trace from the server, opened where opening.js says. `options`: keepView (the same sentence from another
    // model, a training step: keep the step too); link (the decode a link or Back asked for); opensAt ({sentence,
    // view}: where it opens, instead of the page's link).
    load(wire, options) {
      if (!wire || !wire.attention) return;
      const opts = options || {}, previous = this.trace, trace = this.opening = new Trace(wire);
      if (!isShipped(trace.modelKey)) this.ownKey = trace.modelKey;
      this.f.message.hidden = true;
      this.player.stop();
      try {
        this.hooked("loading").forEach((c) => c.loading(trace, opts));
      } finally {
        this.opening = null;
      }
      const pending = "opensAt" in opts ? opts.opensAt : this.pendingView;
      const { change, link } = openingOf(trace, previous, pending, opts);
      if (link) this.pendingView = null;
      drawNotes(this.f.notes, trace);
      if (this.online) agree(trace);
      if (this.f.decoding) this.f.decoding.textContent = "Decoding: " + decodingName(wire.request) + " ▾";
      if (this.presenting && previous && !opts.keepView) this.root.scrollIntoView({ block: "start" });
      this.store.set(change, "trace", true);
      const unused = link && pending.own ? unusedOfLink(link, pending.unread || [], this.state, trace, VIEWS.map((v) => v.id)) : [];
      if (unused.length) this.say("This link asks for what this sentence cannot show, so it was left out: " + unused.join("; ") + ". The rest of the link applies.");
      this.hooked("opened").forEach((c) => c.opened(link));
    }
    isVisible() {
      return this.root.offsetParent !== null || document.body.classList.contains("ae-standalone");
    }
    // ---- actions: the only ways what is shown changes
    go(step, source) {
      if (!this.trace) return;
      if (source !== "play") this.player.stop();
      const before = this.store.get();
      if (this.store.set({ step }, source) === before) this.showPlaying();
    }
    select(change, source, force) {
      if (this.trace) this.store.set(change, source || "click", force);
    }
    cycle(what) {
      const s = this.state, t = this.trace;
      if (what === "layer") this.select({ layer: (s.layer + 1) % t.nLayers(s.kind) }, "key");
      if (what === "kind") this.select({ kind: KINDS[(KINDS.indexOf(s.kind) + 1) % KINDS.length] }, "key");
      if (what === "view") this.select({ view: VIEWS[(VIEWS.indexOf(viewOf(s.view)) + 1) % VIEWS.length].id }, "key");
    }
    togglePlay() {
      if (this.player.playing()) this.player.stop();
      else this.player.start(this.f.toolbar.seconds());
      this.showPlaying();
    }
    // The step controls as they stand (the play button says whether it plays), without drawing the views again.
    showPlaying() {
      if (this.trace) this.f.toolbar.render(this.state.step, this.trace.T, this.player.playing());
    }
    // Draw again with the same state (the page's mode or size changed, the quiz moved its cursor): every subscriber of
    // the store is told, the companions with the viewer.
    refresh() {
      if (this.trace) this.store.set({}, "refresh", true);
    }
    // Open panel `what` and ask its question about the trace on screen (`cell`: the clicked cell, for the cell's panel;
    // `extra`: the question's own choices, e.g. {method: "exact"}).
    openPanel(what, cell2, extra) {
      const q = question(what, this.trace, this.state, cell2, extra);
      if (q.question) this.answers.again(q.question);
      this.bringIntoView(".ae-panel");
      this.store.set({ panel: what, panelContent: Object.assign({ what, cell: cell2 || null }, q) }, "click", true);
    }
    // After the lecturer scrolled: what opens with the next change of the store (a panel, the lesson) comes into the
    // window once it is drawn: the viewer goes back to its top (in presentation mode it fills the window; at a desk,
    // only if it was scrolled past or the element is out of the window). Called before that change.
    bringIntoView(selector) {
      this.bring = selector;
    }
    broughtIntoView() {
      const shown = this.bring && this.root.querySelector(this.bring);
      if (!shown || shown.offsetParent === null) return;
      this.bring = null;
      const top = shown.getBoundingClientRect().top, viewer = this.root.getBoundingClientRect().top;
      const away = viewer < 0 || top < 0 || top > window.innerHeight - 80;
      if (this.presenting || away) this.root.scrollIntoView({ block: "start" });
    }
    // The panel's content now: its note, the wait for its answer, or the answer (asked once per trace, answers.js).
    panelShown() {
      const c = this.state.panelContent;
      if (!c || !c.question) return c;
      const answer2 = this.answers.get(c.question);
      if (!answer2) return { what: c.what, note: c.waiting };
      return this.online ? { what: c.what, answer: answer2 } : { what: c.what, note: answer2.error };
    }
    // ---- drawing
    render() {
      const s = this.state, t = s.trace;
      if (!t) return Promise.resolve();
      const height = this.drawnHeight = this.f.area.height(this.root, this.presenting);
      this.f.toolbar.render(s.step, t.T, this.player.playing());
      const roles = rolesFor(t, this.online ? (q) => this.answers.get(q) : null);
      drawSelectors(this.f.rows, t, s, (change) => this.select(change), roles && !roles.error ? roles : null);
      drawStatus(this.f.status, t, s.step);
      const [row, which] = t.crossRow(s);
      this.f.sourceLabel.textContent = "Source" + (which ? " (shaded by cross-attention, " + which + ", at step " + s.step + ")" : "");
      drawSourceChips(this.f.sourceBox, t, row);
      drawTargetChips(this.f.targetBox, t, s.step);
      this.f.output.textContent = "Output so far: " + (t.wire.outputs[s.step] || "—");
      drawBeamLine(this.f.beamLine, beamLine(t, this.beamAnswer(t, s), this.beamFollowed));
      drawBeams(this.f.beams, t);
      const drawn = [this.f.topk.draw(t, s.step)];
      const view = this.f.area.view(s.view);
      const shown = Object.assign({}, s, { height: this.f.area.fit(s, t, height, this.presenting, this.panelShown()) });
      const context = { trace: t, compare: () => this.second(), ask: (q) => this.answers.get(q) };
      drawn.push(view.draw(context, shown));
      const cell2 = s.panelContent && s.panelContent.cell;
      if (s.panel && cell2 && view.focus) view.focus(cell2);
      const done = this.busy.during(Promise.all(drawn));
      if (this.bring) done.then(() => this.broughtIntoView());
      return done;
    }
    // What beam search writes for the greedy trace on screen (beamline.js): asked once the step-through reaches the end
    // of the translation (the page's opening trace brings it), then shown at every step; null while it is not there.
    beamAnswer(t, s) {
      if (!this.online || !asksBeam(t)) return null;
      return s.step === t.T ? this.answers.get(QUESTION2) : s.answers[keyOf(QUESTION2)] || null;
    }
    // Compare two's second trace ({trace, error}; none before its question is asked), made once per answer.
    second() {
      const asked = this.state.compare, answer2 = asked ? this.answers.get(asked) : null;
      if (!answer2 || !answer2.wire) return { trace: null, error: answer2 ? answer2.error : null };
      if (!this.compared || this.compared.answer !== answer2) this.compared = { answer: answer2, trace: new Trace(answer2.wire) };
      return { trace: this.compared.trace, error: null };
    }
    // ---- requests to the server
    // Show the trace a promise brings (the server's wire form), unless another was asked for meanwhile; a refusal is said
    // in words above the status line. `options`: load's. Returns the promise of the wire (null if refused).
    show(wire, options) {
      const seq = ++this.traceSeq;
      if (this.superseded) this.superseded();
      const release = this.superseded = this.busy.hold();
      this.root.classList.add("ae-busy");
      return Promise.resolve(wire).then(
        (got) => {
          if (seq === this.traceSeq && got) this.load(got, options);
          return got;
        },
        (error) => {
          if (seq === this.traceSeq) {
            this.pendingView = null;
            const kept = this.trace;
            if (options && options.link && kept) {
              this.say("This link's decode was refused: " + error.message + " The viewer still shows “" + kept.request.sentence + "”.");
              if (this.online) agree(kept);
            } else this.say(error.message);
          }
          return null;
        }
      ).finally(() => {
        release();
        if (seq === this.traceSeq) this.root.classList.remove("ae-busy");
      });
    }
    // Ask the server for the trace of `request` (request.js; without a model, the model on screen's) and show it.
    // `options`: load's, and byRoom (the classroom's own request; any other is the person's: a student following a
    // room explores).
    requestTrace(request, options) {
      if (!this.online) return Promise.resolve(null);
      const opts = options || {};
      if (!opts.byRoom) this.explore();
      if ("opensAt" in opts) this.pendingView = opts.opensAt;
      return this.show(api.trace(traceRequest(Object.assign({ model: this.modelKey }, request))), opts);
    }
    // The trace on screen decoded again with `change` to its request.
    // The sentence a view offers (views.js `offer`), traced with the model and options on screen and opened in that view
    // at the kind, layer and head shown: the person asked for it (a student following a room explores).
    tryOffer(sentence) {
      const s = this.state;
      this.explore();
      const opensAt = { sentence, view: { step: 0, kind: s.kind, layer: s.layer, head: s.head, view: s.view } };
      return this.decodeWith({ sentence, forced_ids: [], prefix: "" }, { opensAt });
    }
    decodeWith(change, options) {
      return this.requestTrace(Object.assign({}, this.trace.request, change), options);
    }
    // Force `candidate` at the current step: the tokens before it stay, the model continues after it (a new trace).
    force(candidate) {
      const s = this.state, t = this.trace;
      if (!candidate || !this.online || s.step === 0) return;
      this.decodeWith({ forced_ids: t.steps.slice(0, s.step - 1).map((x) => x.id).concat([candidate.id]), prefix: "" });
    }
    // The sentence's hand alignment in `view` (the heatmap's goldView): shown at once when the trace wrote the gold
    // translation, else a new trace that writes it (its pieces forced), shown when it arrives.
    showGold(view) {
      const t = this.trace, gold = t && t.gold;
      if (!t) return;
      if (!gold && t.languages !== "English → German") {
        this.say("G shows a hand alignment of the sentence with its German translation, and this model translates " + t.languages + ": no hand alignment exists for it. Switch to an English → German model to see one.");
        return;
      }
      if (!gold) {
        this.say("G shows a hand alignment, and no one has aligned “" + t.request.sentence + "” by hand. Pick an example from the Examples menu: each of them is aligned by hand, word by word.");
        return;
      }
      if (gold.matches) {
        this.select(view, "key");
        return;
      }
      const opensAt = { sentence: t.request.sentence, view: Object.assign({ step: gold.target_ids.length }, view) };
      this.decodeWith({ strategy: "greedy", forced_ids: gold.target_ids, prefix: "" }, { opensAt });
    }
    // Switch one more head off (a new trace) and show that head.
    switchOff(kind, layer, head) {
      const t = this.trace;
      const off = (t.request.ablation || []).filter(([k, l, h]) => !(k === kind && l === layer && h === head));
      const opensAt = { sentence: t.request.sentence, view: { kind, layer, head } };
      this.decodeWith({ ablation: off.concat([[kind, layer, head]]) }, { opensAt });
    }
    say(text) {
      this.f.message.textContent = text;
      this.f.message.hidden = false;
    }
    // After a new sentence, the keys step again (focus leaves the sentence box, where → would move the cursor).
    focus() {
      const active = document.activeElement;
      if (active && active !== document.body && this.root.closest("body") && active.blur) active.blur();
    }
  };

  // ablation.js
  var Ablation = class {
    // Build the tab in `element` and show the trace on screen (tabs.js: the context).
    constructor(element, context) {
      this.viewer = context.viewer;
      this.signal = context.signal;
      this.groups = el("div", "ae-ablate-groups");
      const before = output("All heads", "ablate-before"), after = output("With the chosen heads off", "ablate-after");
      this.before = before.text;
      this.after = after.text;
      this.note = el("div", "ae-ablate-note");
      const run = button(
        "Re-translate with these heads off",
        "Trace the sentence on screen again with the ticked heads off",
        () => this.retranslate(this.ticked()),
        "ae-ablate-run",
        this.signal
      );
      run.id = "ablate-btn";
      const clear = button(
        "Switch all heads back on",
        "Trace the sentence on screen again with every head on",
        () => this.retranslate([]),
        "",
        this.signal
      );
      const buttons = el("div", "ae-ablate-buttons"), outputs = el("div", "ae-ablate-outputs");
      buttons.append(run, clear);
      outputs.append(before.box, after.box);
      element.replaceChildren(this.groups, buttons, outputs, this.note);
      const unsubscribe = this.viewer.store.subscribe((state, changed) => {
        if (state.trace && changed.includes("trace")) this.show(state.trace);
      });
      this.signal.addEventListener("abort", unsubscribe);
      if (this.viewer.trace) this.show(this.viewer.trace);
    }
    // The boxes of the model of `trace`, ticked as its request switches heads off.
    show(trace) {
      const off = new Set(trace.request.ablation.map((h) => h.join(".")));
      this.groups.replaceChildren(...KINDS.map((kind) => {
        const group = el("fieldset", "ae-ablate-group");
        group.id = "ablate-" + kind;
        group.append(el("legend", "", KIND_TITLES[kind]));
        for (let layer = 0; layer < trace.nLayers(kind); layer++) {
          for (let head = 0; head < trace.H; head++) {
            const box = el("input");
            box.type = "checkbox";
            box.value = [kind, layer, head].join(".");
            box.checked = off.has(box.value);
            const label2 = el("label", "ae-ablate-head");
            label2.append(box, document.createTextNode(headName(layer, head)));
            group.append(label2);
          }
        }
        return group;
      }));
    }
    ticked() {
      return [...this.groups.querySelectorAll("input:checked")].map((box) => {
        const [kind, layer, head] = box.value.split(".");
        return [kind, Number(layer), Number(head)];
      });
    }
    // The sentence on screen traced again with `heads` off (the viewer shows it), beside its translation with all on.
    retranslate(heads) {
      const trace = this.viewer.trace;
      if (!trace) return Promise.resolve();
      const request = Object.assign({}, trace.request, { ablation: heads });
      this.note.textContent = "Translating…";
      const all = api.translate(Object.assign({}, request, { ablation: [] }));
      return Promise.all([this.viewer.requestTrace(request), all]).then(([wire, whole]) => {
        if (this.signal.aborted) return;
        if (!wire) {
          this.note.textContent = "The trace was refused: the message is above the viewer.";
          return;
        }
        const off = wire.outputs[wire.outputs.length - 1];
        this.before.textContent = whole.translation;
        this.after.textContent = off;
        this.note.textContent = !heads.length ? "All heads are on: both translations are the same model." : off === whole.translation ? "Switching off " + heads.length + " head(s) did not change the translation." : "Switching off " + heads.length + " head(s) changed the translation.";
      }, (error) => {
        this.note.textContent = error.message;
      });
    }
  };
  function output(label2, id) {
    const box = el("label", "ae-ablate-output"), text = el("output", "", "");
    text.id = id;
    box.append(el("span", "ae-row-label", label2), text);
    return { box, text };
  }
  var TAB = { id: "ablation", create: (element, context) => new Ablation(element, context) };

  // positional.js
  var CHARTS = ["heatmap", "waves", "similarity"];
  var Positional = class {
    // Build the charts' places in `element` (tabs.js: the context).
    constructor(element, context) {
      this.viewer = context.viewer;
      this.signal = context.signal;
      this.said = el("div", "ae-pe-said");
      this.said.id = "pe-said";
      this.said.setAttribute("role", "status");
      this.charts = CHARTS.map((name) => {
        const div = el("div", "ae-plot ae-pe-" + name);
        div.id = "pe-" + name;
        return div;
      });
      const row = el("div", "ae-pe-row");
      row.append(this.charts[1], this.charts[2]);
      element.replaceChildren(this.said, this.charts[0], row);
      this.showing = null;
    }
    // The Show button and the tab's opening ({positions, dims, waves, presentation}): the figures of the model on screen.
    show(values) {
      if (this.showing) this.showing.abort();
      this.showing = new AbortController();
      const signal = AbortSignal.any([this.signal, this.showing.signal]);
      const trace = this.viewer.trace;
      const model = trace && trace.modelKey || DEFAULT_MODEL;
      const params = { positions: values.positions, dims: values.dims, waves: values.waves, presentation: !!values.presentation, model };
      this.said.textContent = "";
      return api.positional(params, signal).then((answer2) => Promise.all(CHARTS.map((name, i) => react(this.charts[i], answer2[name].data, answer2[name].layout)))).catch((error) => {
        if (!signal.aborted) this.said.textContent = error.message;
      });
    }
  };
  var TAB2 = { id: "positional", create: (element, context) => new Positional(element, context) };

  // upload.js
  var Upload = class {
    // Build the picker in `element` (tabs.js: the context).
    constructor(element, context) {
      this.signal = context.signal;
      this.pending = Promise.resolve("");
      const input = el("input");
      input.type = "file";
      input.accept = ".tsv,.txt,text/tab-separated-values,text/plain";
      input.id = "train-file";
      const label2 = el("label", "ae-upload-label", "TSV file (English TAB German per line)");
      label2.htmlFor = input.id;
      this.said = el("output", "ae-upload-said", "No file chosen yet.");
      this.said.id = "train-file-said";
      element.replaceChildren(label2, input, this.said);
      input.addEventListener("change", () => {
        const file = input.files && input.files[0];
        this.pending = file ? this.send(file) : Promise.resolve("");
        if (!file) this.said.textContent = "No file chosen.";
      }, { signal: this.signal });
    }
    send(file) {
      this.said.textContent = "Uploading " + file.name + " …";
      return api.upload(file, this.signal).then((body) => {
        this.said.textContent = "Uploaded " + file.name + " (" + body.bytes.toLocaleString("en") + " bytes). Choose “my uploaded TSV” above and press Train.";
        return body.upload;
      }, (error) => {
        this.said.textContent = file.name + ": " + error.message;
        return "";
      });
    }
    // The id of the chosen file once its upload is done ("" for none, or when its upload was refused): what Train sends.
    chosen() {
      return this.pending;
    }
  };
  var TAB3 = { id: "upload", create: (element, context) => new Upload(element, context) };

  // train.js
  var Train = class {
    // Build the run's parts in `element` (tabs.js: the context).
    constructor(element, context) {
      this.context = context;
      this.run = null;
      this.trained = { key: null, name: null };
      this.message = el("div", "ae-train-message", "Choose the data, the model's size and how long, then press Train.");
      this.message.id = "train-message";
      this.message.setAttribute("role", "status");
      this.progress = el("progress", "ae-train-progress");
      this.progress.max = 1;
      this.progress.value = 0;
      this.loss = el("div", "ae-plot ae-train-chart");
      this.loss.id = "train-loss";
      this.snapshot = el("div", "ae-plot ae-train-chart");
      this.snapshot.id = "train-snapshot";
      this.download = el("a", "ae-train-download", "Download the trained checkpoint (.zip)");
      this.download.id = "train-download";
      this.download.hidden = true;
      const charts = el("div", "ae-train-charts");
      charts.append(this.loss, this.snapshot);
      element.replaceChildren(this.message, this.progress, charts, this.download);
      context.signal.addEventListener("abort", () => this.close());
    }
    // Say `text` in the Train tab's message line (also where "Explore my trained model" is refused).
    say(text) {
      this.message.textContent = text;
    }
    // The Train button ({corpus, preset, minutes, seed}, the Train tab's values by name).
    start(values) {
      if (this.run && this.run.source) return this.say("This page is already training a model: wait for it, or press Stop.");
      this.say("Starting…");
      const upload = this.context.tab("upload");
      return (upload ? upload.chosen() : Promise.resolve("")).then((file) => api.train({
        corpus: values.corpus,
        upload: values.corpus === "upload" ? file : "",
        preset: values.preset,
        minutes: values.minutes,
        seed: values.seed
      }, this.context.signal)).then((started) => this.follow(started.run)).catch((error) => {
        if (!this.context.signal.aborted) this.say(error.message);
      });
    }
    // The Stop button.
    stop() {
      if (!this.run || !this.run.source) return this.say("No training is running on this page.");
      return api.stopTraining(this.run.id).then((answer2) => this.say(answer2.message), (error) => this.say(error.message));
    }
    follow(id) {
      this.close();
      const source = api.trainingEvents(id);
      this.run = { id, source };
      this.download.hidden = true;
      source.addEventListener("state", (event) => this.draw(id, JSON.parse(event.data)));
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED && this.run && this.run.source === source) {
          this.run.source = null;
          this.say("The connection to the training run was lost (the server may have restarted): train again.");
        }
      };
    }
    close() {
      if (this.run && this.run.source) this.run.source.close();
      if (this.run) this.run.source = null;
    }
    draw(id, state) {
      this.say(state.message);
      this.progress.value = state.fraction;
      if (state.loss && state.loss.train.length > 1) drawLoss(this.loss, state.loss);
      if (state.snapshot) drawSnapshot(this.snapshot, state.snapshot);
      if (!state.done) return;
      this.close();
      if (state.checkpoint) {
        this.download.href = api.checkpointUrl(id);
        this.download.hidden = false;
      }
      if (state.model) Object.assign(this.trained, { key: state.model, name: state.name });
    }
  };
  var TAB4 = { id: "train", create: (element, context) => new Train(element, context) };
  var COLOURS = { train: "#0072B2", valid: "#D55E00", bleu: "#009E73", floor: "#64748b" };
  function lossTraces(loss) {
    const steps = loss.train.map((p) => p[0]);
    const traces = [{ x: steps, y: loss.train.map((p) => p[1]), name: "training loss (label-smoothed)", mode: "lines", line: { color: COLOURS.train } }];
    if (loss.floor != null) {
      traces.push({
        x: [steps[0], steps[steps.length - 1]],
        y: [loss.floor, loss.floor],
        mode: "lines",
        hoverinfo: "skip",
        name: "lowest possible (" + loss.floor.toFixed(2) + ")",
        line: { color: COLOURS.floor, dash: "dash", width: 1 }
      });
    }
    if (loss.valid.length) {
      const at = loss.valid.map((p) => p[0]);
      traces.push({ x: at, y: loss.valid.map((p) => p[1]), name: "validation loss", mode: "lines+markers", line: { color: COLOURS.valid } });
      traces.push({
        x: at,
        y: loss.valid.map((p) => p[2]),
        name: "validation BLEU",
        mode: "lines+markers",
        yaxis: "y2",
        line: { color: COLOURS.bleu, dash: "dot" },
        marker: { symbol: "square" }
      });
    }
    return traces;
  }
  function drawLoss(div, loss) {
    const font = fontSize();
    react(div, lossTraces(loss), layout2("Loss", 360, font, {
      xaxis: { title: { text: "step" }, automargin: true },
      yaxis: { title: { text: "cross-entropy" }, rangemode: "tozero", automargin: true },
      yaxis2: { title: { text: "BLEU" }, overlaying: "y", side: "right", rangemode: "tozero", automargin: true, visible: loss.valid.length > 0 },
      legend: { orientation: "h", y: -0.3 },
      margin: { l: 10, r: 10, t: 34 + font, b: 10 }
    }));
  }
  function drawSnapshot(div, snapshot) {
    const font = fontSize();
    const custom = snapshot.rows.map((row) => snapshot.columns.map((column) => [escape(row), escape(column)]));
    const heat = {
      type: "heatmap",
      z: snapshot.weights,
      zmin: 0,
      zmax: 1,
      colorscale: COLORS.scale,
      customdata: custom,
      hovertemplate: "%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>"
    };
    react(div, [heat], layout2(snapshot.title, 360, font, {
      xaxis: tokenAxis(snapshot.columns, "source token (English)", font),
      yaxis: Object.assign(tokenAxis(snapshot.rows, "target token (German)", font), { autorange: "reversed" })
    }));
  }

  // tabs.js
  var TABS = [TAB, TAB2, TAB3, TAB4];
  function tabOf(id) {
    const tab = TABS.find((t) => t.id === id);
    if (!tab) throw new Error("no such tab: " + id);
    return tab;
  }
  var Tabs = class {
    constructor(viewer) {
      this.viewer = viewer;
      this.mounted = /* @__PURE__ */ new Map();
      this.waiting = /* @__PURE__ */ new Map();
    }
    // Build tab `id` in `element`, ending its previous mount; the instance.
    mount(id, element) {
      const tab = tabOf(id);
      const before = this.mounted.get(id);
      if (before) before.controller.abort();
      const controller = new AbortController();
      const context = { viewer: this.viewer, tab: (other) => this.get(other), signal: controller.signal };
      const instance = tab.create(element, context);
      this.mounted.set(id, { instance, controller });
      this.whenMounted(id).resolve(instance);
      return instance;
    }
    // The mounted instance of tab `id`, or null.
    get(id) {
      const mounted = this.mounted.get(tabOf(id).id);
      return mounted ? mounted.instance : null;
    }
    // Call `action` of tab `id` with `values` (a Gradio event's values by name), once the tab is mounted.
    act(id, action, values) {
      return this.whenMounted(tabOf(id).id).promise.then(() => {
        const instance = this.get(id);
        if (typeof instance[action] !== "function") throw new Error("tab " + id + " has no action " + action);
        return instance[action](values || {});
      });
    }
    whenMounted(id) {
      if (!this.waiting.has(id)) {
        let resolve = null;
        const promise = new Promise((r) => {
          resolve = r;
        });
        this.waiting.set(id, { promise, resolve });
      }
      return this.waiting.get(id);
    }
    // End every mount (the page is going, or a test is done).
    abort() {
      this.mounted.forEach((m) => m.controller.abort());
    }
  };

  // place.js
  var REPLACE_MS = 300;
  function decodeOf(trace) {
    return JSON.stringify(trace.request);
  }
  function history(method, url) {
    try {
      window.history[method](null, "", url);
    } catch (e) {
    }
  }
  function keepPlace(viewer) {
    if (new URLSearchParams(window.location.search).has("room")) return;
    let entry = null;
    let pending = null;
    viewer.store.subscribe((state) => {
      const t = viewer.trace;
      if (!t || viewer.pendingView) return;
      const url = placeUrl(t.request, state);
      const decode = decodeOf(t);
      if (entry !== null && decode !== entry && url !== window.location.href) {
        window.clearTimeout(pending);
        history("pushState", url);
      } else if (url !== window.location.href) {
        window.clearTimeout(pending);
        pending = window.setTimeout(() => history("replaceState", url), entry === null ? 0 : REPLACE_MS);
      }
      entry = decode;
    });
    window.addEventListener("popstate", () => {
      window.clearTimeout(pending);
      const link = readLink();
      if (!link || !link.sentence) return;
      const request = requestOfLink();
      link.own = true;
      entry = null;
      viewer.requestTrace(request, { link: true, opensAt: link });
    });
  }

  // presenting.js
  var KEY2 = "ae-presenting";
  var TRIES = 100;
  function keepPresenting() {
    let on = false;
    try {
      on = sessionStorage.getItem(KEY2) === "1";
    } catch (e) {
    }
    new MutationObserver(() => {
      try {
        sessionStorage.setItem(KEY2, presenting() ? "1" : "0");
      } catch (e) {
      }
    }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    if (!on || presenting()) return;
    let tries = 0;
    const tick = () => {
      const box = document.querySelector("#presentation input[type=checkbox]");
      if (box && !box.checked) box.click();
      else if (!box && ++tries < TRIES) window.requestAnimationFrame(tick);
      else if (!box) document.body.classList.add("presentation");
    };
    tick();
  }

  // main.js
  var Page = class {
    constructor() {
      this.viewer = null;
      this.tabs = new Promise((resolve) => {
        this.viewerMounted = resolve;
      });
    }
    // In the Gradio page (the gr.HTML component's js_on_load): a deep link's trace comes from the plain route, the
    // opening example's with the page.
    mount(element) {
      const viewer = new Viewer(element, true);
      this.viewer = viewer;
      this.viewerMounted(new Tabs(viewer));
      keepPlace(viewer);
      keepPresenting();
      const placed = viewer.hooked("start").map((c) => c.start()).some(Boolean);
      const link = viewer.pendingView;
      if (link && link.sentence && !placed) {
        link.own = true;
        viewer.requestTrace(requestOfLink(), { link: true });
      } else if (placed) viewer.pendingView = null;
      return viewer;
    }
    // Tab `id` (tabs.js) drawn in `element`, by its gr.HTML's js_on_load.
    mountTab(id, element) {
      return this.tabs.then((tabs) => tabs.mount(id, element));
    }
    // A tab's button: `action` of tab `id` with the event's values by name.
    act(id, action, values) {
      return this.tabs.then((tabs) => tabs.act(id, action, values));
    }
    // The Translate tab's form (its values by name: the trace request's fields, the model chosen, "Explore my trained
    // model"): its trace, with the chosen model.
    translateForm(form) {
      const viewer = this.viewer;
      if (!viewer) return;
      if (!String(form.sentence || "").trim()) {
        const language = viewer.trace ? viewer.trace.sourceLanguage : "English";
        return viewer.say("Type a sentence in " + language + " in the box first, then press Enter or “Translate & step”.");
      }
      return this.tabs.then((tabs) => {
        const training = tabs.get("train");
        const own = training && training.trained.key || viewer.ownKey;
        if (form.use_own && !own) {
          const text = "You have not trained a model on this page yet (or it is still training): train one first, or untick “Explore my trained model”.";
          if (training) training.say(text);
          return viewer.say(text);
        }
        const model = form.use_own ? own : form.model || DEFAULT_MODEL;
        const same = viewer.trace && viewer.trace.modelKey === model;
        const request = fromForm(Object.assign({}, form, { sentence: form.sentence || "" }), model, same ? viewer.trace.request.ablation : []);
        const t = viewer.trace, s = viewer.state;
        const switched = t && !same && t.request.sentence === request.sentence;
        const opensAt = switched ? { sentence: request.sentence, view: { step: s.step, kind: s.kind, layer: s.layer, head: s.head, view: s.view } } : null;
        return viewer.requestTrace(request, { opensAt }).then(() => viewer.focus());
      });
    }
    // In an exported HTML file: the trace and the view it was exported at are inlined in the page.
    standalone(element) {
      const viewer = new Viewer(element, false);
      const view = JSON.parse(document.getElementById("ae-state").textContent);
      viewer.load(JSON.parse(document.getElementById("ae-trace").textContent), { opensAt: { sentence: null, view } });
      this.viewer = viewer;
      return viewer;
    }
  };
  var page = new Page();
  Object.assign(window.AttentionExplorer || (window.AttentionExplorer = {}), {
    mount: (element) => page.mount(element),
    translateForm: (form) => page.translateForm(form),
    formFromLink: (form) => formFromLink(form, new URLSearchParams(window.location.search)),
    standalone: (element) => page.standalone(element),
    mountTab: (id, element) => page.mountTab(id, element),
    act: (id, action, values) => page.act(id, action, values),
    exampleAgrees
  });
  Object.defineProperty(window.AttentionExplorer, "viewer", { get: () => page.viewer, configurable: true });
  if (window.AttentionExplorer.loaded) window.AttentionExplorer.loaded();
})();
