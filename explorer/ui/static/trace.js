// trace.js: the decode trace in the browser. Unpacks the wire form (16-bit arrays in base64, see
// explorer/app/wire.py) and slices the view at step t: rows 0..t-1 of decoder_self and cross, with labels.
// It computes nothing the server did not send, except the mean of heads; the rollout comes from the server.

// A head of a layer, named the one way the page names it: "L2·H1" (layer 2, head 1; both counted from 0).
export function headName(layer, head) { return "L" + layer + "·H" + head; }
export const KINDS = ["encoder_self", "decoder_self", "cross"];
export const KIND_TITLES = {
  encoder_self: "Encoder self-attention",
  decoder_self: "Decoder masked self-attention",
  cross: "Cross-attention (encoder-decoder)",
};
export const AXIS_TITLES = {
  encoder_self: ["source token (query)", "source token (key)"],
  decoder_self: ["decoder input → token it produces (query)", "decoder input so far (key)"],
  cross: ["decoder input → token it produces (query)", "source token (key)"],
};
export const ARROW = " → "; // a decoder row: the decoder input at that position → the token it produces

function unpack(array) {
  const bin = atob(array.data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const ints = array.dtype === "<u2" ? new Uint16Array(bytes.buffer) : new Int16Array(bytes.buffer);
  const values = new Float32Array(ints.length);
  for (let i = 0; i < ints.length; i++) values[i] = ints[i] * array.scale;
  return { shape: array.shape, values: values };
}

// A decoded trace: the wire object plus typed arrays for every kind.
export class Trace {
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
    this.gold = wire.gold || null; // the sentence's hand alignment against this trace (explorer/app/gold.py), or null
    // what the model translates, by English name: every text that names a language reads it here
    const pair = wire.model.languages || {};
    this.sourceLanguage = pair.source_name || "English";
    this.targetLanguage = pair.target_name || "German";
  }

  // "English → German"
  get languages() { return this.sourceLanguage + ARROW + this.targetLanguage; }

  // The gold links shown at step t as [row, column] cells of the cross-attention map ([] when the trace did not
  // write the gold translation), and the AER of a head ("mean": the layer's mean of heads; null for the rollout).
  goldCells(t) { return this.gold && this.gold.matches ? this.gold.cells.filter(([i]) => i < t) : []; }
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
      if (!best || aer < best.aer) best = { layer: layer, head: head, aer: aer };
    }));
    return best;
  }

  nLayers(kind) { return this.model.n_layers[kind]; }

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
      if (sum === null) sum = rows.map((r) => r.map((v) => (v === null ? null : 0)));
      rows.forEach((r, i) => r.forEach((v, j) => { if (v !== null) sum[i][j] += v / this.H; }));
    }
    return sum;
  }

  // Attention rollout exists for the encoder (after `layer`) and for cross-attention (decoder `layer`, through
  // every encoder layer); decoder self-attention has none.
  hasRollout(kind) { return kind === "encoder_self" || kind === "cross"; }

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
}
