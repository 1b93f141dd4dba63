// The guided lesson (lesson.js): its stops, and the stop a link or a key may ask for.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Lesson, STOPS } from "../../explorer/ui/static/lesson.js";

const clamp = (lesson) => Lesson.prototype.clamp({ lesson }).lesson;

test("the lesson has twelve stops, each with a title and what it says", () => {
  assert.equal(STOPS.length, 12);
  for (const stop of STOPS) {
    assert.equal(typeof stop.title, "string");
    assert.equal(typeof stop.say, "function");
  }
});

test("a stop is a number from 1 to the last stop; more is the last", () => {
  assert.equal(clamp(3), 3);
  assert.equal(clamp("5"), 5);
  assert.equal(clamp(99), STOPS.length);
});

test("no stop, a stop below 1 or what is not a number is no lesson", () => {
  for (const asked of [null, 0, -2, "x", 2.5]) assert.equal(clamp(asked), null, String(asked));
});

test("the lesson stops on query, key and value", () => {
  assert.ok(STOPS.some((stop) => /query, key and value/i.test(stop.title)), STOPS.map((s) => s.title).join(" | "));
});

test("the softmax's landslide is explained with this row's numbers: e^gap times the weight", async () => {
  const { softmaxGap } = await import("../../explorer/ui/static/lesson.js");
  const said = softmaxGap([10.57, 3.49, 1.0], [0.9992, 0.0008, 0.0], [0, 1], ["cat", "the"]);
  assert.match(said, /10\.57 − 3\.49 = 7\.08 in score/);
  assert.match(said, /e\^7\.08 ≈ 1,188 times that of “the”: 1\.00 against 0\.00/);
  assert.equal(softmaxGap([1.0], [1.0], [0], ["x"]), "");
});

test("the strongest encoder link is between two words, never two pieces of one word", async () => {
  const { strongestEncoderLink, wordsOf } = await import("../../explorer/ui/static/lesson.js");
  const tokens = ["The", "ex", "·ample", ".", "</s>"];
  assert.deepEqual(wordsOf(tokens), [0, 1, 1, 2, 3]);
  const rows = [ // "ex" puts 0.9 on "·ample" (its own word), "The" puts 0.6 on "ex"
    [0.3, 0.6, 0.05, 0.05, 0], [0.05, 0.05, 0.9, 0, 0], [0.1, 0.8, 0.1, 0, 0], [0.2, 0.2, 0.2, 0.4, 0], [0, 0, 0, 0, 1],
  ];
  const trace = { H: 1, sourceTokens: tokens, nLayers: () => 1, head: () => rows };
  const link = strongestEncoderLink(trace);
  assert.deepEqual([link.i, link.j, link.weight], [0, 1, 0.6]);
});
