// The decode trace in the browser (trace.js): the wire's 16-bit arrays unpacked as the server reads them
// (explorer/app/wire.py `unpack`, whose readings tests/js/fixtures/trace.json holds), and the views' slices of them.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ARROW, Trace, headName } from "../../explorer/ui/static/trace.js";

const { wire, reference } = JSON.parse(readFileSync(new URL("./fixtures/trace.json", import.meta.url)));
const trace = new Trace(wire);
const last = wire.model.n_layers.cross - 1;
const t = reference.t;

function close(actual, expected, what) {
  assert.equal(actual.length, expected.length, what + ": rows");
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i].length, what + ": columns of row " + i);
    row.forEach((v, j) => assert.ok(Math.abs(v - expected[i][j]) < 1e-6, `${what}[${i}][${j}] = ${v}, Python reads ${expected[i][j]}`));
  });
}

test("the trace's sizes are the wire's", () => {
  assert.equal(trace.T, wire.steps.length);
  assert.equal(trace.S, wire.source_tokens.length);
  assert.equal(trace.H, wire.model.n_heads);
  assert.equal(trace.nLayers("encoder_self"), wire.model.n_layers.encoder_self);
});

test("a cross-attention head at step t reads as the server reads it: t rows of source weights", () => {
  close(trace.head("cross", last, 1, t), reference.cross_L_last_H1, "cross");
});

test("each row of cross-attention is a distribution over the source tokens", () => {
  for (const row of trace.head("cross", 0, 0, trace.T)) {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 2e-3);
  }
});

test("decoder self-attention is masked: the future of each row is null, never a small weight", () => {
  const rows = trace.head("decoder_self", 0, 0, t);
  close(rows.map((r) => r.map((v) => v ?? 0)), reference.decoder_self_L0_H0, "decoder_self");
  rows.forEach((row, i) => row.forEach((v, j) => assert.equal(v === null, j > i, `row ${i} column ${j}`)));
});

test("the mean of heads is the mean of the heads the server sent", () => {
  close(trace.meanOfHeads("encoder_self", 0, t), reference.encoder_self_L0_mean, "mean of heads");
  assert.deepEqual(trace.weights("encoder_self", 0, "mean", t), trace.meanOfHeads("encoder_self", 0, t));
});

test("the mean of heads keeps the masked future null", () => {
  const mean = trace.meanOfHeads("decoder_self", 1, 3);
  assert.equal(mean[0][1], null);
  assert.notEqual(mean[2][2], null);
});

test("the cross-attention rollout comes from the server, t rows at step t", () => {
  close(trace.rolloutRows("cross", last, t), reference.cross_rollout_L_last, "rollout");
  assert.deepEqual(trace.weights("cross", last, "rollout", t), trace.rolloutRows("cross", last, t));
});

test("only the encoder and cross-attention have a rollout", () => {
  assert.equal(trace.hasRollout("encoder_self"), true);
  assert.equal(trace.hasRollout("cross"), true);
  assert.equal(trace.hasRollout("decoder_self"), false);
});

test("the scores q·k/√d_k hold the future too (a teacher-forced pass)", () => {
  const scores = trace.scoresAt(0, 0, t);
  close(scores, reference.scores_L0_H0, "scores");
  assert.ok(scores[0][1] !== null);
});

test("a decoder row is labelled by its input and the token it produces, its keys by the inputs so far", () => {
  const [rows, keys] = trace.labels("decoder_self", 2);
  assert.deepEqual(rows, ["<s>" + ARROW + wire.target_tokens[0], wire.decoder_input_tokens[1] + ARROW + wire.target_tokens[1]]);
  assert.deepEqual(keys, wire.decoder_input_tokens.slice(0, 2));
  assert.deepEqual(trace.labels("cross", 2)[1], wire.source_tokens);
  assert.deepEqual(trace.labels("encoder_self", 0), [wire.source_tokens, wire.source_tokens]);
});

test("a head is named one way: L2·H1", () => {
  assert.equal(headName(2, 1), "L2·H1");
});

test("the source chips are shaded by the chosen cross head, else the model's best head", () => {
  const state = { step: 2, kind: "encoder_self", layer: 0, head: 3 };
  const [row, which, layer, head] = trace.crossRow(state);
  assert.deepEqual([layer, head], [wire.model.best_head.layer, wire.model.best_head.head]);
  assert.equal(which, headName(layer, head));
  assert.deepEqual(row, trace.head("cross", layer, head, 2)[1]);
  assert.deepEqual(trace.crossRow({ step: 0, kind: "cross", layer: 0, head: 0 }), [null, ""]);
  assert.equal(trace.crossRow({ step: 1, kind: "cross", layer: 1, head: "mean" })[1], "L1 mean of heads");
});

test("without a best head the chips fall back to the last layer's mean of heads", () => {
  const plain = new Trace(Object.assign({}, wire, { model: Object.assign({}, wire.model, { best_head: null }) }));
  assert.deepEqual(plain.defaultCross(), [last, "mean"]);
});

test("gold links: the cells shown at step t, a head's AER and the best head on the sentence", () => {
  const gold = { matches: true, cells: [[0, 0], [1, 1], [3, 2]], aer: [[0.5, 0.2], [0.2, 0.9]], aer_mean: [0.4, 0.6] };
  const golden = new Trace(Object.assign({}, wire, { gold }));
  assert.deepEqual(golden.goldCells(2), [[0, 0], [1, 1]]);
  assert.equal(golden.goldAer(1, 0), 0.2);
  assert.equal(golden.goldAer(0, "mean"), 0.4);
  assert.equal(golden.goldAer(0, "rollout"), null);
  assert.deepEqual(golden.goldBest(), { layer: 0, head: 1, aer: 0.2 }); // the first of equals
  assert.deepEqual(trace.goldCells(3), []);
  assert.equal(trace.goldBest(), null);
});

test("the trace names the model's language pair, and the lesson and the mask's caption say it", async () => {
  assert.equal(trace.languages, "English" + ARROW + "German"); // the shipped model's, from the wire
  const french = new Trace(Object.assign({}, wire, {
    model: Object.assign({}, wire.model, {
      languages: { source: "en", target: "fr", source_name: "English", target_name: "French" },
    }),
  }));
  assert.equal(french.languages, "English" + ARROW + "French");
  const { STOPS } = await import("../../explorer/ui/static/lesson.js");
  const said = STOPS.map((stop) => { try { return [].concat(stop.say(french, {}, () => null)).join(" "); } catch (e) { return ""; } }).join(" ");
  assert.ok(said.length > 500, said);
  assert.match(said, /French/);
  assert.doesNotMatch(said, /German/);
});
