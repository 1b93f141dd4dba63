// The fixed colours of every view (colors.js): one 0..1 Viridis scale, as Plotly draws it, for canvases and charts.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { COLORS, HEAD_COLORS, LUT, headColor, signedFill, weightColor } from "../../explorer/ui/static/colors.js";

const rgb = (hex) => "rgb(" + [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(",") + ")";

test("the canvases' scale has 256 colours, from the scale's first stop to its last", () => {
  assert.equal(LUT.length, 256);
  assert.equal(LUT[0], rgb(COLORS.scale[0][1]));
  assert.equal(LUT[255], rgb(COLORS.scale[COLORS.scale.length - 1][1]));
});

test("the canvases' colour at a stop is the stop's own (as Plotly interpolates)", () => {
  const middle = COLORS.scale.find(([at]) => at === 0.502);
  assert.equal(weightColor(0.502), rgb(middle[1]));
});

test("a weight outside 0..1 takes the end of the scale", () => {
  assert.equal(weightColor(-0.5), LUT[0]);
  assert.equal(weightColor(7), LUT[255]);
});

test("the scale's stops rise from 0 to 1", () => {
  const stops = COLORS.scale.map(([at]) => at);
  assert.equal(stops[0], 0);
  assert.equal(stops.at(-1), 1);
  stops.slice(1).forEach((at, i) => assert.ok(at > stops[i]));
});

test("a signed value is vermillion when positive, blue when negative, as opaque as its share of the peak", () => {
  assert.equal(signedFill(0.5, 1), "rgba(213, 94, 0, 0.500)");
  assert.equal(signedFill(-2, 1), "rgba(0, 114, 178, 1.000)");
  assert.equal(signedFill(0, 0), "rgba(213, 94, 0, 0.000)");
});

test("more heads than colours reuse them", () => {
  assert.equal(headColor(0), HEAD_COLORS[0]);
  assert.equal(headColor(HEAD_COLORS.length + 2), HEAD_COLORS[2]);
});
