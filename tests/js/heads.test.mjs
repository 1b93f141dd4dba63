// Heads that matter (heads.js): the line that says how far the one-pass estimate agrees with the exact drops.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agreement } from "../../explorer/ui/static/heads.js";

test("the exact answer's title gives the rank correlation and the top-3 overlap beside it", () => {
  assert.equal(agreement({ rho: 0.8567, top3: 2 }), "Spearman ρ = 0.86, top 3 shared: 2 of 3");
  assert.equal(agreement({ rho: null, top3: 0 }), "Spearman ρ = –, top 3 shared: 0 of 3");
});

test("an answer from a server without the overlap still shows ρ", () => {
  assert.equal(agreement({ rho: 0.5, top3: undefined }), "Spearman ρ = 0.50");
});
