// viewer.js: the step-through viewer, around its elements (frame.js: the step controls, the selectors, the chips, the
// candidates, the charts with their caption and panel). What is shown lives in its store
// (store.js): the view state, the trace on screen, Compare two's second trace and the answers to the questions asked
// about it; every view is drawn from the store whenever it changes, with no server request. Views tell the viewer what
// the person asked for with DOM events ("ae-cell", "ae-select", "ae-force", "ae-switch-off", "ae-follow",
// "ae-compare", "ae-close-panel", "ae-ask", "ae-beam-line", "ae-try"); it turns them into an action. A new trace goes to the
// server's plain routes (api.js), a question through answers.js; on the exported offline page (`online` false)
// neither is offered. Beside the views work its companions (companions.js: the room, the lesson, the quiz, the
// training time-lapse), each reached only through its hooks and subscribed to the store; they change what is shown
// only through the actions below.
import { KINDS, Trace } from "./trace.js";
import { openingOf, unusedOfLink } from "./opening.js";
import { buildFrame } from "./frame.js";
import { clampToTrace, createStore } from "./store.js";
import { DEFAULT_MODEL, isShipped } from "./settings.js";
import { api } from "./api.js";
import { Answers, keyOf } from "./answers.js";
import { traceRequest } from "./request.js";
import { readLink } from "./link.js";
import { presenting } from "./dom.js";
import { bindKeys } from "./keys.js";
import { drawSelectors } from "./selectors.js";
import { rolesFor } from "./roles.js";
import { Player } from "./player.js";
import { Busy } from "./busy.js";
import { COMPANIONS } from "./companions.js";
import { drawNotes, drawSourceChips, drawStatus, drawTargetChips, drawBeams } from "./chips.js";
import { VIEWS, viewOf } from "./views.js";
import { asksBeam, beamLine, drawBeamLine } from "./beamline.js";
import { QUESTION as BEAM_QUESTION } from "./beamtree.js";
import * as page from "./page.js";
import * as panels from "./panels.js";


// How the trace on screen was decoded, in a few words ("greedy", "beam search (4)", "sampling (T 0.8)", "+ what-if").
function decodingName(request) {
  const how = { beam: "beam search (" + request.beam_size + ")", sample: "sampling (T " + request.temperature + ")" }[request.strategy] || "greedy";
  return how + (request.prefix ? " + what-if prefix" : "");
}

