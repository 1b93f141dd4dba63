// viewer.js: the step-through viewer. Lays out the toolbar, the selectors, the chips, the candidates, the charts and
// the panel; keeps the trace on screen and the view state (store.js); draws every view from them whenever the state
// changes, with no server request. Views tell it what the person asked for with DOM events ("ae-cell",
// "ae-select", "ae-force", "ae-switch-off", "ae-follow", "ae-compare", "ae-close-panel"); it turns them into a
// change of state or a request. A new trace (a sentence, a forced candidate, a deep link), the .npz export and the
// panels' questions go to the server's plain routes (api.js); on the exported offline page (`online` false) none
// of them is offered. Beside the views work its companions (companions.js: the room, the lesson, the quiz, the
// training time-lapse), each reached only through its hooks.
import { KINDS, KIND_TITLES, Trace } from "./trace.js";
import { createStore } from "./store.js";
import { DEFAULT_MODEL, isShipped } from "./settings.js";
import { button, canvasPng, copyText, download, el, filename, fontSize } from "./dom.js";
import { Asker, api } from "./api.js";
import { traceRequest } from "./request.js";
import { linkUrl, placeUrl, readLink } from "./link.js";
import { standaloneHtml } from "./export.js";
import { KEY_HELP, bindKeys } from "./keys.js";
import { Player } from "./player.js";
import { COMPANIONS } from "./companions.js";
import { drawNotes, drawSourceChips, drawStatus, drawTargetChips } from "./chips.js";
import { VIEWS, viewOf } from "./views.js";
import * as page from "./page.js";
import * as panels from "./panels.js";
import * as topk from "./topk.js";

const PANELS = ["explain", "heads", "attribution", "beam_tree"];
const PACES = [0.5, 1, 2, 3];
const OPENING_STEP = 3; // the page opens this many tokens in
const MIN_CHART = 190; // px: the chart's height when a panel or a caption takes the rest of the window
const NEEDS_SERVER = "This needs the server (it computes from the model): open the app rather than the exported page.";
const KIND_NAMES = { encoder_self: "Encoder self", decoder_self: "Decoder self (masked)", cross: "Cross" };

// How the trace on screen was decoded, in a few words ("greedy", "beam search (4)", "sampling (T 0.8)", "+ what-if").
function decodingName(request) {
  const how = { beam: "beam search (" + request.beam_size + ")", sample: "sampling (T " + request.temperature + ")" }[request.strategy] || "greedy";
  return how + (request.prefix ? " + what-if prefix" : "");
}

