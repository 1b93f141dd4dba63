// Deep links (link.js): the address carries the request and the place; opening it reads them back.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { linkUrl, placeUrl, readLink, requestOfLink } from "../../explorer/ui/static/link.js";
import { traceRequest } from "../../explorer/ui/static/request.js";

const at = (search) => { globalThis.location = new URL("http://127.0.0.1:7860/" + search); };
const state = { step: 3, kind: "cross", layer: 1, head: "mean", view: "heatmap", lesson: null };

test("a link names the request and the place; the heatmap and no lesson are left out", () => {
  at("?sentence=old");
  const url = new URL(linkUrl(traceRequest({ sentence: "A dog." }), state));
  assert.equal(url.origin + url.pathname, "http://127.0.0.1:7860/");
  assert.equal(url.searchParams.get("sentence"), "A dog.");
  assert.deepEqual(["step", "kind", "layer", "head"].map((n) => url.searchParams.get(n)), ["3", "cross", "1", "mean"]);
  assert.equal(url.searchParams.has("view"), false);
  assert.equal(url.searchParams.has("lesson"), false);
});

test("a link names a view other than the heatmap and the lesson's stop", () => {
  at("");
  const url = new URL(linkUrl(traceRequest({ sentence: "A dog." }), Object.assign({}, state, { view: "mask", lesson: 4 })));
  assert.equal(url.searchParams.get("view"), "mask");
  assert.equal(url.searchParams.get("lesson"), "4");
});

test("the address bar keeps the room being followed; a shared link does not", () => {
  at("?room=ABCD");
  const request = traceRequest({ sentence: "A dog." });
  assert.equal(new URL(placeUrl(request, state)).searchParams.get("room"), "ABCD");
  assert.equal(new URL(linkUrl(request, state)).searchParams.has("room"), false);
});

test("opening a link reads the place back, and names what is not a number where a number goes", () => {
  at("?sentence=A+dog.&step=4&layer=-3&head=2&kind=cross&view=mask&lesson=x");
  const link = readLink();
  assert.equal(link.sentence, "A dog.");
  assert.deepEqual(link.view, { step: 4, head: 2, kind: "cross", view: "mask" });
  assert.deepEqual(link.unread, ["layer=-3", "lesson=x"]);
});

test("a head that is not a number is named as it is (mean, all, rollout)", () => {
  at("?sentence=A&head=rollout");
  assert.equal(readLink().view.head, "rollout");
});

test("an address without a sentence or a step is no link", () => {
  at("?room=ABCD");
  assert.equal(readLink(), null);
});

test("the request of the address is read with the request's own names", () => {
  at("?sentence=A+dog.&strategy=beam&beam_size=3&model=tatoeba-en-de");
  const request = requestOfLink();
  assert.equal(request.strategy, "beam");
  assert.equal(request.beam_size, "3");
  assert.equal(request.model, "tatoeba-en-de");
});
