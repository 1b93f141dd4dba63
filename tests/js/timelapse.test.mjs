// The training time-lapse's Play (timelapse.js) against a scripted server: it shows each recorded step in turn and
// ends on the final model; Pause, a step chosen by hand or another sentence stops it where it is.
import { answerWith, fetched } from "./setup.mjs";
import "./fake_dom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { TimeLapse } from "../../explorer/ui/static/timelapse.js";
import { traceRequest } from "../../explorer/ui/static/request.js";

const SENTENCE = "The model predicts the next word.";
const RECORD = { sentences: [SENTENCE], steps: [0, 25, 200, 2407] };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

// The viewer as the time-lapse sees it: the trace on screen, and show(), which draws a promised trace and tells the
// companion (loading) as viewer.js does. `drawn` lists the training steps drawn, in order.
function fakeViewer() {
  const viewer = {
    online: true,
    trace: { request: traceRequest({ sentence: SENTENCE }), modelKey: "shipped" },
    drawn: [],
    explore() {},
    show(wire, options) {
      return Promise.resolve(wire).then((got) => {
        viewer.drawn.push(got.step);
        viewer.timelapse.loading(viewer.trace, options);
        return got;
      });
    },
  };
  viewer.timelapse = new TimeLapse(viewer, RECORD);
  viewer.timelapse.pace = 0;
  viewer.timelapse.update();
  return viewer;
}

function serve() {
  const traces = RECORD.steps.map((step) => ({ step }));
  answerWith({ "/ae/api/timelapse": () => [200, { sentence: SENTENCE, steps: RECORD.steps, traces }] });
}

test("Play shows every recorded step in turn and ends on the final model, asking the server once", async () => {
  serve();
  const v = fakeViewer(), t = v.timelapse;
  assert.equal(t.play.textContent, "▶ Play training");
  const played = t.togglePlay();
  assert.equal(t.play.textContent, "⏸ Pause training");
  await played;
  assert.deepEqual(v.drawn, [0, 25, 200, 2407]);
  assert.equal(t.shown, null); // the final model
  assert.equal(t.note.textContent, "");
  assert.equal(t.play.textContent, "▶ Play training");
  assert.equal(fetched.filter((f) => f.url.includes("/timelapse")).length, 1);
});

test("Pause stops where it is, and Play goes on from the step shown", async () => {
  serve();
  const v = fakeViewer(), t = v.timelapse;
  t.pace = 20;
  const played = t.togglePlay();
  while (v.drawn.length < 2) await settle();
  t.togglePlay(); // Pause
  await played;
  assert.deepEqual(v.drawn, [0, 25]);
  assert.equal(t.note.textContent, "The model after 25 of 2407 training steps.");
  t.pace = 0;
  await t.togglePlay();
  assert.deepEqual(v.drawn, [0, 25, 200, 2407]);
});

test("a step chosen by hand or another sentence ends the playing", async () => {
  serve();
  const v = fakeViewer(), t = v.timelapse;
  t.pace = 20;
  let played = t.togglePlay();
  while (v.drawn.length < 1) await settle();
  t.select.value = "2";
  t.select.listeners.change.forEach((handle) => handle());
  await played;
  await settle();
  assert.deepEqual(v.drawn, [0, 200]); // the step chosen, and nothing played after it
  assert.equal(t.play.textContent, "▶ Play training");

  played = t.togglePlay(); // on from step 200: the final model next, unless another sentence comes first
  v.trace = { request: traceRequest({ sentence: "Another sentence." }), modelKey: "shipped" };
  t.loading(v.trace, {});
  await played;
  assert.equal(t.playing, null);
  assert.equal(t.play.disabled, true); // not recorded: nothing to play
  assert.match(t.note.textContent, /Only the Translate tab's examples/);
});
