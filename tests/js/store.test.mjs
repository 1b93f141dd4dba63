// The view state's store (store.js): merged changes, the owner's clamp, and who is told what changed.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createStore } from "../../explorer/ui/static/store.js";

const opening = { step: 0, kind: "cross", layer: 0, head: 0, view: "heatmap", panel: null, lesson: null };

test("the state is the initial one, frozen", () => {
  const store = createStore(opening);
  assert.deepEqual(store.get(), opening);
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
