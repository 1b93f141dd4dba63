// Where a new trace opens (opening.js), and what of a link it could not take.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { OPENING_STEP, openingOf, unusedOfLink } from "../../explorer/ui/static/opening.js";
import { Trace } from "../../explorer/ui/static/trace.js";

const wire = JSON.parse(readFileSync(new URL("./fixtures/trace.json", import.meta.url))).wire;
const trace = new Trace(wire);
const forced = new Trace(Object.assign({}, wire, { request: Object.assign({}, wire.request, { forced_ids: [5, 6] }) }));
const other = new Trace(Object.assign({}, wire, { request: Object.assign({}, wire.request, { sentence: "Another one." }) }));

test("the page's first trace opens a few tokens in, at the model's best head", () => {
  const { change, link } = openingOf(trace, null, null, {});
  assert.equal(change.step, Math.min(OPENING_STEP, trace.T));
  assert.deepEqual([change.kind, change.layer, change.head], [wire.model.best_head.kind, wire.model.best_head.layer, wire.model.best_head.head]);
  assert.equal(link, null);
});

test("a new trace clears the answers and the panel of the trace before", () => {
  const { change } = openingOf(other, trace, null, {});
  assert.deepEqual([change.answers, change.panel, change.panelContent], [{}, null, null]);
});

test("tokens forced on the same sentence open at the forced step; another sentence at step 0", () => {
  assert.equal(openingOf(forced, trace, null, {}).change.step, 2);
  assert.equal(openingOf(other, trace, null, {}).change.step, 0);
});

test("the same sentence from another model keeps the step (a training step)", () => {
  assert.equal("step" in openingOf(trace, trace, null, { keepView: true }).change, false);
});

test("a link's place opens with its sentence's trace; a link that names its sentence waits for its own decode", () => {
  const pending = { sentence: wire.request.sentence, view: { step: 1, view: "mask" }, own: true };
  assert.equal(openingOf(trace, null, pending, {}).link, null); // the page's opening trace: not the link's decode
  const { change, link } = openingOf(trace, null, pending, { link: true });
  assert.deepEqual(link, { step: 1, view: "mask" });
  assert.equal(change.view, "mask");
  assert.equal(openingOf(other, trace, pending, { link: true }).link, null); // another sentence
});

test("a link's values the trace cannot take are named with what it has", () => {
  const got = { step: trace.T, kind: "cross", layer: 0, head: "mean", view: "heatmap" };
  const unused = unusedOfLink({ step: 99, view: "nope", head: "mean" }, ["layer=-3"], got, trace, ["heatmap", "mask"]);
  assert.deepEqual(unused, ["layer=-3 (not a number)", "step=99 (this page has 0–" + trace.T + ")", "view=nope (this page has heatmap, mask)"]);
});
