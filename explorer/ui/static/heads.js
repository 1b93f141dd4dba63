// heads.js: "which heads matter" for the sentence on screen: from the server's answer (explorer/interpret/
// head_importance.py) a layer x head grid per attention kind, each tile the log-probability the translation loses
// when that head alone is switched off. First the one-pass estimate (the gradient of a gate on each head's output,
// Michel et al. 2019) with a button for the exact answer; the exact answer puts the estimate beside it on one scale,
// with their rank correlation, so a student sees where a first-order estimate holds and where it fails: each kind a
// column, the estimate above the exact grid, cross-attention first, so a projector shows them without scrolling. The most
// important heads are darkest. Clicking a tile asks the viewer to switch that head off (a new trace), so the class
// sees what the translation becomes without it.
import { KINDS, KIND_TITLES, headName } from "./trace.js";
import { signedFill } from "./colors.js";
import { button, el, emit } from "./dom.js";
import { roleOf, rolesFor, rolesIn } from "./roles.js";

const EXACT_CAPTION = "Exact: each tile is how much log-probability the translation above loses when that one head is " +
  "switched off (its output zeroed) and every other head stays on; one batched pass over all heads. It measures heads " +
  "one at a time: two heads that can stand in for each other both look unimportant alone. A negative number means the " +
  "translation became more likely without that head (it stays white). Click a tile to switch that head off in the viewer.";
const ESTIMATE_CAPTION = "Estimate: a gate multiplies each head's output (1: on, 0: off), and one forward and one " +
  "backward pass give the slope of log p along every gate at once. Switching a head off moves its gate from 1 to 0, " +
  "so the slope is the drop to first order (Michel, Levy and Neubig 2019). Where log p is not a straight line in the " +
  "gate (heads that make up for each other, or matter only together) the estimate is off: press Exact to see where. " +
  "It is their gate gradient, signed and for this sentence alone; their importance score is its absolute value " +
  "averaged over a whole dataset, where a head this sentence is better without (a negative estimate) would count as important.";

// Cross-attention first: the heads a translation lecture is about, in the window even when the other kinds wrap below.
const LECTURE_ORDER = ["cross", ...KINDS.filter((kind) => kind !== "cross")];

// Draw an answer ({method, drops: {kind: [[...]]}, log_prob, translation, estimate, rho, top3}) into div; a click on a tile
// emits "ae-switch-off" {kind, layer, head}, the Exact button "ae-ask" {what: "heads", method: "exact"}.
export function draw(div, a, state) {
  const roles = rolesFor(state && state.trace, () => rolesIn(state));
  const shown = a.estimate ? [a.estimate, a.drops] : [a.drops];
  const all = shown.map((d) => Object.values(d).flat(2)).flat().filter((v) => v !== null);
  const peak = Math.max(...all.map(Math.abs), 1e-9); // one scale for both
  const grids = el("div", "ae-heads-grids");
  LECTURE_ORDER.forEach((kind) => {
    const box = el("div", "ae-heads-kind");
    box.appendChild(el("div", "ae-label", KIND_TITLES[kind]));
    const pair = el("div", "ae-heads-pair");
    if (a.estimate) {
      pair.append(labelled("estimate (one pass)", grid(kind, a.estimate[kind], peak, "estimated", roles)),
        labelled("exact (each head switched off)", grid(kind, a.drops[kind], peak, "exact", roles)));
    } else pair.appendChild(grid(kind, a.drops[kind], peak, "estimated", roles));
    box.appendChild(pair);
    grids.appendChild(box);
  });
  const title = "Which heads matter for “" + a.translation + "” (log p = " + a.log_prob.toFixed(2) + ")" +
    (a.method === "exact" ? " · estimate against exact: " + agreement(a) : " · estimated in one pass");
  const parts = [el("div", "ae-panel-title", title), grids];
  if (a.method === "estimate") {
    parts.push(button("Exact: switch each head off", "Ask for the exact drops (one pass per head, batched), shown beside this estimate",
      () => emit(div, "ae-ask", { what: "heads", method: "exact" }), "ae-heads-exact"));
  }
  parts.push(el("div", "ae-caption", a.method === "exact" ? EXACT_CAPTION + " " + ESTIMATE_CAPTION : ESTIMATE_CAPTION));
  div.replaceChildren(...parts);
}

// How far the estimate agrees with the exact drops: the rank correlation over every head, and how many of the
// three heads that matter most it names (the ones a lecture points at).
export function agreement(a) {
  const rho = "Spearman ρ = " + (a.rho === null ? "–" : a.rho.toFixed(2));
  return a.top3 === null || a.top3 === undefined ? rho : rho + ", top 3 shared: " + a.top3 + " of 3";
}

function labelled(text, table) {
  const box = el("div", "ae-heads-one");
  box.append(el("div", "ae-heads-method", text), table);
  return box;
}

// One kind's layer x head grid of `drops`, shaded on the scale `peak`; `word` says how the tile's number was found;
// each tile names its head's role under the number (Voita et al. 2019 labelled the heads that matter).
function grid(kind, drops, peak, word, roles) {
  const best = Math.max(...drops.flat().filter((v) => v !== null));
  const table = el("table", "ae-heads-grid");
  table.dataset.kind = kind;
  table.dataset.method = word === "exact" ? "exact" : "estimate";
  const header = el("tr");
  header.appendChild(el("th", "", ""));
  drops[0].forEach((_, h) => header.appendChild(el("th", "", "H" + h)));
  table.appendChild(header);
  drops.forEach((row, layer) => {
    const tr = el("tr");
    tr.appendChild(el("th", "", "L" + layer));
    row.forEach((drop, head) => {
      if (drop === null) { // switched off already in this trace
        const off = el("td", "ae-off", "off");
        off.title = KIND_TITLES[kind] + ", " + headName(layer, head) + ": switched off in this trace";
        return tr.appendChild(off);
      }
      const td = el("td", drop === best ? "ae-top" : "", drop.toFixed(2));
      const role = roleOf(roles, kind, layer, head);
      if (role && role.short) td.appendChild(el("span", "ae-role", role.short));
      const share = Math.max(0, drop) / peak; // a head whose loss helps the translation stays white
      td.style.background = signedFill(share, 1);
      td.style.color = share > 0.55 ? "white" : "#1f2937";
      const change = drop >= 0 ? "loses " + drop.toFixed(3) : "gains " + (-drop).toFixed(3);
      td.title = KIND_TITLES[kind] + ", " + headName(layer, head) + ": the translation " + change +
        " log-probability without it (" + word + "; click to switch it off)" + (role ? ". Its role: " + role.says : "");
      td.dataset.layer = layer;
      td.dataset.head = head;
      td.addEventListener("click", () => emit(td, "ae-switch-off", { kind: kind, layer: layer, head: head }));
      tr.appendChild(td);
    });
    table.appendChild(tr);
  });
  return table;
}

// The panel, as panels.js registers it: the one-pass estimate first and at once; the exact answer when asked (its
// button asks again with {method: "exact"}).
export const PANEL = {
  what: "heads",
  button: ["Heads that matter", "How much the translation loses with each head off alone: estimated in one pass, exact on request (asks the server)"],
  question(trace, state, cell, extra) {
    const method = (extra && extra.method) || "estimate";
    return {
      question: { what: "heads", method: method },
      waiting: method === "exact" ? "Switching each head off in turn…" : "Estimating every head in one pass…",
    };
  },
  draw: draw,
};
