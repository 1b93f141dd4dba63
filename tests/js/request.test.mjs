// The trace request in the browser (request.js): its fields are the server's, and the query, the JSON body, a link
// and the form are written from them alone.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { FIELDS, formFromLink, fromForm, fromQuery, sameDecode, toBody, toQuery, traceRequest } from "../../explorer/ui/static/request.js";
import { SETTINGS } from "../../explorer/ui/static/settings.js";

test("the request's fields are the server's, in its order, the sentence first", () => {
  assert.deepEqual(FIELDS, SETTINGS.REQUEST);
  assert.equal(Object.keys(FIELDS)[0], "sentence");
  assert.ok("model" in FIELDS && "forced_ids" in FIELDS && "ablation" in FIELDS);
});

test("a request from some fields has every field, the others at their defaults", () => {
  const request = traceRequest({ sentence: "A dog.", strategy: "beam" });
  assert.deepEqual(Object.keys(request), Object.keys(FIELDS));
  assert.equal(request.strategy, "beam");
  assert.equal(request.beam_size, FIELDS.beam_size);
  assert.deepEqual(request.forced_ids, []);
  assert.equal(request.model, "shipped");
});

test("a query leaves out what is at its default, and the default model", () => {
  const query = toQuery(traceRequest({ sentence: "A dog.", model: "lecture-en-de" }));
  assert.equal(query.toString(), "sentence=A+dog.");
});

test("a query names each option that is not at its default, and a model that is not the default", () => {
  const query = toQuery(traceRequest({ sentence: "A dog.", strategy: "sample", temperature: 0.8, model: "tatoeba-en-de" }));
  assert.equal(query.get("strategy"), "sample");
  assert.equal(query.get("temperature"), "0.8");
  assert.equal(query.get("model"), "tatoeba-en-de");
  assert.equal(query.has("seed"), false);
});

test("a list is one parameter per item, a head written kind.layer.head", () => {
  const query = toQuery(traceRequest({ sentence: "A dog.", forced_ids: [5, 9], ablation: [["cross", 2, 1], ["encoder_self", 0, 3]] }));
  assert.deepEqual(query.getAll("forced_ids"), ["5", "9"]);
  assert.deepEqual(query.getAll("ablation"), ["cross.2.1", "encoder_self.0.3"]);
});

test("a number typed as text and the same number are one decode", () => {
  assert.ok(sameDecode(traceRequest({ sentence: "A dog.", temperature: "1" }), traceRequest({ sentence: "A dog." })));
  assert.ok(!sameDecode(traceRequest({ sentence: "A dog.", seed: 1 }), traceRequest({ sentence: "A dog." })));
  assert.ok(sameDecode(traceRequest({ sentence: "A dog.", model: "shipped" }), traceRequest({ sentence: "A dog.", model: "lecture-en-de" })));
});

test("a query read back is the request written (a link round trip)", () => {
  const request = traceRequest({ sentence: "The cat sleeps.", strategy: "sample", seed: 3, forced_ids: [5, 6], ablation: [["cross", 1, 2]], model: "tatoeba-en-de" });
  const back = fromQuery(toQuery(request));
  assert.ok(sameDecode(back, request));
  assert.deepEqual(back.ablation, [["cross", 1, 2]]);
  assert.deepEqual(back.forced_ids, [5, 6]);
});

test("an older link's names still open: s=, forced=5,9, ablate=cross.2.1,...", () => {
  const back = fromQuery(new URLSearchParams("s=A+dog.&forced=5,9&ablate=cross.2.1,decoder_self.0.0"));
  assert.equal(back.sentence, "A dog.");
  assert.deepEqual(back.forced_ids, [5, 9]);
  assert.deepEqual(back.ablation, [["cross", 2, 1], ["decoder_self", 0, 0]]);
});

test("the JSON body has every field, lists as lists", () => {
  const body = toBody({ sentence: "A dog.", ablation: [["cross", 0, 1]] });
  assert.deepEqual(Object.keys(body), Object.keys(FIELDS));
  assert.deepEqual(body.ablation, [["cross", 0, 1]]);
  assert.equal(JSON.parse(JSON.stringify(body)).model, "shipped");
});

test("the form's values become a request with the model chosen and the heads kept off", () => {
  const form = { sentence: "A dog.", strategy: "sample", temperature: 0.5, model: "ignored", use_own: false };
  const request = fromForm(form, "tatoeba-en-de", [["cross", 0, 0]]);
  assert.equal(request.model, "tatoeba-en-de");
  assert.equal(request.temperature, 0.5);
  assert.deepEqual(request.ablation, [["cross", 0, 0]]);
  assert.deepEqual(request.forced_ids, []);
  assert.equal("use_own" in request, false);
});

test("a link fills the form by name: numbers as numbers, a bad number left as it was", () => {
  const form = { sentence: "old", strategy: "greedy", temperature: 1, seed: 0, model: "lecture-en-de", use_own: true };
  const filled = formFromLink(form, new URLSearchParams("sentence=New+one.&strategy=sample&temperature=0.7&seed=x&model=tatoeba-en-de"));
  assert.deepEqual(filled, { sentence: "New one.", strategy: "sample", temperature: 0.7, seed: 0, model: "tatoeba-en-de", use_own: false });
});

test("a link to a model trained elsewhere fills the form with the default model; no link leaves the form", () => {
  const form = { sentence: "old", model: "tatoeba-en-de", use_own: false };
  assert.equal(formFromLink(form, new URLSearchParams("sentence=A&model=a1b2c3")).model, "lecture-en-de");
  assert.equal(formFromLink(form, new URLSearchParams("step=3")), form);
});
