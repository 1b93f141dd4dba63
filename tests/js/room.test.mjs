// Classroom mode on the page (room.js), against a scripted server: the lecturer's reload drives the room again, the
// lecturer sends its newest view only, a student's guess counts once and moves to its new token when the stream
// reconnects, a student who explores is left alone, and a refused stream ends the room on the page (not a reload's).
import { answerWith, fetched } from "./setup.mjs";
import { FakeEventSource, pageEvent } from "./fake_dom.mjs";
import { mock, test } from "node:test";
import assert from "node:assert/strict";
import { Room } from "../../explorer/ui/static/room.js";
import { toBody, traceRequest } from "../../explorer/ui/static/request.js";

const TOKENS = ["The", "dog", "sees", "</s>"];
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

// The viewer as room.js sees it: its state and store (subscribers told of each change and who made it), the trace on
// screen, and what the room asks of it (select, go, a new trace, a message).
function fakeViewer(sentence = "The dog sees.") {
  const listeners = [];
  const viewer = {
    state: { step: 2, kind: "cross", layer: 0, head: 1, view: "heatmap", lesson: null },
    trace: {
      request: traceRequest({ sentence }),
      T: 6,
      S: TOKENS.length,
      sourceTokens: TOKENS,
      weights: () => Array.from({ length: 6 }, () => [0.1, 0.6, 0.2, 0.1]), // the head looks most at "dog"
      defaultCross: () => [0, "mean"],
    },
    modelKey: "shipped",
    f: { sourceBox: document.createElement("div") },
    store: { subscribe: (listener) => listeners.push(listener) },
    said: [],
    selected: [],
    traced: [],
    change(state, source) {
      Object.assign(viewer.state, state);
      listeners.forEach((listener) => listener(viewer.state, Object.keys(state), source));
    },
    select(state, source) { viewer.selected.push({ ...state }); viewer.change(state, source); },
    go(step, source) { viewer.change({ step }, source); },
    requestTrace(request, options) { viewer.traced.push({ request, options }); },
    say(message) { viewer.said.push(message); },
    refresh() {},
  };
  return viewer;
}

function page(address, stored) {
  globalThis.location = new URL(address);
  sessionStorage.clear();
  sessionStorage.setItem("ae-client-issued", "tab.sig"); // this tab has its id: no request for one
  if (stored) sessionStorage.setItem("ae-room", JSON.stringify(stored));
  FakeEventSource.opened.length = 0;
}

const stream = () => FakeEventSource.opened.at(-1);
const posted = (path) => fetched.filter((f) => f.method === "POST" && f.url.endsWith(path)).map((f) => JSON.parse(f.body));
const roomView = (viewer, step) => ({ trace: toBody(viewer.trace.request), step, kind: "cross", layer: 1, head: 2, view: "heatmap" });
const question = (viewer, id = 1) => (
  { id, step: 3, layer: 0, head: 1, sources: TOKENS.length, trace: toBody(viewer.trace.request), answered: 0, revealed: false }
);

test("a lecturer's reload drives the room again, taking the room's view before it sends one of its own", async () => {
  page("http://127.0.0.1:7860/", { code: "ABCD", key: "k1" });
  answerWith({ "POST /ae/api/room/ABCD/view": () => [200, { following: 3 }] });
  const viewer = fakeViewer(), room = new Room(viewer);
  assert.equal(room.start(), true);
  assert.match(stream().url, /\/ae\/api\/room\/ABCD\/events\?key=k1$/); // its own page: not counted as a follower
  assert.match(room.bar.textContent, /rejoining as the lecturer/);
  viewer.change({ step: 5 }, "user"); // what the reloaded page opened at: never sent over the room's view
  assert.deepEqual(posted("/view"), []);
  stream().emit("state", { code: "ABCD", view: roomView(viewer, 4), question: null, following: 3, lecturer: true });
  await settle();
  assert.equal(viewer.state.step, 4);
  assert.ok(posted("/view").length >= 1 && posted("/view").every((view) => view.step === 4), JSON.stringify(posted("/view")));
  assert.equal(fetched.find((f) => f.url.endsWith("/view")).headers["x-ae-lecturer"], "k1");
  assert.match(room.bar.textContent, /3 following/);
  room.bar.button("Ask the class"); // the lecturer's controls are back
});