export class Viewer {
  constructor(root, online) {
    this.root = root;
    this.busy = new Busy(root); // aria-busy while a drawing or a trace asked for is pending
    this.online = online;
    this.ownKey = null; // the key of the model this browser session trained, once a trace of it arrived
    this.traceSeq = 0; // the number of the last trace asked for: an older answer arriving late is dropped
    const clamps = () => this.hooked("clamp").map((c) => (s) => c.clamp(s));
    const opening = { step: 0, kind: "cross", layer: 0, head: 0, view: VIEWS[0].id, panel: null, lesson: null };
    const panelIds = panels.PANELS.map((p) => p.what);
    this.store = createStore(opening, (s) => clampToTrace(s, s.trace, VIEWS.map((v) => v.id), panelIds, clamps()));
    this.answers = new Answers(this.store, online, () => this.ownKey);
    this.store.subscribe(() => this.render());
    this.pendingView = readLink(); // {sentence, view}: where the next trace of that sentence opens (a deep link)
    this.player = new Player(this);
    this.companions = COMPANIONS.map((Companion) => new Companion(this)); // the room, the lesson, the quiz, the time-lapse
    this.f = buildFrame(this); // the viewer's elements (frame.js)
    this.listen();
    bindKeys(this);
    this.presenting = presenting();
    new MutationObserver(() => { // presentation mode on: the viewer fills the window, its controls at the top
      const now = presenting();
      if (now !== this.presenting) {
        this.f.place();
        this.f.area.resized(); // the panel's text changes size
      }
      if (now && !this.presenting) this.root.scrollIntoView({ block: "start" });
      this.presenting = now;
      this.refresh();
    }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    window.addEventListener("resize", () => { this.f.area.resized(); this.refresh(); });
    // the page above the chart settles after the first draw (Gradio's styles, fonts): draw again when the room changed
    new ResizeObserver(() => { if (this.trace && this.f.area.height(this.root, this.presenting) !== this.drawnHeight) this.refresh(); }).observe(document.body);
  }

  // The companions (companions.js) that have hook `name`, in their order.
  hooked(name) { return this.companions.filter((c) => c[name] !== undefined); }

  // The person asked for a trace of their own (not the room's): a student following a room explores.
  explore() { this.hooked("explore").forEach((c) => c.explore()); }

  get state() { return this.store.get(); } // read-only: changes go through store.set (the actions below)
  get trace() { return this.opening || this.store.get().trace; } // while one opens (load), the companions see it
  get modelKey() { return this.trace ? this.trace.modelKey : DEFAULT_MODEL; } // the model of the trace on screen

  // What the views ask for, as the events they emit.
  listen() {
    const on = (name, handle) => this.root.addEventListener(name, (event) => handle(event.detail));
    on("ae-cell", (cell) => this.openPanel(panels.ON_CELL.what, cell)); // the panel a clicked cell asks
    on("ae-select", (change) => this.select(change, "click"));
    on("ae-force", (candidate) => this.force(candidate));
    on("ae-switch-off", (head) => this.switchOff(head.kind, head.layer, head.head));
    on("ae-follow", (path) => this.decodeWith({ strategy: "greedy", forced_ids: path.forced_ids, prefix: "" }));
    on("ae-beam-line", (action) => { // the line under the output: step through beam search's translation, or back
      const t = this.trace;
      this.beamFollowed = action.beamSize ? { sentence: t.request.sentence, model: t.modelKey, ids: action.change.forced_ids, beamSize: action.beamSize } : null;
      this.decodeWith(action.change);
    });
    on("ae-compare", (b) => {
      const compare = { what: "compare", sentence: b.sentence.trim(), model: b.model };
      this.answers.again(compare);
      this.store.set({ compare: compare }, "click");
    });
    on("ae-close-panel", () => this.store.set({ panel: null }, "click"));
    on("ae-ask", (q) => this.openPanel(q.what, null, q)); // a panel's follow-up question (the exact heads after the estimate)
    on("ae-redraw", () => this.refresh()); // a view's own control changed what it shows (the value path's query)
    on("ae-try", (offer) => this.tryOffer(offer.sentence));
  }

  // A new trace from the server, opened where opening.js says. `options`: keepView (the same sentence from another
  // model, a training step: keep the step too); link (the decode a link or Back asked for); opensAt ({sentence,
  // view}: where it opens, instead of the page's link).
  load(wire, options) {
    if (!wire || !wire.attention) return;
    const opts = options || {}, previous = this.trace, trace = (this.opening = new Trace(wire));
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
    drawNotes(this.f.notes, trace); // the decode's notes change with the trace, not the step
    if (this.online) page.agree(trace);
    if (this.f.decoding) this.f.decoding.textContent = "Decoding: " + decodingName(wire.request) + " ▾";
    if (this.presenting && previous && !opts.keepView) this.root.scrollIntoView({ block: "start" });
    this.store.set(change, "trace", true);
    const unused = link && pending.own ? unusedOfLink(link, pending.unread || [], this.state, trace, VIEWS.map((v) => v.id)) : [];
    if (unused.length) this.say("This link asks for what this sentence cannot show, so it was left out: " + unused.join("; ") + ". The rest of the link applies.");
    this.hooked("opened").forEach((c) => c.opened(link));
  }

  isVisible() { return this.root.offsetParent !== null || document.body.classList.contains("ae-standalone"); }

  // ---- actions: the only ways what is shown changes

  go(step, source) {
    if (!this.trace) return;
    if (source !== "play") this.player.stop();
    const before = this.store.get();
    if (this.store.set({ step: step }, source) === before) this.showPlaying(); // unchanged: not drawn, the button is
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
  showPlaying() { if (this.trace) this.f.toolbar.render(this.state.step, this.trace.T, this.player.playing()); }

  // Draw again with the same state (the page's mode or size changed, the quiz moved its cursor): every subscriber of
  // the store is told, the companions with the viewer.
  refresh() { if (this.trace) this.store.set({}, "refresh", true); }

  // Open panel `what` and ask its question about the trace on screen (`cell`: the clicked cell, for the cell's panel;
  // `extra`: the question's own choices, e.g. {method: "exact"}).
  openPanel(what, cell, extra) {
    const q = panels.question(what, this.trace, this.state, cell, extra);
    if (q.question) this.answers.again(q.question);
    this.bringIntoView(".ae-panel");
    this.store.set({ panel: what, panelContent: Object.assign({ what: what, cell: cell || null }, q) }, "click", true);
  }

  // After the lecturer scrolled: what opens with the next change of the store (a panel, the lesson) comes into the
  // window once it is drawn: the viewer goes back to its top (in presentation mode it fills the window; at a desk,
  // only if it was scrolled past or the element is out of the window). Called before that change.
  bringIntoView(selector) { this.bring = selector; }

  broughtIntoView() {
    const shown = this.bring && this.root.querySelector(this.bring);
    if (!shown || shown.offsetParent === null) return; // not drawn yet: the next drawing tries again
    this.bring = null;
    const top = shown.getBoundingClientRect().top, viewer = this.root.getBoundingClientRect().top;
    // the viewer's top is the anchor: what opens fits the viewer's height, and moves within it as its answer arrives
    const away = viewer < 0 || top < 0 || top > window.innerHeight - 80;
    if (this.presenting || away) this.root.scrollIntoView({ block: "start" });
  }

  // The panel's content now: its note, the wait for its answer, or the answer (asked once per trace, answers.js).
  panelShown() {
    const c = this.state.panelContent;
    if (!c || !c.question) return c;
    const answer = this.answers.get(c.question); // without a server: its refusal, said as the panel's note
    if (!answer) return { what: c.what, note: c.waiting };
    return this.online ? { what: c.what, answer: answer } : { what: c.what, note: answer.error };
  }

  // ---- drawing

  render() {
    const s = this.state, t = s.trace;
    if (!t) return Promise.resolve();
    const height = (this.drawnHeight = this.f.area.height(this.root, this.presenting)); // layout read before any write
    this.f.toolbar.render(s.step, t.T, this.player.playing());
    const roles = rolesFor(t, this.online ? (q) => this.answers.get(q) : null); // the page's, or asked once per trace
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
    const context = { trace: t, compare: () => this.second(), ask: (q) => this.answers.get(q) }; // asked where drawn
    drawn.push(view.draw(context, shown));
    const cell = s.panelContent && s.panelContent.cell;
    if (s.panel && cell && view.focus) view.focus(cell); // the explained cell stays in view
    const done = this.busy.during(Promise.all(drawn));
    if (this.bring) done.then(() => this.broughtIntoView());
    return done;
  }

  // What beam search writes for the greedy trace on screen (beamline.js): asked once the step-through reaches the end
  // of the translation (the page's opening trace brings it), then shown at every step; null while it is not there.
  beamAnswer(t, s) {
    if (!this.online || !asksBeam(t)) return null;
    return s.step === t.T ? this.answers.get(BEAM_QUESTION) : s.answers[keyOf(BEAM_QUESTION)] || null;
  }

  // Compare two's second trace ({trace, error}; none before its question is asked), made once per answer.
  second() {
    const asked = this.state.compare, answer = asked ? this.answers.get(asked) : null;
    if (!answer || !answer.wire) return { trace: null, error: answer ? answer.error : null };
    if (!this.compared || this.compared.answer !== answer) this.compared = { answer: answer, trace: new Trace(answer.wire) };
    return { trace: this.compared.trace, error: null };
  }

  // ---- requests to the server

  // Show the trace a promise brings (the server's wire form), unless another was asked for meanwhile; a refusal is said
  // in words above the status line. `options`: load's. Returns the promise of the wire (null if refused).
  show(wire, options) {
    const seq = ++this.traceSeq;
    if (this.superseded) this.superseded(); // a request still on its way no longer keeps the viewer busy
    const release = (this.superseded = this.busy.hold());
    this.root.classList.add("ae-busy");
    return Promise.resolve(wire).then(
      (got) => { if (seq === this.traceSeq && got) this.load(got, options); return got; },
      (error) => {
        if (seq === this.traceSeq) {
          this.pendingView = null; // the place it was to open at goes with the refused decode
          const kept = this.trace; // a refused link: said as the link's, and the page agrees with what is shown
          if (options && options.link && kept) {
            this.say("This link's decode was refused: " + error.message + " The viewer still shows “" +
              kept.request.sentence + "”.");
            if (this.online) page.agree(kept);
          } else this.say(error.message);
        }
        return null;
      },
    ).finally(() => {
      release(); // after load's own drawing began: busy until it is drawn
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
    const opensAt = { sentence: sentence, view: { step: 0, kind: s.kind, layer: s.layer, head: s.head, view: s.view } };
    return this.decodeWith({ sentence: sentence, forced_ids: [], prefix: "" }, { opensAt: opensAt });
  }

  decodeWith(change, options) { return this.requestTrace(Object.assign({}, this.trace.request, change), options); }

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
    if (!gold && t.languages !== "English → German") { // the hand alignments pair English with German sentences
      this.say("G shows a hand alignment of the sentence with its German translation, and this model translates " +
        t.languages + ": no hand alignment exists for it. Switch to an English → German model to see one.");
      return;
    }
    if (!gold) { // said, not silently ignored: the sentences a lecturer types have no hand alignment
      this.say("G shows a hand alignment, and no one has aligned “" + t.request.sentence + "” by hand. Pick an " +
        "example from the Examples menu: each of them is aligned by hand, word by word.");
      return;
    }
    if (gold.matches) { this.select(view, "key"); return; }
    const opensAt = { sentence: t.request.sentence, view: Object.assign({ step: gold.target_ids.length }, view) };
    this.decodeWith({ strategy: "greedy", forced_ids: gold.target_ids, prefix: "" }, { opensAt: opensAt });
  }

  // Switch one more head off (a new trace) and show that head.
  switchOff(kind, layer, head) {
    const t = this.trace;
    const off = (t.request.ablation || []).filter(([k, l, h]) => !(k === kind && l === layer && h === head));
    const opensAt = { sentence: t.request.sentence, view: { kind: kind, layer: layer, head: head } };
    this.decodeWith({ ablation: off.concat([[kind, layer, head]]) }, { opensAt: opensAt });
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
}
