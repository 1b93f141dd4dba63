// The viewer's client of the API (api.js): the requests it sends, the id the server issued this tab, and refusals in
// the server's words.
import { answerWith, fetched } from "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, call } from "../../explorer/ui/static/api.js";
import { traceRequest } from "../../explorer/ui/static/request.js";

const request = traceRequest({ sentence: "A dog.", model: "tatoeba-en-de", ablation: [["cross", 0, 1]] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("a trace is a GET of the request's query, sent with the tab's issued id once it has one", async () => {
  sessionStorage.clear();
  answerWith({ "POST /ae/api/client": () => [200, { client: "abc.sig" }], "/ae/api/trace": () => [200, { steps: [] }] });
  await api.trace(request);
  await settle();
  await api.trace(request);
  const traces = fetched.filter((f) => f.url.startsWith("/ae/api/trace"));
  assert.equal(traces[0].url, "/ae/api/trace?sentence=A+dog.&ablation=cross.0.1&model=tatoeba-en-de");
  assert.equal(traces[0].headers["x-ae-client"], undefined); // the first goes before the id arrives: counted by address
  assert.equal(traces[1].headers["x-ae-client"], "abc.sig");
  assert.equal(fetched.filter((f) => f.url === "/ae/api/client").length, 1);
});

test("the issued id is kept for the tab: a new page load asks for none", async () => {
  sessionStorage.setItem("ae-client-issued", "kept.sig");
  answerWith({ "/ae/api/models": () => [200, { models: [] }] });
  await call("/models", { headers: { a: "b" } });
  assert.deepEqual(fetched.map((f) => [f.url, f.headers]), [["/ae/api/models", { "x-ae-client": "kept.sig", a: "b" }]]);
});

test("every call of the page goes through the one client: the tabs' and the room's, with the id and the signal", async () => {
  sessionStorage.setItem("ae-client-issued", "kept.sig");
  const signal = new AbortController().signal;
  answerWith({
    "POST /ae/api/uploads": () => [200, { upload: "u1", bytes: 3 }],
    "POST /ae/api/train": () => [200, { run: "r1" }],
    "/ae/api/positional/figures": () => [200, {}],
    "POST /ae/api/room/AB12/view": () => [200, {}],
  });
  await api.upload("a\tb", signal);
  await api.train({ corpus: "mini", seed: 0 }, signal);
  await api.positional({ positions: 8, model: "lecture-en-de" }, signal);
  await api.room("/AB12/view", { step: 1 }, "secret");
  assert.deepEqual(fetched.map((f) => f.method + " " + f.url), [
    "POST /ae/api/uploads", "POST /ae/api/train", "GET /ae/api/positional/figures?positions=8&model=lecture-en-de",
    "POST /ae/api/room/AB12/view",
  ]);
  assert.ok(fetched.every((f) => f.headers["x-ae-client"] === "kept.sig"));
  assert.deepEqual(fetched.slice(0, 3).map((f) => f.signal), [signal, signal, signal]);
  assert.equal(fetched[0].headers["content-type"], "text/tab-separated-values");
  assert.deepEqual(JSON.parse(fetched[1].body), { corpus: "mini", seed: 0 });
  assert.equal(fetched[3].headers["x-ae-lecturer"], "secret");
});

test("a refusal of any call rejects with the server's message and status", async () => {
  answerWith({ "POST /ae/api/uploads": () => [413, { error: "The file is 3 MB; at most 2 MB." }] });
  await assert.rejects(api.upload("x"), (error) => error.status === 413 && /at most 2 MB/.test(error.message));
});

test("a question is a POST of the trace request and the question, as JSON", async () => {
  answerWith({ "POST /ae/api/ask/explain": () => [200, { what: "explain" }] });
  await api.ask(request, { what: "explain", kind: "cross", layer: 0, head: 0, row: 0, column: 1 }, null);
  const body = JSON.parse(fetched[0].body);
  assert.equal(fetched[0].method, "POST");
  assert.equal(fetched[0].headers["content-type"], "application/json");
  assert.equal(body.trace.model, "tatoeba-en-de");
  assert.deepEqual(body.trace.ablation, [["cross", 0, 1]]);
  assert.equal(body.question.what, "explain");
  assert.equal(body.own_model, null);
});

test("a refusal rejects with the server's own message", async () => {
  answerWith({ "/ae/api/trace": () => [400, { error: "Temperature 9 is out of range: choose 0.05 to 5." }] });
  await assert.rejects(api.trace(request), /Temperature 9 is out of range/);
});

test("an answer that is not JSON rejects with its status", async () => {
  answerWith({ "/ae/api/trace": () => [502, "<html>Bad gateway</html>"] });
  await assert.rejects(api.trace(request), /502/);
});

test("the .npz link names the step and the tab's id in its query (a download sends no header)", () => {
  sessionStorage.setItem("ae-client-issued", "kept.sig");
  const url = new URL(api.npzUrl(request, 4), "http://x");
  assert.equal(url.pathname, "/ae/api/npz");
  assert.equal(url.searchParams.get("step"), "4");
  assert.equal(url.searchParams.get("client"), "kept.sig");
  assert.equal(url.searchParams.get("sentence"), "A dog.");
});