export class Viewer {
  constructor(root, online) {
    this.root = root;
    this.online = online;
    this.trace = null;
    this.ownKey = null; // the key of the model this browser session trained, once a trace of it arrived
    this.traceSeq = 0; // the number of the last trace asked for: an older answer arriving late is dropped
    this.compareTrace = null; // the second trace of "Compare two"
    this.compareError = null; // why the last second trace asked for was refused
    this.panelContent = null; // what the panel shows: {what, note} or {what, answer}
    this.captionHeight = null; // the caption's height in presentation mode, measured once per text
    this.panelNeed = null; // {content, px}: the height the panel's answer needs, measured once per answer
    this.captionText = null; // the caption's text, and whether it is folded (presentation mode)
    this.captionFolded = false;
    this.store = createStore({ step: 0, kind: "cross", layer: 0, head: 0, view: VIEWS[0].id, panel: null, lesson: null }, (s) => this.clamp(s));
    this.store.subscribe(() => this.render());
    this.pendingView = readLink(); // {sentence, view}: where the next trace of that sentence opens (a deep link)
    this.player = new Player(this);
    this.asker = new Asker(online);
    this.companions = COMPANIONS.map((Companion) => new Companion(this)); // the room, the lesson, the quiz, the time-lapse
    this.build();
    this.listen();
    bindKeys(this);
    this.presenting = document.body.classList.contains("presentation");
    new MutationObserver(() => { // presentation mode on: the viewer fills the window, its controls at the top
      const now = document.body.classList.contains("presentation");
      if (now !== this.presenting) {
        this.placeTools();
        this.panelNeed = null; // the panel's text changes size
      }
      if (now && !this.presenting) this.root.scrollIntoView({ block: "start" });
      this.presenting = now;
      this.refresh();
    }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    window.addEventListener("resize", () => { this.captionHeight = this.panelNeed = null; this.refresh(); }); // text wraps anew
    // the page above the chart settles after the first draw (Gradio's styles, fonts): draw again when the room changed
    new ResizeObserver(() => { if (this.trace && this.height() !== this.drawnHeight) this.refresh(); }).observe(document.body);
  }

  // The companions (companions.js) that have hook `name`, in their order.
  hooked(name) { return this.companions.filter((c) => c[name] !== undefined); }

  // The person asked for a trace of their own (not the room's): a student following a room explores.
  explore() { this.hooked("explore").forEach((c) => c.explore()); }

  get state() { return this.store.get(); } // read-only: changes go through store.set (the actions below)
  get modelKey() { return this.trace ? this.trace.modelKey : DEFAULT_MODEL; } // the model of the trace on screen

  build() {
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
    const tools = (this.tools = el("div", "ae-row ae-tools")); // beside the selectors (in presentation mode: the top bar)
    tools.appendChild(el("span", "ae-row-label", "Tools"));
    this.copyButton = button("Copy link", "Copy a link to exactly this view", () => this.copyLink());
    if (this.online) { // beam search, sampling and the what-if prefix are below the fold: this says they exist
      this.decoding = button("Decoding: greedy ▾", "Beam search, sampling and a what-if prefix: open the decoding options", () => page.openOptions());
      this.decoding.classList.add("ae-decoding");
      tools.append(this.decoding);
    }
    const html = button("⬇ HTML", "Download this sentence as one HTML file that works offline", () => this.exportHtml());
    html.classList.add("ae-desk-only"); // a download for the desk, not the projector's top bar
    tools.append(this.copyButton, button("⬇ PNG", "Download the chart on the right as a PNG image", () => this.exportPng()), html);
    tools.append(...this.hooked("tools").flatMap((c) => c.tools(this.online)));
    if (this.online) {
      tools.append(
        button("Attention vs attribution", "The current step's cross-attention row beside gradient attributions (asks the server)", () => this.ask("attribution")),
        button("Beam tree", "Beam search as a tree of hypotheses (asks the server)", () => this.ask("beam_tree")),
        button("Heads that matter", "How much the translation loses with each head off alone: estimated in one pass, exact on request (asks the server)", () => this.ask("heads")),
        button("⬇ .npz", "Download every attention tensor of this sentence up to this step", () => this.exportNpz(), "ae-desk-only"));
    }
    bar.append(this.buttons.reset, this.buttons.prev, this.buttons.next, this.buttons.end, this.buttons.play, this.pace, this.slider, this.stepLabel);
    this.status = el("div", "ae-status");
    this.message = el("div", "ae-message"); // what went wrong with the last request, in words
    this.message.hidden = true;
    const body = el("div", "ae-body");
    const left = el("div", "ae-left");
    this.notes = el("ul", "ae-notes"); // the decode's notes: forced tokens, switched-off heads, a length limit
    this.sourceLabel = el("div", "ae-label");
    this.sourceBox = el("div", "ae-chips ae-source-chips");
    this.sourceBox.addEventListener("click", (event) => {
      const chip = event.target.closest(".ae-chip[data-index]"); // a companion made the chips answers
      if (chip) this.hooked("answer").some((c) => c.answer(Number(chip.dataset.index)));
    });
    this.targetBox = el("div", "ae-chips ae-target-chips");
    this.output = el("div", "ae-output");
    this.topk = el("div", "ae-topk");
    this.beams = el("div", "ae-beams");
    this.viewTabs = el("div", "ae-row ae-view-tabs");
    this.kindRow = el("div", "ae-row ae-kinds");
    this.layerRow = el("div", "ae-row ae-layers");
    this.headRow = el("div", "ae-row ae-heads");
    // the companions' bars (the room's code, the lesson's sentences) head the left column, beside the chart they speak
    // of: the chart keeps its height
    left.append(...this.hooked("bar").map((c) => c.bar), this.notes, this.viewTabs, this.kindRow, this.layerRow, this.headRow,
      ...this.hooked("selectorRow").map((c) => c.selectorRow), tools, this.sourceLabel, this.sourceBox,
      el("div", "ae-label", "Target so far"), this.targetBox, this.output, this.topk, this.beams);
    const right = (this.right = el("div", "ae-right"));
    this.charts = Object.fromEntries(VIEWS.map((view) => [view.id, el("div", view.className)])); // one per view
    this.caption = el("div", "ae-caption");
    this.panel = el("div", "ae-panel"); // the answer to the last question (explain a clicked cell, ...)
    this.panel.hidden = true;
    this.panel.addEventListener("toggle", () => { this.panelNeed = null; this.refresh(); }, true); // its fold opened
    right.append(...Object.values(this.charts), this.caption, this.panel);
    body.append(left, right);
    const help = el("div", "ae-keys", "Keys: " + KEY_HELP + ". " + (this.online ? "Click a candidate bar to force it; click " +
      "a tile of All heads to select it; click a cell of a head's heatmap to see how its weight is computed." :
      "Click a tile of All heads to select it. This page works offline: forcing a candidate and the questions that " +
      "compute from the model need the app."));
    r.append(bar, this.message, this.status, ...this.hooked("banner").map((c) => c.banner), body, help);
    this.root.replaceChildren(r);
    this.toolsHome = [left, this.sourceLabel]; // where the tools sit out of presentation mode: before the source
    this.placeTools();
  }

  // Presentation mode: the tools join the top bar (under the step controls), so the lecturer reaches Lesson, Present
  // to class, PNG and the questions without scrolling; otherwise they sit among the selectors.
  placeTools() {
    const presenting = document.body.classList.contains("presentation");
    if (presenting) this.root.querySelector(".ae-toolbar").after(this.tools);
    else this.toolsHome[0].insertBefore(this.tools, this.toolsHome[1]);
  }

  // What the views ask for, as the events they emit.
  listen() {
    const on = (name, handle) => this.root.addEventListener(name, (event) => handle(event.detail));
    on("ae-cell", (cell) => this.ask("explain", cell));
    on("ae-select", (change) => this.select(change, "click"));
    on("ae-force", (candidate) => this.force(candidate));
    on("ae-switch-off", (head) => this.switchOff(head.kind, head.layer, head.head));
    on("ae-follow", (path) => this.followHypothesis(path.forced_ids));
    on("ae-compare", (b) => this.askCompare(b.sentence, b.model));
    on("ae-close-panel", () => this.store.set({ panel: null }, "click"));
    on("ae-ask", (q) => this.ask(q.what, null, q)); // a panel's follow-up question (the exact heads after the estimate)
    on("ae-redraw", () => this.refresh()); // a view's own control changed what it shows (the value path's query)
  }

  // A new trace from the server: keep the kind/layer/head where they exist; open where the link or the request says.
  // `options.keepView`: the same sentence from another model (a training step): keep the step too.
  load(wire, options) {
    if (!wire || !wire.attention) return;
    const opts = options || {};
    const previous = this.trace;
    this.trace = new Trace(wire);
    if (!isShipped(this.trace.modelKey)) this.ownKey = this.trace.modelKey;
    this.message.hidden = true;
    this.player.stop();
    this.panelContent = null;
    this.asker.forget(); // answers still on their way belong to the previous trace
    this.hooked("loading").forEach((c) => c.loading(this.trace, opts));
    const s = Object.assign({}, this.state, { panel: null });
    const best = wire.model.best_head;
    if (!previous && best) Object.assign(s, { kind: best.kind, layer: best.layer, head: best.head });
    const pending = this.pendingView;
    let link = null; // the deep link's view this trace opens at
    // a link's view (`own`: its sentence named) opens with the link's own decode, not the page's opening trace of the
    // same sentence with other options or another model
    if (pending && (!pending.own || opts.link) && (pending.sentence === null || pending.sentence === wire.request.sentence)) {
      this.pendingView = null;
      link = pending.view;
      Object.assign(s, link);
    } else if (!previous) {
      s.step = Math.min(OPENING_STEP, this.trace.T);
    } else if (!opts.keepView) {
      const forced = wire.request.forced_ids.length;
      const sameSentence = previous.request.sentence === wire.request.sentence;
      s.step = forced && sameSentence ? forced : 0;
    }
    drawNotes(this.notes, this.trace); // the decode's notes change with the trace, not the step
    if (this.online) page.agree(this.trace);
    if (this.decoding) this.decoding.textContent = "Decoding: " + decodingName(wire.request) + " ▾";
    if (this.presenting && previous && !opts.keepView) this.root.scrollIntoView({ block: "start" });
    this.store.set(s, "trace", true);
    if (link && pending.own) this.sayUnused(link, pending.unread || []); // a link's values, not a model switch's
    this.hooked("opened").forEach((c) => c.opened(link));
  }

  // A link's values this trace could not take, named (the rest of the link applies): a value that is not a number,
  // a kind or view this page does not have, a step, layer or head beyond this sentence and model.
  sayUnused(link, unread) {
    const got = this.state, t = this.trace;
    const ranges = { step: "0–" + t.T, layer: "0–" + (t.nLayers(got.kind) - 1), head: "0–" + (t.H - 1) + ", mean, all",
      kind: KINDS.join(", "), view: VIEWS.map((v) => v.id).join(", ") }; // the lesson's stop: the lesson's own
    const unused = unread.map((item) => item + " (not a number)");
    for (const name of Object.keys(ranges)) {
      if (link[name] !== undefined && link[name] !== got[name]) unused.push(name + "=" + String(link[name]).slice(0, 40) + " (this page has " + ranges[name] + ")");
    }
    if (unused.length) this.say("This link asks for what this sentence cannot show, so it was left out: " + unused.join("; ") + ". The rest of the link applies.");
  }

  // The state as the trace on screen allows it: a known kind and view, the step, layer and head in range.
  clamp(s) {
    const t = this.trace;
    if (!t) return s;
    const out = Object.assign({}, s);
    if (!KINDS.includes(out.kind)) out.kind = "cross";
    out.view = viewOf(out.view).id;
    if (!PANELS.includes(out.panel)) out.panel = null;
    this.hooked("clamp").forEach((c) => c.clamp(out));
    out.step = Math.max(0, Math.min(t.T, Number(out.step) || 0));
    out.layer = Math.max(0, Math.min(t.nLayers(out.kind) - 1, Number(out.layer) || 0));
    const named = out.head === "mean" || out.head === "all" || (out.head === "rollout" && t.hasRollout(out.kind));
    if (!(named || (Number.isInteger(out.head) && out.head >= 0 && out.head < t.H))) out.head = "mean";
    return out;
  }

  isVisible() { return this.root.offsetParent !== null || document.body.classList.contains("ae-standalone"); }

  // ---- actions: the only ways the view state changes

  go(step, source) {
    if (!this.trace) return;
    if (source !== "play") this.player.stop();
    this.store.set({ step: step }, source);
    if (source !== "play") this.renderToolbar();
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
    else this.player.start(Number(this.pace.value));
    this.renderToolbar();
  }

  // Draw again with the same state (the page's mode or size changed, the quiz moved its cursor).
  refresh() { if (this.trace) this.render(); }

  // ---- drawing

  renderToolbar() {
    const s = this.state, T = this.trace.T;
    this.slider.max = T;
    this.slider.value = s.step;
    this.stepLabel.textContent = "Step " + s.step + " / " + T;
    this.buttons.prev.disabled = this.buttons.reset.disabled = s.step === 0;
    this.buttons.next.disabled = this.buttons.end.disabled = s.step === T;
    this.buttons.play.textContent = this.player.playing() ? "⏸ Pause" : "▶ Play";
  }

  renderSelectors() {
    const s = this.state, t = this.trace;
    const row = (box, label, items, current, pick) => {
      box.replaceChildren(el("span", "ae-row-label", label), ...items.map(([value, text, title]) => {
        const b = button(text, title, () => pick(value), value === current ? "ae-on" : "");
        b.dataset.value = value;
        return b;
      }));
    };
    row(this.viewTabs, "View", VIEWS.map((v) => [v.id, v.label, v.tip + " (V cycles the views)"]), s.view, (v) => this.select({ view: v }));
    row(this.kindRow, "Kind", KINDS.map((k) => [k, KIND_NAMES[k], KIND_TITLES[k] + " (K cycles)"]), s.kind, (k) => this.select({ kind: k }));
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
    const controls = viewOf(s.view).controls; // the rows that apply to the view on screen
    this.kindRow.hidden = !controls.includes("kind");
    this.layerRow.hidden = !controls.includes("layer");
    this.headRow.hidden = !controls.includes("head");
  }

  // The chart's height: what is left of the window below where the chart starts, so the step controls, the status
  // line and the chart are seen together; read before drawing. Normal mode: as the page scrolled to the top lays it
  // out. Presentation mode: with the viewer scrolled to the top of the window (it scrolls there when the mode is
  // switched on and when a new sentence arrives): the chart takes the whole window below the controls.
  height() {
    const chartTop = this.right.getBoundingClientRect().top;
    const top = this.presenting ? chartTop - this.root.getBoundingClientRect().top : chartTop + window.scrollY;
    const room = window.innerHeight - top - 12;
    return Math.max(280, Math.min(900, room > 0 ? room : 460));
  }

  render() {
    if (!this.trace) return Promise.resolve();
    const s = this.state, t = this.trace;
    const height = (this.drawnHeight = this.height()); // layout is read before anything is written: no forced reflow
    this.renderToolbar();
    this.renderSelectors();
    drawStatus(this.status, t, s.step);
    const [row, which] = t.crossRow(s);
    this.sourceLabel.textContent = "Source" + (which ? " (shaded by cross-attention, " + which + ", at step " + s.step + ")" : "");
    drawSourceChips(this.sourceBox, t, row);
    this.hooked("render").forEach((c) => c.render(t, s, this.sourceBox));
    drawTargetChips(this.targetBox, t, s.step);
    this.output.textContent = "Output so far: " + (t.wire.outputs[s.step] || "—");
    this.renderBeams();
    const drawn = [];
    const topkKey = s.step + "|" + fontSize();
    if (t !== this.topkTrace || topkKey !== this.topkKey) { // candidates change with the trace and step, not the head
      this.topkTrace = t;
      this.topkKey = topkKey;
      drawn.push(topk.draw(this.topk, t, Object.assign({ online: this.online }, s)));
    }
    // a panel open takes the lower part of the window, as much as it needs (the chart keeps MIN_CHART px), and the
    // chart shrinks above it: the panel covers nothing, and the explained cell is scrolled into the chart's view.
    // In presentation mode the caption under the chart is in the window too (its height measured once per text).
    const view = viewOf(s.view);
    const caption = s.panel ? "" : view.caption(s, t);
    if (caption !== this.captionText || this.presenting !== this.captionFolded) this.drawCaption(caption);
    this.caption.hidden = !caption;
    if (this.presenting && caption && this.captionHeight === null) this.captionHeight = this.caption.offsetHeight + 10;
    let chartHeight = this.presenting && caption ? Math.max(MIN_CHART, height - this.captionHeight) : height;
    panels.draw(this.panel, s.panel ? this.panelContent : null, s);
    if (s.panel) {
      if (!this.panelNeed || this.panelNeed.content !== this.panelContent) { // measured once per answer, not per step
        this.panel.style.maxHeight = "";
        const border = this.panel.offsetHeight - this.panel.clientHeight;
        this.panelNeed = { content: this.panelContent, px: this.panel.scrollHeight + border };
      }
      chartHeight = Math.max(MIN_CHART, height - this.panelNeed.px - 10);
      this.panel.style.maxHeight = Math.max(160, height - chartHeight - 10) + "px";
    } else this.panel.style.maxHeight = "";
    const shown = Object.assign({}, s, { height: chartHeight });
    for (const [id, chart] of Object.entries(this.charts)) chart.hidden = id !== s.view;
    const chart = this.charts[view.id];
    const context = { trace: t, compare: { trace: this.compareTrace, error: this.compareError }, ask: (q) => this.viewAnswer(q) };
    drawn.push(view.draw(chart, context, shown));
    const cell = this.panelCell;
    if (s.panel === "explain" && cell && view.focus) view.focus(chart, cell); // the explained cell stays in view
    this.rendered = Promise.all(drawn);
    return this.rendered;
  }

  // The caption under the chart: its text at a desk; on a projector (presentation mode) folded under "How to read
  // this view", so the chart keeps the window (opened, the chart makes room for it).
  drawCaption(text) {
    this.captionText = text;
    this.captionFolded = this.presenting;
    this.captionHeight = null;
    if (!this.presenting) {
      this.caption.textContent = text;
      return;
    }
    const fold = el("details", "ae-caption-fold");
    fold.append(el("summary", "", "How to read this view"), el("span", "", text));
    fold.addEventListener("toggle", () => { this.captionHeight = null; this.refresh(); });
    this.caption.replaceChildren(fold);
  }

  renderBeams() {
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
  }

  // ---- requests to the server

  // Ask the server for the trace of `request` (request.js; without a model, the model on screen's) and show it; a
  // refusal is said in words above the status line. Returns the promise (the tests wait for it).
  // `byRoom`: the classroom's own request; any other is the person's, and a student following a room explores.
  // `options`: load's (keepView: the view stays where it is; link: the decode a link or Back asked for).
  requestTrace(request, byRoom, options) {
    if (!this.online) return Promise.resolve(null);
    if (!byRoom) this.explore();
    const seq = ++this.traceSeq;
    this.root.classList.add("ae-busy");
    return api.trace(traceRequest(Object.assign({ model: this.modelKey }, request))).then(
      (wire) => { if (seq === this.traceSeq) this.load(wire, options); return wire; },
      (error) => {
        if (seq === this.traceSeq) {
          this.pendingView = null; // the place it was to open at goes with the refused decode
          this.say(error.message);
        }
        return null;
      },
    ).finally(() => { if (seq === this.traceSeq) this.root.classList.remove("ae-busy"); });
  }

  // Force `candidate` at the current step: the tokens before it stay, the model continues after it (a new trace).
  force(candidate) {
    const s = this.state, t = this.trace;
    if (!candidate || !this.online || s.step === 0) return;
    const forced = t.steps.slice(0, s.step - 1).map((x) => x.id).concat([candidate.id]);
    this.requestTrace(Object.assign({}, t.request, { forced_ids: forced, prefix: "" }));
  }

  followHypothesis(ids) {
    this.requestTrace(Object.assign({}, this.trace.request, { strategy: "greedy", forced_ids: ids, prefix: "" }));
  }

  // The sentence's hand alignment in `view` (the heatmap's goldView): shown at once when the trace wrote the gold
  // translation, else a new trace that writes it (its pieces forced), shown when it arrives.
  showGold(view) {
    const t = this.trace, gold = t && t.gold;
    if (!t) return;
    if (!gold) { // said, not silently ignored: the sentences a lecturer types have no hand alignment
      this.say("G shows a hand alignment, and no one has aligned “" + t.request.sentence + "” by hand. Pick an " +
        "example from the Examples menu (each is aligned), or add the sentence with its word links to " +
        "explorer/app/alignments/ (one line: English, German, links such as 0-0 1-1).");
      return;
    }
    if (gold.matches) { this.select(view, "key"); return; }
    this.pendingView = { sentence: t.request.sentence, view: Object.assign({ step: gold.target_ids.length }, view) };
    this.requestTrace(Object.assign({}, t.request, { strategy: "greedy", forced_ids: gold.target_ids, prefix: "" }));
  }

  // Switch one more head off (a new trace) and show that head.
  switchOff(kind, layer, head) {
    const t = this.trace;
    const off = (t.request.ablation || []).filter(([k, l, h]) => !(k === kind && l === layer && h === head));
    this.pendingView = { sentence: t.request.sentence, view: { kind: kind, layer: layer, head: head } };
    this.requestTrace(Object.assign({}, t.request, { ablation: off.concat([[kind, layer, head]]) }));
  }

  // Open panel `what` and ask its question about the trace on screen (`cell`: the clicked cell, for "explain";
  // `extra`: the question's own choices, e.g. {method: "exact"}).
  ask(what, cell, extra) {
    this.panelCell = cell || null;
    const q = panels.question(what, this.trace, this.state, cell, extra);
    const asked = q.question && this.asker.ask(this.trace.request, q.question, this.ownKey, (answer) => {
      this.panelContent = { what: what, answer: answer };
      this.store.set({ panel: what }, "answer", true);
    });
    const note = q.note || (asked ? q.waiting : NEEDS_SERVER);
    this.panelContent = { what: what, note: note };
    this.store.set({ panel: what }, "click", true);
  }

  // The answer a view needs to a question about the trace on screen (the maskless view's, the value path's): null
  // while it is asked, {error} when refused or when there is no server. Each question is asked once per trace and
  // drawn again when its answer arrives; of one kind only the newest is awaited (the Asker drops the others').
  viewAnswer(question) {
    const t = this.trace;
    if (!this.viewAnswers || this.viewAnswers.trace !== t) this.viewAnswers = { trace: t, got: {}, asking: {} };
    const answers = this.viewAnswers, key = JSON.stringify(question), what = question.what;
    if (key in answers.got) return answers.got[key];
    if (answers.asking[what] === key) return null;
    answers.asking[what] = key;
    const asked = this.asker.ask(t.request, question, this.ownKey, (answer) => {
      if (this.viewAnswers !== answers) return;
      answers.got[key] = answer;
      delete answers.asking[what];
      this.refresh();
    });
    if (asked) return null;
    delete answers.asking[what];
    return (answers.got[key] = { error: NEEDS_SERVER });
  }

  // Compare two: a second trace (another sentence, or the other model), then both are drawn.
  askCompare(sentence, model) {
    const question = { what: "compare", sentence: sentence.trim(), model: model };
    const asked = this.asker.ask(this.trace.request, question, this.ownKey, (answer) => {
      this.compareError = answer.error || null;
      if (!answer.error) this.compareTrace = new Trace(answer.wire);
      this.refresh();
    });
    if (!asked) {
      this.compareError = NEEDS_SERVER;
      this.refresh();
    }
  }

  say(text) {
    this.message.textContent = text;
    this.message.hidden = false;
  }

  // After a new sentence, the keys step again (focus leaves the sentence box, where → would move the cursor).
  focus() {
    const active = document.activeElement;
    if (active && active !== document.body && this.root.closest("body") && active.blur) active.blur();
  }

  // ---- exports

  exportNpz() {
    const a = el("a");
    a.href = api.npzUrl(this.trace.request, this.state.step);
    a.download = "";
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  // The link to this view: copied, and put in the address bar too (where it can be copied by hand if the browser
  // refuses the clipboard); the button says which.
  copyLink() {
    const url = linkUrl(this.trace.request, this.state);
    if (this.online) { // the shared link has no room in it; the address keeps the room this page follows
      try { window.history.replaceState(null, "", placeUrl(this.trace.request, this.state)); } catch (e) { /* throttled */ }
    }
    const say = (text) => {
      this.copyButton.textContent = text;
      setTimeout(() => { this.copyButton.textContent = "Copy link"; }, 2000);
    };
    copyText(url).then(() => say("✓ Copied"), () => say("In the address bar"));
    return url;
  }

  // The chart on screen as a PNG for a slide: at twice the screen's size, with the sentence, the output so far and
  // the step above it.
  exportPng() {
    const s = this.state, t = this.trace;
    const name = filename(t.request.sentence, "") + "-" + s.view + "-step" + s.step;
    const header = ["“" + t.request.sentence + "” → “" + (t.wire.outputs[s.step] || "") + "”",
      "Step " + s.step + " of " + t.T + " · model: " + t.model.name + " · Attention Explorer"];
    const view = viewOf(s.view);
    const picture = Promise.resolve(view.png(this.charts[view.id], header));
    return picture.then((canvas) => canvasPng(canvas, name + ".png"));
  }

  exportHtml() {
    return standaloneHtml(this.trace.wire, this.state).then((html) => {
      download(html, filename(this.trace.request.sentence, ".html"), "text/html");
      return html.length;
    }).catch((err) => { this.status.textContent = "Export failed: " + err.message; });
  }
}
