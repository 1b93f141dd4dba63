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