test("the lecturer sends its newest view only, one request at a time, and an unchanged view not again", async () => {
  page("http://127.0.0.1:7860/");
  const answers = [];
  globalThis.fetch = (url, init) => {
    fetched.push({ url: String(url), method: init.method, headers: init.headers, body: init.body });
    return new Promise((resolve) => answers.push(() => resolve(new Response(JSON.stringify({ following: 0 })))));
  };
  fetched.length = 0;
  const viewer = fakeViewer(), room = new Room(viewer);
  room.lead("WXYZ", "k2");
  assert.deepEqual(posted("/view").map((v) => v.step), [2]);
  for (const step of [3, 4, 5]) viewer.change({ step }, "user");
  assert.deepEqual(posted("/view").map((v) => v.step), [2]); // one at a time
  answers.shift()();
  await settle();
  await settle();
  assert.deepEqual(posted("/view").map((v) => v.step), [2, 5]); // then the newest, not 3 and 4
  answers.shift()();
  await settle();
  await settle();
  viewer.change({ step: 5 }, "user");
  assert.deepEqual(posted("/view").map((v) => v.step), [2, 5]);
});

test("a student's guess counts once, under its stream's token, and moves to the new token when the stream reconnects", async () => {
  page("http://127.0.0.1:7860/?room=abcd");
  answerWith({ "POST /ae/api/room/ABCD/answer": () => [200, { id: 1, answered: 1 }] });
  const viewer = fakeViewer(), room = new Room(viewer);
  assert.equal(room.start(), true);
  assert.match(stream().url, /\/room\/ABCD\/events$/); // a follower: no key
  const state = { code: "ABCD", view: null, question: question(viewer), following: 1, lecturer: true };
  stream().emit("state", { ...state, token: "t1" });
  assert.equal(room.answer(2), true);
  assert.equal(room.answer(1), false); // one guess a question
  await settle();
  assert.deepEqual(posted("/answer"), [{ question: 1, pick: 2, token: "t1", previous: null }]);
  assert.match(room.bar.textContent, /Your guess: “sees”/);
  stream().drop(false); // the phone lost the network; the browser reconnects by itself
  assert.match(room.bar.textContent, /reconnecting/);
  stream().emit("state", { ...state, token: "t2" });
  await settle();
  assert.deepEqual(posted("/answer").at(-1), { question: 1, pick: 2, token: "t2", previous: "t1" });
  assert.equal(posted("/answer").length, 2);
  assert.doesNotMatch(room.bar.textContent, /reconnecting/);
});

test("a refused guess is forgotten in the server's words, unless the stream reconnected while it was sent", async () => {
  page("http://127.0.0.1:7860/?room=ABCD");
  const refusal = "This page has answered question 1 already: one answer each.";
  const answers = [];
  globalThis.fetch = (url, init) => {
    fetched.push({ url: String(url), method: init.method, headers: init.headers, body: init.body });
    return new Promise((resolve) => answers.push(() => resolve(new Response(JSON.stringify({ error: refusal }), { status: 400 }))));
  };
  fetched.length = 0;
  const viewer = fakeViewer(), room = new Room(viewer);
  room.start();
  const state = { code: "ABCD", view: null, question: question(viewer), following: 1, lecturer: true };
  stream().emit("state", { ...state, token: "t1" });
  room.answer(1);
  answers.shift()();
  await settle();
  await settle();
  assert.equal(room.guess, null);
  assert.deepEqual(viewer.said, [refusal]);
  room.answer(3);
  stream().emit("state", { ...state, token: "t2" }); // reconnected while the guess was on its way: sent again
  answers.shift()(); // the first, under the old token, refused
  await settle();
  await settle();
  assert.equal(room.guess, 3);
  assert.deepEqual(viewer.said, [refusal]);
  assert.deepEqual(posted("/answer").map((a) => [a.token, a.previous]), [["t1", null], ["t1", null], ["t2", "t1"]]);
});

