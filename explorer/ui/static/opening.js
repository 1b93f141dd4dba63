// opening.js: where a new trace opens, and what of a deep link it could not take. The page's first trace opens
// OPENING_STEP tokens in at the model's best-aligning head; a link's trace at the link's place (a link that names its
// sentence opens only with its own decode, not the page's opening trace of that sentence with other options or
// another model); a trace with tokens forced on the same sentence at the forced step; another sentence at step 0; the
// same sentence from another model (`keepView`: a training step) where it was. Pure functions, tested in Node.
import { KINDS } from "./trace.js";
import { VIEW_STATE } from "./store.js";

export const OPENING_STEP = 3;

// What a new `trace` changes in the state (after `previous`, the trace on screen or null; `pending`: the place a link
// or an action asked for, {sentence, view, own}, or null; `opts`: {keepView, link}), and the view of the link it opens
// at (or null: then the pending place waits for its own trace).
export function openingOf(trace, previous, pending, opts) {
  // the answers a trace brings (the page's opening trace: what beam search writes) count as asked; Compare two asks
  // again about it
  const change = { trace: trace, answers: Object.assign({}, trace.wire.answers), panel: null, panelContent: null };
  const best = trace.model.best_head;
  if (!previous && best) Object.assign(change, { kind: best.kind, layer: best.layer, head: best.head });
  const request = trace.request;
  if (pending && (!pending.own || opts.link) && (pending.sentence === null || pending.sentence === request.sentence)) {
    const view = Object.fromEntries(Object.entries(pending.view).filter(([name]) => VIEW_STATE.includes(name)));
    return { change: Object.assign(change, view), link: view };
  }
  if (!previous) change.step = Math.min(OPENING_STEP, trace.T);
  else if (!opts.keepView) {
    const forced = request.forced_ids.length;
    change.step = forced && previous.request.sentence === request.sentence ? forced : 0;
  }
  return { change: change, link: null };
}

// The values of `link` the state `got` did not take, named with what this sentence and model have (`unread`: the
// values that were not numbers where numbers go; `views`: the registered views' ids). The lesson's stop is the
// lesson's own.
export function unusedOfLink(link, unread, got, trace, views) {
  const ranges = { step: "0–" + trace.T, layer: "0–" + (trace.nLayers(got.kind) - 1), head: "0–" + (trace.H - 1) + ", mean, all",
    kind: KINDS.join(", "), view: views.join(", ") };
  const unused = unread.map((item) => item + " (not a number)");
  for (const name of Object.keys(ranges)) {
    if (link[name] !== undefined && link[name] !== got[name]) unused.push(name + "=" + String(link[name]).slice(0, 40) + " (this page has " + ranges[name] + ")");
  }
  return unused;
}
