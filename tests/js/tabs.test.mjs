// The page's tabs beside the viewer (tabs.js and its registry), against a scripted server: each tab gets the viewer
// through its mount (never a global), its buttons' values arrive by name, every request goes through the one API
// client, and mounting a tab again ends everything the previous mount opened (its listeners, its subscription to the
// store, its training stream, a request still on its way).
import { answerWith, fetched } from "./setup.mjs";
import { FakeEventSource } from "./fake_dom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { TABS, Tabs } from "../../explorer/ui/static/tabs.js";
import { traceRequest } from "../../explorer/ui/static/request.js";

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

// The viewer as a tab sees it: its store (subscribers told of each change), the trace on screen and requestTrace.
function fakeViewer() {
  const listeners = new Set();
  const trace = (ablation) => ({
    request: traceRequest({ sentence: "A dog.", ablation }), modelKey: "tatoeba-en-de", H: 2, nLayers: () => 1,
  });
  const viewer = {
    trace: trace([]),
    traced: [],
    listeners: listeners,
    store: { subscribe: (listener) => { listeners.add(listener); return () => listeners.delete(listener); } },
    arrive(ablation) {
      viewer.trace = trace(ablation);
      listeners.forEach((listener) => listener({ trace: viewer.trace }, ["trace"], "test"));
    },
    requestTrace(request) { viewer.traced.push(request); return Promise.resolve({ outputs: ["Ein Hund."] }); },
  };
  return viewer;
}

test("the registry names each tab once, and each builds itself in the element it is given", () => {
  assert.deepEqual(TABS.map((t) => t.id), ["ablation", "positional", "upload", "train"]);
  const tabs = new Tabs(fakeViewer());
  for (const tab of TABS) {
    const element = document.createElement("div");
    tabs.mount(tab.id, element);
    assert.ok(element.children.length > 0, tab.id);
  }
  assert.throws(() => tabs.mount("nope", document.createElement("div")), /no such tab: nope/);
});

test("Train's values arrive by name, wait for the tab's mount, and send the uploaded file's id", async () => {
  sessionStorage.setItem("ae-client-issued", "kept.sig");
  answerWith({ "POST /ae/api/uploads": () => [200, { upload: "u9", bytes: 12 }], "POST /ae/api/train": () => [200, { run: "r1" }] });
  const tabs = new Tabs(fakeViewer());
  const started = tabs.act("train", "start", { corpus: "upload", preset: "tiny", minutes: 0.5, seed: 3 });
  const picker = document.createElement("div");
  tabs.mount("upload", picker);
  const input = picker.all().find((node) => node.tagName === "INPUT");
  input.files = [{ name: "pairs.tsv" }];
  input.listeners.change.forEach((handle) => handle({}));
  tabs.mount("train", document.createElement("div"));
  await started;
  await settle();
  const sent = fetched.find((f) => f.url === "/ae/api/train");
  assert.deepEqual(JSON.parse(sent.body), { corpus: "upload", upload: "u9", preset: "tiny", minutes: 0.5, seed: 3 });
  assert.equal(FakeEventSource.opened.at(-1).url, "/ae/api/train/r1/events");
  assert.match(picker.textContent, /Uploaded pairs.tsv \(12 bytes\)/);
});

test("mounting Train again closes the stream of the run the first mount followed", async () => {
  answerWith({ "POST /ae/api/train": () => [200, { run: "r2" }] });
  const tabs = new Tabs(fakeViewer());
  const first = document.createElement("div");
  tabs.mount("train", first);
  await tabs.act("train", "start", { corpus: "mini", preset: "tiny", minutes: 0.5, seed: 0 });
  const stream = FakeEventSource.opened.at(-1);
  stream.emit("state", { message: "Step 3 of 10", fraction: 0.3 });
  assert.match(first.textContent, /Step 3 of 10/);
  const second = document.createElement("div");
  tabs.mount("train", second);
  assert.equal(stream.readyState, FakeEventSource.CLOSED);
  await tabs.act("train", "stop", {}); // the buttons reach the tab's new mount, not the one that ended
  assert.match(second.textContent, /No training is running on this page/);
  assert.doesNotMatch(first.textContent, /No training is running/);
});

test("the ablation tab follows the store: a trace that arrives ticks its heads, until the tab is mounted again", () => {
  const viewer = fakeViewer();
  const tabs = new Tabs(viewer);
  const first = document.createElement("div");
  tabs.mount("ablation", first);
  const ticked = (element) => element.querySelectorAll("input:checked").map((box) => box.value);
  assert.deepEqual(ticked(first), []);
  viewer.arrive([["cross", 0, 1]]);
  assert.deepEqual(ticked(first), ["cross.0.1"]);
  assert.equal(viewer.listeners.size, 1);
  const second = document.createElement("div");
  tabs.mount("ablation", second); // the first mount's subscription and button listeners end
  assert.equal(viewer.listeners.size, 1);
  assert.deepEqual(ticked(second), ["cross.0.1"]); // the trace on screen, read through the mount's viewer
  const run = first.all().find((node) => node.tagName === "BUTTON");
  assert.deepEqual(run.listeners.click, []);
});

test("Re-translate traces the sentence on screen with the ticked heads off, beside its translation with all on", async () => {
  answerWith({ "/ae/api/translate": () => [200, { translation: "Ein Hund." }] });
  const viewer = fakeViewer();
  const element = document.createElement("div");
  new Tabs(viewer).mount("ablation", element);
  const box = element.all().find((node) => node.tagName === "INPUT" && node.value === "decoder_self.0.1");
  box.checked = true;
  element.button("Re-translate with these heads off").click();
  await settle();
  await settle();
  assert.deepEqual(viewer.traced[0].ablation, [["decoder_self", 0, 1]]);
  assert.equal(new URL(fetched[0].url, "http://x").searchParams.get("ablation"), null); // all heads on
  assert.match(element.textContent, /did not change the translation/);
});

test("Positional asks for the model on screen by name, and a newer Show ends the one on its way", async () => {
  globalThis.Plotly = { react: () => Promise.resolve() };
  answerWith({ "/ae/api/positional/figures": () => [200, { heatmap: {}, waves: {}, similarity: {} }] });
  const tabs = new Tabs(fakeViewer());
  tabs.mount("positional", document.createElement("div"));
  const values = { positions: 16, dims: 8, waves: "0, 1", presentation: true };
  const first = tabs.act("positional", "show", values);
  await settle();
  await tabs.act("positional", "show", values);
  await first;
  const query = new URL(fetched[0].url, "http://x").searchParams;
  assert.deepEqual(Object.fromEntries(query), { positions: "16", dims: "8", waves: "0, 1", presentation: "true", model: "tatoeba-en-de" });
  assert.equal(fetched[0].signal.aborted, true);
  assert.equal(fetched[1].signal.aborted, false);
});
