// Head roles in the browser (roles.js): a head's role read from the server's answer, its chip, and nothing while the
// answer is not there.
import "./setup.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ROLES_QUESTION, SHORT, roleOf, rolesIn } from "../../explorer/ui/static/roles.js";
import { keyOf } from "../../explorer/ui/static/answers.js";

const answer = {
  what: "roles", probe: 265,
  heads: [
    { kind: "encoder_self", layer: 1, head: 3, role: "previous token", says: "previous token: 0.58 of the mass on the token before", scores: {} },
    { kind: "cross", layer: 0, head: 0, role: null, says: "unlabelled: no role's rule holds on the probe set", scores: {} },
  ],
};

test("a head's role is the server's, with its chip and its words", () => {
  assert.deepEqual(roleOf(answer, "encoder_self", 1, 3), { role: "previous token", says: answer.heads[0].says, short: "prev" });
  assert.deepEqual(roleOf(answer, "cross", 0, 0), { role: null, says: answer.heads[1].says, short: null });
  assert.equal(roleOf(answer, "cross", 5, 0), null);
  assert.equal(roleOf(null, "cross", 0, 0), null);
});

test("every role the server names has a chip", () => {
  for (const role of ["previous token", "self", "next token", "positional", "rare word", "end-of-sentence sink", "punctuation", "broad", "alignment"]) {
    assert.ok(SHORT[role], role);
  }
});

test("the answer is read from the store's answers, and a refusal is no answer", () => {
  assert.equal(rolesIn({ answers: { [keyOf(ROLES_QUESTION)]: answer } }), answer);
  assert.equal(rolesIn({ answers: { [keyOf(ROLES_QUESTION)]: { error: "busy" } } }), null);
  assert.equal(rolesIn({ answers: {} }), null);
});
