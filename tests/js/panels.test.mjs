// The registry of the panels (panels.js): each says what it asks, or why it cannot, and draws its answer.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PANELS, question } from "../../explorer/ui/static/panels.js";
import { Trace } from "../../explorer/ui/static/trace.js";

const trace = new Trace(JSON.parse(readFileSync(new URL("./fixtures/trace.json", import.meta.url))).wire);
const state = { step: 2, kind: "cross", layer: 1, head: 0, view: "heatmap" };

test("every panel names its question, draws its answer, and has a Tools button or none", () => {
  assert.deepEqual(PANELS.map((p) => p.what), ["attribution", "beam_tree", "heads", "explain"]);
  for (const panel of PANELS) {
    assert.equal(typeof panel.question, "function", panel.what);
    assert.equal(typeof panel.draw, "function", panel.what);
    assert.ok(panel.button === null || (panel.button.length === 2 && panel.button[1].includes("asks the server")), panel.what);
  }
});

test("a cell of one head is explained; the mean and a masked cell say why not", () => {
  const asked = question("explain", trace, state, { head: 2, row: 1, column: 0, weight: 0.3 });
  assert.deepEqual(asked.question, { what: "explain", kind: "cross", layer: 1, head: 2, row: 1, column: 0 });
  assert.match(question("explain", trace, state, { head: "mean", weight: 0.3 }).note, /Choose one head \(0–3\)/);
  assert.match(question("explain", trace, state, { head: 1, weight: null }).note, /look-ahead mask/);
});

test("attribution is of the current step's token, with the selected cross head, and nothing at step 0", () => {
  const asked = question("attribution", trace, state);
  assert.deepEqual(asked.question, { what: "attribution", step: 2, layer: 1, head: 0 });
  assert.ok(asked.waiting.includes(trace.targetTokens[1]));
  assert.match(question("attribution", trace, Object.assign({}, state, { step: 0 })).note, /Step forward first/);
});

test("heads that matter is estimated first and exact when asked", () => {
  assert.deepEqual(question("heads", trace, state).question, { what: "heads", method: "estimate" });
  assert.deepEqual(question("heads", trace, state, null, { method: "exact" }).question, { what: "heads", method: "exact" });
});

test("a panel nobody registered is an error, not a silent other panel", () => {
  assert.throws(() => question("nope", trace, state), /no such panel: nope/);
});
