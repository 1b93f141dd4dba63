// The registry of the viewer's views (views.js): every view says what it is and makes itself in its box (the instance
// that draws and exports is made in the page: the browser tests).
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { VIEWS, viewOf } from "../../explorer/ui/static/views.js";
import { weightScale } from "../../explorer/ui/static/heatmap.js";
import { beamPath } from "../../explorer/ui/static/beamtree.js";

test("every view has an id, a label, a tip, its controls, its caption and makes itself in its box", () => {
  for (const view of VIEWS) {
    assert.match(view.id, /^[a-z_]+$/, view.id);
    assert.equal(typeof view.label, "string", view.id);
    assert.ok(view.tip.length > 20, view.id + ": a tip that says what it shows");
    assert.equal(typeof view.create, "function", view.id);
    assert.equal(view.create.length, 1, view.id + ": create(div)");
    assert.equal(typeof view.caption, "function", view.id);
    assert.equal(view.draw, undefined, view.id + ": drawn by its instance, which owns its state");
    assert.ok(view.controls && typeof view.controls === "object", view.id);
  }
});

test("no two views share an id", () => {
  assert.equal(new Set(VIEWS.map((v) => v.id)).size, VIEWS.length);
});

test("an id no view has opens the first view, the heatmap", () => {
  assert.equal(viewOf("no-such-view"), VIEWS[0]);
  assert.equal(VIEWS[0].id, "heatmap");
  assert.equal(viewOf("mask").id, "mask");
});

test("the heatmap's scale is 0..1 for weights and 0..peak for the rollout", () => {
  const weights = weightScale(1, true);
  assert.deepEqual([weights.min, weights.max, weights.label, weights.masked], [0, 1, "weight", true]);
  assert.deepEqual(weights.ticks, [0, 0.2, 0.4, 0.6, 0.8, 1]);
  const rollout = weightScale(0.5, false);
  assert.equal(rollout.label, "rollout");
  assert.equal(rollout.ticks.at(-1), 0.5);
  assert.equal(rollout.color(0.5), weights.color(1)); // the rollout's peak takes the top of the scale
  assert.equal(rollout.format(0.25), "0.25");
});

test("a beam hypothesis's path is the token ids from the root to it, the root's <s> left out", () => {
  const nodes = [
    { parent: -1, token_id: 1 },
    { parent: 0, token_id: 10 },
    { parent: 1, token_id: 20 },
    { parent: 0, token_id: 11 },
  ];
  assert.deepEqual(beamPath(nodes, 2), [10, 20]);
  assert.deepEqual(beamPath(nodes, 3), [11]);
  assert.deepEqual(beamPath(nodes, 0), []);
});
