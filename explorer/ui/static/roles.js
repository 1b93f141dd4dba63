// roles.js: what each head does, as the server measured it on a fixed probe set (explorer/app/questions/roles.py,
// explorer/interpret/head_roles.py). A served model whose checkpoint stores its roles brings them with the page (its
// entry in SETTINGS.MODELS): no request. Another model's are its question to the server, asked with a trace and
// answered from the server's cache after the first. The head buttons, the All heads tiles, Heads that matter and the lesson name a head's role with
// these helpers; the numbers and the rule are the server's ("previous token: 0.83 of the mass on the token before").
import { keyOf } from "./answers.js";
import { DEFAULT_MODEL, SETTINGS } from "./settings.js";

export const ROLES_QUESTION = { what: "roles" };
// A role as a chip says it, where a head's number has little room beside it.
export const SHORT = {
  "previous token": "prev", self: "self", "next token": "next", positional: "pos", "rare word": "rare",
  "end-of-sentence sink": "sink", punctuation: "punct", broad: "broad", alignment: "align",
};

// The roles of `trace`'s model: the page's, where its checkpoint stores them; else `ask`'s answer (null while asked,
// {error} when refused), or null without `ask`.
export function rolesFor(trace, ask) {
  const key = !trace || trace.modelKey === "shipped" ? DEFAULT_MODEL : trace.modelKey;
  const served = SETTINGS.MODELS.find((m) => m.key === key);
  if (served && served.roles) return served.roles;
  return ask ? ask(ROLES_QUESTION) : null;
}

// The roles answer in the store's answers (null while asked, or when refused).
export function rolesIn(state) {
  const answer = state && state.answers ? state.answers[keyOf(ROLES_QUESTION)] : null;
  return answer && !answer.error ? answer : null;
}

// One head's role: {role, says, short} (role and short null when unlabelled), or null when the answer is not there.
export function roleOf(answer, kind, layer, head) {
  if (!answer || !answer.heads) return null;
  const found = answer.heads.find((h) => h.kind === kind && h.layer === layer && h.head === head);
  if (!found) return null;
  return { role: found.role, says: found.says, short: found.role ? SHORT[found.role] || found.role : null };
}
