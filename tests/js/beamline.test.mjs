// The greedy page's line on beam search (beamline.js): said only when beam search writes another translation, its
// button steps through that translation's tokens, and the followed trace offers the way back.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { asksBeam, beamLine } from "../../explorer/ui/static/beamline.js";

const greedy = {
  modelKey: "shipped",
  request: { sentence: "The loss decreases during training.", strategy: "greedy", forced_ids: [], prefix: "" },
  wire: { outputs: ["", "Der", "Der Verlust ist während des Trainings nicht abgestiegen."] },
};
// root <s> -> Der (kept) -> Verlust (kept) -> </s> (finished, the winner); a pruned sibling
const answer = {
  what: "beam_tree", beam_size: 4, alpha: 0.6, winner: 3, translation: "Der Verlust fällt während des Trainings ab.",
  nodes: [
    { id: 0, parent: -1, step: 0, token_id: 1 },
    { id: 1, parent: 0, step: 1, token_id: 40 },
    { id: 2, parent: 1, step: 2, token_id: 41 },
    { id: 3, parent: 2, step: 3, token_id: 2 },
    { id: 4, parent: 1, step: 2, token_id: 99 },
  ],
};

test("only a plain greedy decode asks what beam search writes", () => {
  assert.equal(asksBeam(greedy), true);
  for (const change of [{ strategy: "beam" }, { strategy: "sample" }, { forced_ids: [5] }, { prefix: "Der" }]) {
    assert.equal(asksBeam({ request: Object.assign({}, greedy.request, change) }), false, JSON.stringify(change));
  }
});

test("a different beam translation is said in one line with a button that forces its path", () => {
  const line = beamLine(greedy, answer, null);
  assert.equal(line.text, "Beam search (4) writes: “Der Verlust fällt während des Trainings ab.”");
  assert.deepEqual(line.action.change, { strategy: "greedy", forced_ids: [40, 41, 2], prefix: "" });
  assert.equal(line.action.beamSize, 4);
});

test("no line while the answer is asked, when it was refused, or when greedy and beam agree", () => {
  assert.equal(beamLine(greedy, null, null), null);
  assert.equal(beamLine(greedy, { what: "beam_tree", error: "busy" }, null), null);
  const same = Object.assign({}, answer, { translation: greedy.wire.outputs[2] });
  assert.equal(beamLine(greedy, same, null), null);
});

test("the followed path says so and offers greedy again; another sentence or model does not", () => {
  const followed = { sentence: greedy.request.sentence, model: "shipped", ids: [40, 41, 2], beamSize: 4 };
  const forced = Object.assign({}, greedy, { request: Object.assign({}, greedy.request, { forced_ids: [40, 41, 2] }) });
  const line = beamLine(forced, null, followed);
  assert.match(line.text, /^Stepping through what beam search \(4\) writes/);
  assert.deepEqual(line.action.change, { forced_ids: [], prefix: "" });
  assert.equal(beamLine(Object.assign({}, forced, { modelKey: "tatoeba" }), null, followed), null);
  const other = Object.assign({}, forced, { request: Object.assign({}, forced.request, { forced_ids: [40] }) });
  assert.equal(beamLine(other, null, followed), null); // a forced candidate, not the beam's path
});
