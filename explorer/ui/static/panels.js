// panels.js: the viewer's questions to the server about the trace it shows, and the panel under the chart that
// shows each answer: one clicked cell explained, which heads matter, attention against attribution, the beam
// tree, the second trace of Compare two. Methods of the viewer (viewer.js installs them), kept apart so that file holds the stepping and drawing.
(function (AE) {
  "use strict";

  const el = AE.el;
  const M = {};

  // Explain a clicked heatmap cell: its head's q and k, the scores, the mask and the softmax (asked of the server).
  M.explain = function (cell) {
    const s = this.state, t = this.trace;
    const note = (text) => { this.panel.hidden = false; this.panel.replaceChildren(el("div", "ae-panel-note", text)); };
    if (!Number.isInteger(cell.head)) {
      return note("Choose one head (0–" + (t.H - 1) + ") to see how a weight is computed: the mean of heads and the " +
        "rollout are not one softmax.");
    }
    if (cell.weight === null) {
      return note("That key lies in the future of the query: the look-ahead mask sets its score to −∞ before the " +
        "softmax, so its weight is exactly 0.");
    }
    const question = { what: "explain", kind: s.kind, layer: s.layer, head: cell.head, row: cell.row, column: cell.column };
    const shown = s.kind === "decoder_self" ? s.step : null; // the decoder inputs the heatmap shows
    this.askPanel(question, "Computing q and k for this cell…", (panel, answer) => AE.drawExplain(panel, answer, shown));
  };

  // Ask the server `question` about this trace; the panel says `waiting` until `draw(panel, answer)` replaces it.
  M.askPanel = function (question, waiting, draw) {
    this.panel.hidden = false;
    const asked = this.asker.ask(this.trace.request, this.modelKey, question, this.ownKey, (answer) => {
      this.lastAnswer = answer; // read by the browser tests
      this.panel.hidden = false;
      draw(this.panel, answer);
    });
    this.panel.replaceChildren(el("div", "ae-panel-note", asked ? waiting :
      "This needs the server (it computes from the model): open the app rather than the exported page."));
    return asked;
  };

  // Which heads matter for this translation: a grid per kind; a click switches that head off (a new trace).
  M.askHeads = function () {
    this.askPanel({ what: "heads" }, "Switching each head off in turn…",
      (panel, answer) => AE.drawHeads(panel, answer, (kind, layer, head) => this.switchOff(kind, layer, head)));
  };

  // The current step's cross-attention row (the selected one, else the best head) against gradient attributions.
  M.askAttribution = function () {
    const s = this.state, t = this.trace;
    const note = (text) => { this.panel.hidden = false; this.panel.replaceChildren(el("div", "ae-panel-note", text)); };
    if (s.step === 0) return note("Step forward first: at step 0 no token has been produced to attribute.");
    let layer = s.layer, head = s.head;
    if (s.kind !== "cross" || head === "all") {
      const best = t.model.best_head;
      [layer, head] = best && best.kind === "cross" ? [best.layer, best.head] : [t.nLayers("cross") - 1, "mean"];
    }
    this.askPanel({ what: "attribution", step: s.step, layer: layer, head: head },
      "Integrating gradients for “" + t.targetTokens[s.step - 1] + "”…", AE.drawAttribution);
  };

  // The beam search tree of this sentence; a click on a node steps through that hypothesis (a new trace).
  M.askBeamTree = function () {
    this.askPanel({ what: "beam_tree" }, "Searching with every hypothesis recorded…", (panel, answer) =>
      AE.drawBeamTree(panel, answer, (node) => this.followHypothesis(AE.beamPath(answer.nodes, node.id))));
  };

  M.followHypothesis = function (ids) {
    const request = Object.assign({}, this.trace.request, { strategy: "greedy", forced_ids: ids, prefix: "" });
    this.requestTrace(request);
  };

  M.switchOff = function (kind, layer, head) {
    const t = this.trace;
    const off = (t.request.ablation || []).filter(([k, l, h]) => !(k === kind && l === layer && h === head));
    this.requestTrace(Object.assign({}, t.request, { ablation: off.concat([[kind, layer, head]]) }));
    Object.assign(this.state, { kind: kind, layer: layer, head: head });
  };

  // Compare two: a second trace (another sentence, or the other model), then the viewer draws both.
  M.askCompare = function (sentence, model) {
    const question = { what: "compare", sentence: sentence.trim(), model: model };
    this.askPanel(question, "Decoding B…", (panel, answer) => {
      if (answer.error) return AE.drawExplain(panel, answer); // shows the message
      panel.hidden = true;
      this.compareTrace = new AE.Trace(answer.wire);
      this.render();
    });
  };

  AE.panelMethods = M;
})((window.AttentionExplorer = window.AttentionExplorer || {}));
