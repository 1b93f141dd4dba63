// link.js: deep links. The address carries the sentence, the decoding options, the step, the kind,
// the layer, the head and the view, so opening it restores that view (one link per slide). The
// server reads the same names (LINK_FIELDS in explorer/interpret/inputs.py) to decode the sentence when the page opens.
(function (AE) {
  "use strict";

  const OPTIONS = ["strategy", "temperature", "top_k", "seed", "beam_size", "alpha", "prefix"];

  AE.linkParams = function (request, state) {
    const p = new URLSearchParams();
    p.set("s", request.sentence);
    for (const name of OPTIONS) if (request[name] !== "") p.set(name, request[name]);
    if (request.forced_ids.length) p.set("forced", request.forced_ids.join(","));
    if (request.ablation.length) p.set("ablate", request.ablation.map((h) => h.join(".")).join(","));
    p.set("step", state.step);
    p.set("kind", state.kind);
    p.set("layer", state.layer);
    p.set("head", state.head);
    if (state.view !== "heatmap") p.set("view", state.view);
    return p;
  };

  AE.linkUrl = function (request, state) {
    const base = window.location.href.split("?")[0].split("#")[0];
    return base + "?" + AE.linkParams(request, state).toString();
  };

  // The view part of the current address (validated against the trace by the viewer).
  AE.readLink = function () {
    const p = new URLSearchParams(window.location.search);
    if (!p.has("s") && !p.has("step")) return null;
    const view = {};
    for (const name of ["step", "layer"]) if (p.has(name) && /^\d+$/.test(p.get(name))) view[name] = Number(p.get(name));
    if (p.has("head")) view.head = /^\d+$/.test(p.get("head")) ? Number(p.get("head")) : p.get("head");
    if (p.has("kind")) view.kind = p.get("kind");
    if (p.has("view")) view.view = p.get("view");
    view.sentence = p.get("s");
    return view;
  };

  AE.copyText = function (text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } finally { area.remove(); }
    return Promise.resolve();
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
