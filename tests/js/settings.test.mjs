// What the server tells the browser code (settings.js): read once, frozen; the models served to everyone.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_MODEL, SETTINGS, isShipped } from "../../explorer/ui/static/settings.js";

test("the settings are the page's, frozen", () => {
  assert.equal(SETTINGS.API, "/ae/api");
  assert.ok(Object.isFrozen(SETTINGS));
});

test("the default model is the first one served", () => {
  assert.equal(DEFAULT_MODEL, "lecture-en-de");
});

test("a served model, the default's alias and no key are shipped; a trained model's key is not", () => {
  assert.equal(isShipped("tatoeba-en-de"), true);
  assert.equal(isShipped("shipped"), true);
  assert.equal(isShipped(""), true);
  assert.equal(isShipped("a1b2c3"), false);
});
