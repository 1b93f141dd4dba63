// The view state's store (store.js): merged changes, the owner's clamp, and who is told what changed.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { clampToTrace, createStore } from "../../explorer/ui/static/store.js";
import { Trace } from "../../explorer/ui/static/trace.js";
import { readFileSync } from "node:fs";

const opening = { step: 0, kind: "cross", layer: 0, head: 0, view: "heatmap", panel: null, lesson: null };

test("the state is the initial one, frozen, with nothing from the server yet", () => {
  const store = createStore(opening);
  assert.deepEqual(store.get(), Object.assign({ trace: null, compare: null, answers: {}, panelContent: null }, opening));
  assert.ok(Object.isFrozen(store.get()));
});

test("a change is merged into the state, and the subscribers hear which fields changed and from whom", () => {
  const store = createStore(opening);
  const heard = [];
  store.subscribe((state, changed, source) => heard.push([state.step, state.layer, changed, source]));
  store.set({ step: 3, layer: 1 }, "key");
  assert.deepEqual(heard, [[3, 1, ["step", "layer"], "key"]]);
  assert.equal(store.get().kind, "cross");
});

test("a change that changes nothing tells nobody, unless forced (a new trace under the same state)", () => {
  const store = createStore(opening);
  let told = 0;
  store.subscribe(() => told++);
  store.set({ step: 0 }, "key");
  assert.equal(told, 0);
  store.set({}, "trace", true);
  assert.equal(told, 1);
});

test("the owner's clamp decides the state that is kept and told", () => {
  const store = createStore(opening, (s) => Object.assign(s, { step: Math.min(s.step, 5) }));
  const heard = [];
  store.subscribe((state) => heard.push(state.step));
  store.set({ step: 99 }, "link");
  assert.equal(store.get().step, 5);
  assert.deepEqual(heard, [5]);
});

test("a change the clamp undoes changes nothing", () => {
  const store = createStore(Object.assign({}, opening, { step: 5 }), (s) => Object.assign(s, { step: Math.min(s.step, 5) }));
  let told = 0;
  store.subscribe(() => told++);
  store.set({ step: 6 }, "key");
  assert.equal(told, 0);
});

test("an unsubscribed listener hears nothing more", () => {
  const store = createStore(opening);
  let told = 0;
  const leave = store.subscribe(() => told++);
  store.set({ step: 1 }, "key");
  leave();
  store.set({ step: 2 }, "key");
  assert.equal(told, 1);
});

test("a clamp that names no change of a view field keeps the state as it was", () => {
  const store = createStore(opening, (s) => Object.assign(s, { kind: ["cross", "encoder_self"].includes(s.kind) ? s.kind : "cross" }));
  const before = store.get();
  assert.equal(store.set({ kind: "no such kind" }, "link"), before);
});

test("set returns the state now held", () => {
  const store = createStore(opening);
  assert.equal(store.set({ view: "mask" }, "click").view, "mask");
});

const trace = new Trace(JSON.parse(readFileSync(new URL("./fixtures/trace.json", import.meta.url))).wire);
const clamp = (s, extra) => clampToTrace(Object.assign({}, opening, s), trace, ["heatmap", "mask"], ["explain"], extra);

test("a trace holds the step, the layer and the head in its range", () => {
  assert.equal(clamp({ step: 99 }).step, trace.T);
  assert.equal(clamp({ step: -4 }).step, 0);
  assert.equal(clamp({ layer: 7 }).layer, trace.nLayers("cross") - 1);
  assert.equal(clamp({ head: trace.H }).head, "mean");
  assert.equal(clamp({ head: 1 }).head, 1);
});

test("an unknown kind, view or panel takes the default; the rollout only where the kind has one", () => {
  const s = clamp({ kind: "sideways", view: "nope", panel: "nope" });
  assert.deepEqual([s.kind, s.view, s.panel], ["cross", "heatmap", null]);
  assert.equal(clamp({ kind: "decoder_self", head: "rollout" }).head, "mean");
  assert.equal(clamp({ kind: "encoder_self", head: "rollout" }).head, "rollout");
  assert.equal(clamp({ head: "all" }).head, "all");
});

test("a value typed in a link is read as a number; the companions clamp their own fields", () => {
  assert.equal(clamp({ step: "2" }).step, 2);
  const s = clamp({ lesson: 40 }, [(out) => { out.lesson = Math.min(out.lesson, 12); }]);
  assert.equal(s.lesson, 12);
});

test("without a trace the state is as given", () => {
  const s = Object.assign({}, opening, { step: 99 });
  assert.equal(clampToTrace(s, null, ["heatmap"], [], []), s);
});

test("a subscriber that throws is reported, and the others still hear of the change", () => {
  const reported = [], heard = [];
  const store = createStore({ step: 0 }, null, (error) => reported.push(error.message));
  store.subscribe(() => { throw new Error("a view's bug"); });
  store.subscribe((state) => heard.push(state.step));
  store.set({ step: 1 }, "key");
  assert.deepEqual(reported, ["a view's bug"]);
  assert.deepEqual(heard, [1]);
});
