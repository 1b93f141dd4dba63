// The one way the viewer asks a question (answers.js): asked once per trace, kept in the store by question, dropped
// when it is about a trace no longer on screen, said as {error} when refused; no server, no asking.
import { answerWith, fetched } from "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Answers, NEEDS_SERVER, keyOf } from "../../explorer/ui/static/answers.js";
import { createStore } from "../../explorer/ui/static/store.js";
import { Trace } from "../../explorer/ui/static/trace.js";

const wire = JSON.parse(readFileSync(new URL("./fixtures/trace.json", import.meta.url))).wire;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const heads = { what: "heads", method: "estimate" };
const asked = () => fetched.filter((f) => f.url.includes("/ask/"));

function setup() {
  const store = createStore({ trace: new Trace(wire) });
  const told = [];
  store.subscribe((state, changed, source) => told.push([changed, source]));
  return { store, told, answers: new Answers(store, true, () => null) };
}

test("a question is asked once; its answer goes into the store under the question", async () => {
  answerWith({ "POST /ae/api/ask/heads": () => [200, { what: "heads", method: "estimate" }] });
  const { store, told, answers } = setup();
  assert.equal(answers.get(heads), null);
  assert.equal(answers.get(heads), null); // asked already: not again
  await settle(); await settle();
  assert.equal(asked().length, 1);
  assert.deepEqual(store.get().answers[keyOf(heads)], { what: "heads", method: "estimate" });
  assert.deepEqual(answers.get(heads), { what: "heads", method: "estimate" });
  assert.deepEqual(told, [[["answers"], "answer"]]);
});

test("the question carries the trace on screen's request", async () => {
  answerWith({ "POST /ae/api/ask/heads": () => [200, { what: "heads" }] });
  setup().answers.get(heads);
  await settle();
  assert.equal(JSON.parse(asked()[0].body).trace.sentence, wire.request.sentence);
});

test("an answer about a trace no longer on screen is dropped", async () => {
  answerWith({ "POST /ae/api/ask/heads": () => [200, { what: "heads" }] });
  const { store, answers } = setup();
  answers.get(heads);
  store.set({ trace: new Trace(wire), answers: {} }, "trace");
  await settle(); await settle();
  assert.deepEqual(store.get().answers, {});
});

test("a refusal is the answer, in the server's words", async () => {
  answerWith({ "POST /ae/api/ask/heads": () => [400, { error: "The viewer asked for layer 9, which does not exist (0 to 2)." }] });
  const { answers } = setup();
  answers.get(heads);
  await settle(); await settle();
  assert.deepEqual(answers.get(heads), { what: "heads", error: "The viewer asked for layer 9, which does not exist (0 to 2)." });
  assert.equal(asked().length, 1); // kept: not asked again
});

test("a busy server's refusal is shown, then asked again at a drawing a second later", async (t) => {
  let n = 0;
  answerWith({ "POST /ae/api/ask/heads": () => (++n === 1 ? [429, { error: "This browser already has 4 requests running" }] : [200, { what: "heads" }]) });
  const { answers } = setup();
  answers.get(heads);
  await settle(); await settle();
  assert.equal(answers.get(heads).error, "This browser already has 4 requests running");
  assert.equal(asked().length, 1); // not at once: a busy server is not asked in a loop
  t.mock.method(Date, "now", () => performance.timeOrigin + performance.now() + 1500);
  assert.equal(answers.get(heads), null); // a second later: asked again
  await settle(); await settle();
  assert.deepEqual(answers.get(heads), { what: "heads" });
});

test("without a server every answer is that it needs one, and nothing is asked", () => {
  answerWith({});
  const store = createStore({ trace: new Trace(wire) });
  assert.deepEqual(new Answers(store, false, () => null).get(heads), { error: NEEDS_SERVER });
  assert.equal(fetched.length, 0);
});

test("asked again, a refusal is asked anew; an answer is kept", async () => {
  let n = 0;
  answerWith({ "POST /ae/api/ask/heads": () => (++n === 1 ? [400, { error: "busy" }] : [200, { what: "heads", n: n }]) });
  const { answers } = setup();
  answers.get(heads);
  await settle(); await settle();
  assert.equal(answers.get(heads).error, "busy");
  answers.again(heads);
  assert.equal(answers.get(heads), null); // asked anew
  await settle(); await settle();
  assert.equal(answers.get(heads).n, 2);
  answers.again(heads); // an answer stays
  assert.equal(answers.get(heads).n, 2);
});
