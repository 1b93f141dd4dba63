// A PNG's header lines wrapped to the picture's width (dom.js wrapText): the mosaic's header on a projector ran off
// the picture's right edge (issue 66 #8).
import "./setup.mjs";
import "./fake_dom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { wrapText } from "../../explorer/ui/static/dom.js";

const ctx = { measureText: (text) => ({ width: 10 * text.length }) }; // 10 px a character

test("a line wider than the picture breaks at spaces, every part within the width, no word lost", () => {
  const header = "Step 4 of 12 · model: English→German for lectures (English → German) · Attention Explorer";
  const lines = wrapText(ctx, header, 300);
  assert.ok(lines.length > 1);
  assert.ok(lines.every((line) => ctx.measureText(line).width <= 300), lines);
  assert.equal(lines.join(" "), header);
});

test("a line that fits stays one line, and a word wider than the line is broken where it must", () => {
  assert.deepEqual(wrapText(ctx, "“The dog.” → “Der Hund.”", 600), ["“The dog.” → “Der Hund.”"]);
  assert.deepEqual(wrapText(ctx, "ab Donaudampfschiff", 60), ["ab", "Donaud", "ampfsc", "hiff"]);
});