test("a refusal about a question gone leaves the guess of the question asked since", async () => {
  page("http://127.0.0.1:7860/?room=ABCD");
  const answers = [];
  globalThis.fetch = (url, init) => {
    fetched.push({ url: String(url), method: init.method, headers: init.headers, body: init.body });
    return new Promise((resolve) => answers.push((status, body) => resolve(new Response(JSON.stringify(body), { status }))));
  };
  fetched.length = 0;
  const viewer = fakeViewer(), room = new Room(viewer);
  room.start();
  stream().emit("state", { code: "ABCD", view: null, question: question(viewer, 1), following: 1, lecturer: true, token: "t" });
  room.answer(1); // on its way as the lecturer asks the next question
  stream().emit("question", question(viewer, 2));
  room.answer(2);
  answers.shift()(400, { error: "Room ABCD has no question 1 open." });
  answers.shift()(200, { id: 2, answered: 1 });
  await settle();
  await settle();
  assert.equal(room.guess, 2);
  assert.deepEqual(viewer.said, []);
  assert.match(room.bar.textContent, /Your guess: “sees”/);
});

test("a student who steps on their own explores on their own until they follow again", async () => {
  page("http://127.0.0.1:7860/?room=ABCD");
  answerWith({});
  const viewer = fakeViewer(), room = new Room(viewer);
  room.start();
  assert.match(room.bar.textContent, /joining the room…/); // its stream has not given it its token yet
  stream().emit("state", { code: "ABCD", view: roomView(viewer, 3), question: null, following: 1, lecturer: true, token: "t" });
  assert.equal(viewer.state.step, 3);
  assert.match(room.bar.textContent, /following the lecturer/);
  viewer.change({ step: 1 }, "user");
  assert.match(room.bar.textContent, /exploring on your own/);
  stream().emit("view", roomView(viewer, 4)); // the class moves on; this student stays where they are
  assert.equal(viewer.state.step, 1);
  room.bar.button("Follow again").click();
  assert.equal(viewer.state.step, 4);
  assert.match(room.bar.textContent, /following the lecturer/);
  stream().emit("view", { ...roomView(viewer, 2), trace: toBody(traceRequest({ sentence: "A new sentence." })) });
  assert.equal(viewer.traced.at(-1).request.sentence, "A new sentence."); // another sentence: its trace is fetched
});

test("a student's page says while the lecturer's page is away, and that it is back for a few seconds", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    page("http://127.0.0.1:7860/?room=ABCD");
    answerWith({});
    const viewer = fakeViewer(), room = new Room(viewer);
    room.start();
    stream().emit("state", { code: "ABCD", view: null, question: null, following: 1, lecturer: false, token: "t" });
    assert.match(room.bar.textContent, /the lecturer's page is away/);
    stream().emit("lecturer", { present: true });
    assert.match(room.bar.textContent, /the lecturer is back/);
    mock.timers.tick(6000);
    assert.doesNotMatch(room.bar.textContent, /the lecturer is back|away/);
    stream().emit("lecturer", { present: false });
    assert.match(room.bar.textContent, /the lecturer's page is away/);
  } finally {
    mock.timers.reset();
  }
});

test("a stream the server refuses ends the room on the page and says so; a reload's dropped stream keeps the key", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    page("http://127.0.0.1:7860/", { code: "ABCD", key: "k1" });
    answerWith({});
    let viewer = fakeViewer(), room = new Room(viewer);
    room.start();
    pageEvent("beforeunload"); // the lecturer reloads: Chromium drops the stream as the reload starts
    stream().drop(true);
    mock.timers.tick(1000);
    assert.notEqual(sessionStorage.getItem("ae-room"), null); // the page that comes back drives the room again
    assert.deepEqual(viewer.said, []);
    pageEvent("pageshow"); // it stayed after all (a download, bfcache)

    viewer = fakeViewer();
    room = new Room(viewer);
    room.start();
    stream().drop(true); // the room has ended, or the server restarted
    assert.equal(room.bar.hidden, false); // not at once: the page may turn out to be going
    mock.timers.tick(1000);
    assert.equal(sessionStorage.getItem("ae-room"), null);
    assert.equal(room.bar.hidden, true);
    assert.match(viewer.said.join(" "), /Room ABCD cannot be followed/);
  } finally {
    mock.timers.reset();
  }
});
