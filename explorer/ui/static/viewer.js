// viewer.js: the step-through viewer. Holds the view state (step, kind, layer, head, view), lays out
// the toolbar, chips, candidates and charts, and redraws them from the trace with no server request.
// A new trace (a sentence, a forced candidate, a deep link), the .npz export and the questions of the panels go
// to the server's plain routes (api.js); on the exported offline page (`online` false) none of them is offered.
(function (AE) {
  "use strict";

  // What a selection shows and what it does not, under the heatmap.
  const CAPTIONS = {
    headview: "Head view (as in BertViz): each line joins a query token (left) to a key token (right); its opacity " +
      "is the weight, its colour the head. Weights under 0.01 are not drawn. It shows where each head looked at " +
      "this step, not what the head passed on (the values) nor how the layers combine it.",
    rollout: "Attention rollout (Abnar & Zuidema, 2020): each encoder layer taken as ½·attention + ½·identity " +
      "(the residual), averaged over heads, multiplied through the layers; for cross-attention, this layer's " +
      "head-averaged rows times the encoder's rollout, so each row says which source tokens the step drew on " +
      "through every encoder layer. A model of how attention composes: it ignores the values and the " +
      "feed-forward layers, so it is not a measurement of what the translation depended on.",
  };
  const VIEWS = [
    ["heatmap", "Heatmap"], ["headview", "Head view"], ["mosaic", "All heads"], ["mask", "Look-ahead mask"],
    ["compare", "Compare two"],
  ];
  const PACES = [0.5, 1, 2, 3];
  const OPENING_STEP = 3; // the page opens this many tokens in

  const el = AE.el;

  function button(label, title, onClick, className) {
    const b = el("button", "ae-btn " + (className || ""), label);
    b.type = "button";
    if (title) b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  function Viewer(root, online) {
    this.root = root;
    this.online = online;
    this.trace = null;
    this.modelKey = "shipped"; // the model of the trace on screen
    this.ownKey = null; // the key of the model this browser session trained, once a trace of it arrived
    this.traceSeq = 0; // the number of the last trace asked for: an older answer arriving late is dropped
    this.state = { step: 0, kind: "cross", layer: 0, head: 0, view: "heatmap" };
    this.pendingLink = AE.readLink();
    this.player = new AE.Player(this);
    this.asker = new AE.Asker(online);
    this.quiz = new AE.Quiz(this);
    this.timelapse = new AE.TimeLapse(this);
    this.build();
    AE.bindKeys(this);
    new MutationObserver(() => this.render()).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    window.addEventListener("resize", () => { this.plotHeight = null; this.render(); });
  }

  Viewer.prototype.build = function () {
    const r = el("div", "ae-viewer");
    const bar = el("div", "ae-toolbar");
    this.buttons = {
      reset: button("« First", "First step (Home)", () => this.go(0, "click")),
      prev: button("◀ Previous", "Previous token (← or PageUp)", () => this.go(this.state.step - 1, "click")),
      next: button("Next ▶", "Next token (→ or PageDown)", () => this.go(this.state.step + 1, "click"), "ae-primary"),
      end: button("Run to end »", "Run to end (End)", () => this.go(this.trace.T, "click")),
      play: button("▶ Play", "Play / pause (Space)", () => this.togglePlay()),
    };
    this.pace = el("select", "ae-pace");
    this.pace.title = "Autoplay pace";
    PACES.forEach((p) => { const o = el("option", "", p + " s / token"); o.value = p; this.pace.appendChild(o); });
    this.pace.value = "1";
    this.pace.addEventListener("change", () => { if (this.player.playing()) this.player.start(Number(this.pace.value)); });
    this.slider = el("input", "ae-slider");
    this.slider.type = "range";
    this.slider.min = 0;
    this.slider.step = 1;
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value), "slider"));
    this.stepLabel = el("span", "ae-step");
    const tools = el("span", "ae-tools");
    this.copyButton = button("Copy link", "Copy a link to exactly this view", () => this.copyLink());
    tools.append(this.copyButton, button("⬇ PNG", "Download the chart on the right as a PNG image", () => this.exportPng()), button("⬇ HTML", "Download this sentence as one HTML file that works offline", () => this.exportHtml()));
    tools.append(button("Quiz", "Predict, then reveal: guess where a head will look before each step", () => this.quiz.toggle()));
    if (this.online) tools.append(button("Attention vs attribution", "The current step's cross-attention row beside gradient attributions (asks the server)", () => this.askAttribution()));
    if (this.online) tools.append(button("Beam tree", "Beam search as a tree of hypotheses (asks the server)", () => this.askBeamTree()));
    if (this.online) tools.append(button("Heads that matter", "How much the translation loses with each head off alone (asks the server)", () => this.askHeads()));
    if (this.online) tools.append(button("⬇ .npz", "Download every attention tensor of this sentence up to this step", () => this.exportNpz()));
    bar.append(this.buttons.reset, this.buttons.prev, this.buttons.next, this.buttons.end, this.buttons.play, this.pace, this.slider, this.stepLabel, tools);
    this.status = el("div", "ae-status");
    this.message = el("div", "ae-message"); // what went wrong with the last request, in words
    this.message.hidden = true;
    this.quizBar = el("div", "ae-quiz");
    this.quizBar.hidden = true;
    const body = el("div", "ae-body");
    const left = el("div", "ae-left");
    this.sourceLabel = el("div", "ae-label");
    this.sourceBox = el("div", "ae-chips ae-source-chips");
    this.sourceBox.addEventListener("click", (event) => {
      const chip = event.target.closest(".ae-quiz-choice");
      if (chip) this.quiz.pick(Number(chip.dataset.index));
    });
    this.targetBox = el("div", "ae-chips ae-target-chips");
    this.output = el("div", "ae-output");
    this.topk = el("div", "ae-topk");
    this.beams = el("div", "ae-beams");
    this.viewTabs = el("div", "ae-row ae-view-tabs");
    this.kindRow = el("div", "ae-row ae-kinds");
    this.layerRow = el("div", "ae-row ae-layers");
    this.headRow = el("div", "ae-row ae-heads");
    left.append(this.viewTabs, this.kindRow, this.layerRow, this.headRow, this.timelapse.row, this.sourceLabel, this.sourceBox,
      el("div", "ae-label", "Target so far"), this.targetBox, this.output, this.topk, this.beams);
    const right = el("div", "ae-right");
    this.heat = el("div", "ae-heat");
    this.plot = el("div", "ae-plot");
    this.plot2 = el("div", "ae-plot ae-plot2");
    this.headview = el("div", "ae-headview");
    this.compare = el("div", "ae-compare");
    this.compareTrace = null; // the second trace of "Compare two"
    this.caption = el("div", "ae-caption");
    this.panel = el("div", "ae-panel"); // the answer to the last question (explain a clicked cell, ...)
    this.panel.hidden = true;
    this.heat.addEventListener("ae-cell", (event) => this.explain(event.detail));
    right.append(this.heat, this.headview, this.compare, this.caption, this.panel, this.plot, this.plot2);
    body.append(left, right);
    const help = el("div", "ae-keys", "Keys: " + AE.KEY_HELP + ". Click a candidate bar to force it; click a tile of All heads " +
      "to select it; click a cell of a head's heatmap to see how its weight is computed.");
    r.append(bar, this.message, this.status, this.quizBar, body, help);
    this.root.replaceChildren(r);
    this.mosaicBound = false;
    this.topk.addEventListener("click", (event) => this.force(AE.candidateOf(this.trace, this.state.step, event.target)));
  };

  // A new trace from the server: keep the kind/layer/head where they exist; open where the link or the request says.
  // `options.keepView`: the same sentence from another model (a training step): keep the step too.
  Viewer.prototype.load = function (wire, options) {
    if (!wire || !wire.attention) return;
    const opts = options || {};
    if (!opts.keepView) this.timelapse.shown = null;
    const first = this.trace === null;
    const previous = this.trace;
    this.trace = new AE.Trace(wire);
    this.modelKey = wire.model_key || "shipped";
    if (this.modelKey !== "shipped") this.ownKey = this.modelKey;
    this.message.hidden = true;
    this.player.stop();
    this.panel.hidden = true;
    this.asker.forget(); // answers still on their way belong to the previous trace
    this.quiz.answers = []; // a new sentence: a new round of the quiz
    this.quiz.last = null;
    this.quiz.cursor = 0;
    const s = this.state;
    const best = wire.model.best_head;
    if (first && best) Object.assign(s, { kind: best.kind, layer: best.layer, head: best.head });
    const link = this.pendingLink;
    if (link && (link.sentence === null || link.sentence === wire.request.sentence)) {
      this.pendingLink = null;
      Object.assign(s, linkView(link));
    } else if (first) {
      s.step = Math.min(OPENING_STEP, this.trace.T);
    } else if (opts.keepView) {
      s.step = Math.min(s.step, this.trace.T);
    } else {
      const forced = wire.request.forced_ids.length;
      const sameSentence = previous && previous.request.sentence === wire.request.sentence;
      s.step = forced && sameSentence ? Math.min(forced, this.trace.T) : 0;
    }
    this.clampState();
    this.plotHeight = null;
    this.timelapse.update();
    this.render();
  };

  function linkView(link) {
    const v = {};
    for (const name of ["step", "kind", "layer", "head", "view"]) if (link[name] !== undefined) v[name] = link[name];
    return v;
  }

  Viewer.prototype.clampState = function () {
    const s = this.state, t = this.trace;
    if (!AE.KINDS.includes(s.kind)) s.kind = "cross";
    if (!VIEWS.some(([v]) => v === s.view)) s.view = "heatmap";
    s.step = Math.max(0, Math.min(t.T, Number(s.step) || 0));
    s.layer = Math.max(0, Math.min(t.nLayers(s.kind) - 1, Number(s.layer) || 0));
    const named = s.head === "mean" || s.head === "all" || (s.head === "rollout" && t.hasRollout(s.kind));
    if (!(named || (Number.isInteger(s.head) && s.head >= 0 && s.head < t.H))) s.head = "mean";
  };

  Viewer.prototype.isVisible = function () { return this.root.offsetParent !== null || document.body.classList.contains("ae-standalone"); };

  Viewer.prototype.go = function (step, source) {
    if (!this.trace) return;
    const next = Math.max(0, Math.min(this.trace.T, step));
    if (source !== "play") this.player.stop();
    if (next === this.state.step && source !== "slider") return;
    this.state.step = next;
    this.render();
  };

  Viewer.prototype.select = function (change) {
    if (!this.trace) return;
    Object.assign(this.state, change);
    this.clampState();
    this.render();
  };

  Viewer.prototype.cycle = function (what) {
    const s = this.state, t = this.trace;
    if (what === "layer") s.layer = (s.layer + 1) % t.nLayers(s.kind);
    if (what === "kind") s.kind = AE.KINDS[(AE.KINDS.indexOf(s.kind) + 1) % AE.KINDS.length];
    if (what === "view") s.view = VIEWS[(VIEWS.findIndex(([v]) => v === s.view) + 1) % VIEWS.length][0];
    this.clampState();
    this.render();
  };

  Viewer.prototype.togglePlay = function () {
    if (this.player.playing()) this.player.stop();
    else this.player.start(Number(this.pace.value));
    this.renderToolbar();
  };

  Viewer.prototype.renderToolbar = function () {
    const s = this.state, T = this.trace.T;
    this.slider.max = T;
    this.slider.value = s.step;
    this.stepLabel.textContent = "Step " + s.step + " / " + T;
    this.buttons.prev.disabled = this.buttons.reset.disabled = s.step === 0;
    this.buttons.next.disabled = this.buttons.end.disabled = s.step === T;
    this.buttons.play.textContent = this.player.playing() ? "⏸ Pause" : "▶ Play";
  };

  Viewer.prototype.renderSelectors = function () {
    const s = this.state, t = this.trace;
    const row = (box, label, items, current, pick) => {
      box.replaceChildren(el("span", "ae-row-label", label), ...items.map(([value, text, title]) => {
        const b = button(text, title, () => pick(value), value === current ? "ae-on" : "");
        b.dataset.value = value;
        return b;
      }));
    };
    row(this.viewTabs, "View", VIEWS.map(([v, text]) => [v, text, "V cycles the views"]), s.view, (v) => this.select({ view: v }));
    const kindNames = { encoder_self: "Encoder self", decoder_self: "Decoder self (masked)", cross: "Cross" };
    row(this.kindRow, "Kind", AE.KINDS.map((k) => [k, kindNames[k], AE.KIND_TITLES[k] + " (K cycles)"]), s.kind, (k) => this.select({ kind: k }));
    const layers = [...Array(t.nLayers(s.kind)).keys()];
    row(this.layerRow, "Layer", layers.map((l) => [l, String(l), "layer " + l + " (L cycles)"]), s.layer, (l) => this.select({ layer: l }));
    const best = t.model.best_head;
    const heads = [...Array(t.H).keys()].map((h) => {
      const isBest = best && best.kind === s.kind && best.layer === s.layer && best.head === h;
      return [h, String(h) + (isBest ? " ★" : ""), "head " + h + (isBest ? ": best word alignment" : "") + " (key " + h + ")"];
    });
    heads.push(["mean", "mean", "mean of heads (M)"], ["all", "all", "all heads of this layer (A)"]);
    if (t.hasRollout(s.kind)) heads.push(["rollout", "rollout", "attention rollout through every encoder layer (R)"]);
    row(this.headRow, "Head", heads, s.head, (h) => this.select({ head: h }));
    this.layerRow.hidden = s.view === "mosaic";
    this.headRow.hidden = s.view === "mosaic" || s.view === "headview";
    this.kindRow.hidden = s.view === "mask";
  };

  // The cross-attention row that shades the source chips: the selected cross head, else the best head.
  Viewer.prototype.chipRow = function () {
    const s = this.state, t = this.trace;
    if (s.step === 0) return [null, ""];
    let layer = s.layer, head = s.head;
    if (s.kind !== "cross" || head === "all") {
      const best = t.model.best_head;
      [layer, head] = best && best.kind === "cross" ? [best.layer, best.head] : [t.nLayers("cross") - 1, "mean"];
    }
    const rows = t.weights("cross", layer, head, s.step);
    const which = { mean: "mean of heads", rollout: "attention rollout" }[head] || "head " + head;
    return [rows[s.step - 1], "layer " + layer + ", " + which];
  };

  Viewer.prototype.height = function () {
    if (!this.plotHeight) {
      const top = this.heat.parentNode.getBoundingClientRect().top + window.scrollY;
      const room = window.innerHeight - top - 12;
      this.plotHeight = Math.max(300, Math.min(680, room > 0 ? room : 460));
    }
    return this.plotHeight;
  };

  Viewer.prototype.render = function () {
    if (!this.trace) return Promise.resolve();
    const s = this.state, t = this.trace;
    this.renderToolbar();
    this.renderSelectors();
    AE.drawStatus(this.status, t, s.step);
    const [row, which] = this.chipRow();
    this.sourceLabel.textContent = "Source" + (which ? " (shaded by cross-attention, " + which + ", at step " + s.step + ")" : "");
    AE.drawSourceChips(this.sourceBox, t, row);
    this.quiz.decorateChips(this.sourceBox);
    this.quiz.draw(this.quizBar);
    AE.drawTargetChips(this.targetBox, t, s.step);
    this.output.textContent = "Output so far: " + (t.wire.outputs[s.step] || "—");
    this.renderBeams();
    const drawn = [];
    const topkKey = s.step + "|" + AE.fontSize();
    if (t !== this.topkTrace || topkKey !== this.topkKey) { // candidates change with the trace and step, not the head
      this.topkTrace = t;
      this.topkKey = topkKey;
      drawn.push(AE.drawTopk(this.topk, t, s.step));
    }
    const h = this.height();
    this.heat.hidden = s.view !== "heatmap";
    this.headview.hidden = s.view !== "headview";
    this.compare.hidden = s.view !== "compare";
    this.plot.hidden = s.view === "heatmap" || s.view === "headview" || s.view === "compare";
    this.plot2.hidden = s.view !== "mask";
    this.caption.textContent = s.view === "heatmap" ? CAPTIONS[s.head] || "" : CAPTIONS[s.view] || "";
    this.caption.hidden = !this.caption.textContent;
    if (s.view === "heatmap") drawn.push(AE.drawHeatmap(this.heat, t, s.kind, s.layer, s.head, s.step, h));
    else if (s.view === "headview") {
      if (!this.headsOn || this.headsOn.size > t.H) this.headsOn = new Set([...Array(t.H).keys()]);
      drawn.push(AE.drawHeadView(this.headview, this, t, s.kind, s.layer, s.step, this.headsOn));
    } else if (s.view === "compare") drawn.push(AE.drawCompare(this.compare, this, h));
    else if (s.view === "mosaic") drawn.push(AE.drawMosaic(this.plot, t, s.kind, s.step, h, t.model.best_head));
    else {
      const layer = Math.min(s.layer, t.nLayers("decoder_self") - 1);
      const head = Number.isInteger(s.head) ? s.head : 0;
      drawn.push(AE.drawMask(this.plot, t, s.step, Math.min(h, 360)), AE.drawStages(this.plot2, t, layer, head, s.step, Math.min(h, 380)));
    }
    this.bindChartClicks();
    this.root.dataset.step = s.step; // read by the browser tests and benchmarks
    this.rendered = Promise.all(drawn);
    return this.rendered;
  };

  Viewer.prototype.renderBeams = function () {
    const beams = this.trace.wire.beams;
    this.beams.hidden = !beams.length;
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
    this.beams.replaceChildren(el("div", "ae-label", "Beams (the best one is stepped through)"), table);
  };

  // Force `candidate` at the current step: the tokens before it stay, the model continues after it (a new trace).
  Viewer.prototype.force = function (candidate) {
    const s = this.state, t = this.trace;
    if (!candidate || !this.online || s.step === 0) return;
    const forced = t.steps.slice(0, s.step - 1).map((x) => x.id).concat([candidate.id]);
    this.requestTrace(Object.assign({}, t.request, { forced_ids: forced, prefix: "" }));
  };

  // Ask the server for the trace of `request` (with `model`, default: the model on screen) and show it; a
  // refusal is said in words above the status line. Returns the promise (the tests wait for it).
  Viewer.prototype.requestTrace = function (request, model) {
    if (!this.online) return Promise.resolve(null);
    const seq = ++this.traceSeq;
    this.root.classList.add("ae-busy");
    return AE.api.trace(request, model || this.modelKey).then(
      (wire) => { if (seq === this.traceSeq) this.load(wire); return wire; },
      (error) => { if (seq === this.traceSeq) this.say(error.message); return null; },
    ).finally(() => { if (seq === this.traceSeq) this.root.classList.remove("ae-busy"); });
  };

  // After a new sentence, the keys step again (focus leaves the sentence box, where → would move the cursor).
  Viewer.prototype.focus = function () {
    const active = document.activeElement;
    if (active && active !== document.body && this.root.closest("body") && active.blur) active.blur();
  };

  Viewer.prototype.say = function (text) {
    this.message.textContent = text;
    this.message.hidden = false;
  };

  Viewer.prototype.exportNpz = function () {
    const a = el("a");
    a.href = AE.api.npzUrl(this.trace.request, this.modelKey, this.state.step);
    a.download = "";
    document.body.appendChild(a);
    a.click();
    a.remove();
  };

  Viewer.prototype.bindChartClicks = function () {
    if (!this.mosaicBound && this.plot.on) {
      this.mosaicBound = true;
      this.plot.on("plotly_click", (event) => {
        if (this.state.view !== "mosaic") return;
        const cell = AE.mosaicCell(this.trace, this.state.kind, this.state.step, event.points[0]);
        if (cell) this.select({ view: "heatmap", layer: cell.layer, head: cell.head });
      });
    }
  };

  Viewer.prototype.copyLink = function () {
    const url = AE.linkUrl(this.trace.request, this.state, this.modelKey);
    AE.copyText(url).then(() => {
      this.copyButton.textContent = "✓ Copied";
      setTimeout(() => { this.copyButton.textContent = "Copy link"; }, 1500);
    });
    return url;
  };

  Viewer.prototype.exportPng = function () {
    const s = this.state;
    const name = AE.filename(this.trace.request.sentence, "") + "-" + s.view + "-step" + s.step;
    if (s.view === "heatmap") AE.heatmapPng(this.heat, name + ".png");
    else if (s.view === "headview") AE.canvasPng(this.headview.querySelector("canvas"), name + ".png");
    else if (s.view === "compare") AE.canvasPng(AE.compareCanvas(this.compare), name + ".png");
    else AE.plotly().then((Plotly) => Plotly.downloadImage(this.plot, { format: "png", scale: 2, filename: name }));
  };

  Viewer.prototype.exportHtml = function () {
    return AE.standaloneHtml(this.trace.wire, this.state).then((html) => {
      AE.download(html, AE.filename(this.trace.request.sentence, ".html"), "text/html");
      return html.length;
    }).catch((err) => { this.status.textContent = "Export failed: " + err.message; });
  };

  // In the Gradio page (called from the gr.HTML component's js_on_load).
  Object.assign(Viewer.prototype, AE.panelMethods); // panels.js: the questions to the server and their panels

  AE.mount = function (element) {
    const viewer = new Viewer(element, true);
    window.aeViewer = viewer;
    const link = viewer.pendingLink;
    if (link && link.sentence) { // a deep link: its trace comes from the plain route, not with the page
      const request = AE.requestFromQuery(new URLSearchParams(window.location.search));
      viewer.requestTrace(request, request.model);
    }
    return viewer;
  };

  // The Translate tab's form (the values of viewer.py's FORM, in order): its trace, with the chosen model.
  AE.translateForm = function (values) {
    const viewer = window.aeViewer;
    if (!viewer) return;
    const form = {};
    AE.FORM.forEach((name, i) => { form[name] = values[i]; });
    if (form.use_own && !viewer.ownKey) {
      return viewer.say("You have not trained a model in this session yet (or its trace has not arrived): use the " +
        "Train tab first, or untick “Explore my trained model”.");
    }
    const ablation = [];
    for (const kind of AE.KINDS) {
      for (const label of form["ablate_" + kind] || []) {
        const m = /^L(\d+) H(\d+)$/.exec(label);
        if (m) ablation.push([kind, Number(m[1]), Number(m[2])]);
      }
    }
    const request = { sentence: form.sentence || "", forced_ids: [], ablation: ablation };
    for (const name of ["strategy", "temperature", "top_k", "seed", "beam_size", "alpha", "prefix"]) request[name] = form[name];
    viewer.pendingLink = null;
    viewer.requestTrace(request, form.use_own ? viewer.ownKey : "shipped").then(() => viewer.focus());
  };

  // In an exported HTML file: the trace and the view it was exported at are inlined in the page.
  AE.standalone = function (element) {
    const viewer = new Viewer(element, false);
    viewer.pendingLink = null;
    const wire = JSON.parse(document.getElementById("ae-trace").textContent);
    const state = JSON.parse(document.getElementById("ae-state").textContent);
    viewer.load(wire);
    Object.assign(viewer.state, state);
    viewer.clampState();
    viewer.render();
    window.aeViewer = viewer;
    return viewer;
  };
})((window.AttentionExplorer = window.AttentionExplorer || {}));
