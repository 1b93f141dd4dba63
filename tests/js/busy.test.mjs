// busy.js: aria-busy says whether anything the viewer draws or asked for is still pending.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Busy } from "../../explorer/ui/static/busy.js";

const element = () => ({ attrs: {}, setAttribute(name, value) { this.attrs[name] = value; } });

test("busy until every hold is released, each release counted once", () => {
  const root = element(), busy = new Busy(root);
  const first = busy.hold(), second = busy.hold();
  assert.equal(root.attrs["aria-busy"], "true");
  first();
  first(); // again: nothing, the second still holds
  assert.equal(root.attrs["aria-busy"], "true");
  second();
  assert.equal(root.attrs["aria-busy"], "false");
});

test("busy while a promise is pending, even when a later one settles first", async () => {
  const root = element(), busy = new Busy(root);
  let finish;
  const slow = busy.during(new Promise((resolve) => { finish = resolve; })); // a link's trace on its way
  await busy.during(Promise.resolve("drawn")); // the opening trace drawn meanwhile
  assert.equal(root.attrs["aria-busy"], "true");
  finish("shown");
  assert.equal(await slow, "shown");
  await Promise.resolve();
  assert.equal(root.attrs["aria-busy"], "false");
});

test("a refused promise releases too", async () => {
  const root = element(), busy = new Busy(root);
  await assert.rejects(busy.during(Promise.reject(new Error("refused"))));
  await Promise.resolve();
  assert.equal(root.attrs["aria-busy"], "false");
});
