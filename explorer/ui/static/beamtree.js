// beamtree.js: beam search drawn as a tree, from the server's answer (explorer/app/questions/beam_tree.py). Each node is a
// hypothesis the search looked at: its token and the path's cumulative log-probability; kept beams dark,
// pruned candidates grey, finished ones (</s>) outlined green, the length-penalized winner's path in
// vermillion. Columns are target positions. Each hypothesis is also a button over its box (named by its step, token,
// log-probability and fate: reachable by Tab, read by a screen reader); pressing it loads the trace of that
// hypothesis (its tokens forced, the model greedy after them), so its attention can be stepped through.
import { COLORS } from "./colors.js";
import { FAMILY, el, emit, fontSize, sizeCanvas } from "./dom.js";

const COL = 96, ROW = 34, PAD = 16, HALF = 30; // column and row pitch, margin, half a node's width

const BEAM_CAPTION = "Every hypothesis beam search considered: at each position the best 2 × beam size continuations " +
  "of the live beams are looked at, the best beam-size non-final ones kept (dark), the rest pruned (grey); a beam " +
  "that chooses </s> is finished (green). The winner (vermillion) has the best log-probability divided by the " +
  "length penalty ((5 + length) / 6)^α. Click a node to step through that hypothesis.";

// Path of token ids from the root to node `id` (the root <s> excluded).
export function beamPath(nodes, id) {
  const ids = [];
  for (let n = nodes[id]; n.parent !== -1; n = nodes[n.parent]) ids.push(n.token_id);
  return ids.reverse();
}

// Draw an answer ({nodes, winner, beam_size, alpha, translation}); pressing a node's button emits "ae-follow" with
// the token ids of its path.
export function draw(div, a) {
  const nodes = a.nodes;
  // the steps' pitch: as wide as the panel allows, down to a node's width and a gap (then it scrolls sideways)
  const depth = Math.max(...nodes.map((n) => n.step)) + 2;
  const room = (div.clientWidth || 700) - PAD * 2 - HALF * 2;
  const col = Math.max(2 * HALF + 10, Math.min(COL, Math.floor(room / depth)));
  const byStep = {};
  nodes.forEach((n) => { (byStep[n.step] = byStep[n.step] || []).push(n); });
  const place = {};
  Object.values(byStep).forEach((column) => {
    column.sort((p, q) => q.log_prob - p.log_prob); // best on top
    column.forEach((n, r) => { place[n.id] = [PAD + HALF + (n.step + 1) * col, PAD + r * ROW]; });
  });
  const winnerPath = new Set();
  for (let n = nodes[a.winner]; n; n = n.parent === -1 ? null : nodes[n.parent]) winnerPath.add(n.id);
  const rows = Math.max(...Object.values(byStep).map((c) => c.length));
  const width = PAD * 2 + HALF * 2 + depth * col, height = PAD * 2 + rows * ROW;
  const canvas = document.createElement("canvas");
  canvas.setAttribute("role", "img");
  const ctx = sizeCanvas(canvas, width, height);
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, width, height);
  const font = Math.min(fontSize(), 14);
  nodes.forEach((n) => { // edges first, nodes on top
    if (n.parent === -1) return;
    const [x0, y0] = place[n.parent], [x1, y1] = place[n.id];
    ctx.strokeStyle = winnerPath.has(n.id) ? COLORS.chosen : n.status === "pruned" ? "#cbd5e1" : "#64748b";
    ctx.lineWidth = winnerPath.has(n.id) ? 3 : 1.2;
    ctx.beginPath();
    ctx.moveTo(x0 + HALF, y0 + ROW / 2);
    ctx.lineTo(x1 - HALF, y1 + ROW / 2);
    ctx.stroke();
  });
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  nodes.forEach((n) => {
    const [x, y] = place[n.id];
    const pruned = n.status === "pruned";
    ctx.fillStyle = winnerPath.has(n.id) ? "#fde7d9" : pruned ? "#f8fafc" : "#e2e8f0";
    ctx.strokeStyle = n.status === "finished" ? "#047857" : winnerPath.has(n.id) ? COLORS.chosen : pruned ? "#e2e8f0" : "#94a3b8";
    ctx.lineWidth = n.status === "finished" || winnerPath.has(n.id) ? 2.5 : 1;
    ctx.beginPath();
    ctx.rect(x - HALF, y + 3, 2 * HALF, ROW - 6);
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = pruned ? "#94a3b8" : "#1f2937";
    ctx.font = (winnerPath.has(n.id) ? "700 " : "") + font + "px " + FAMILY;
    ctx.fillText(n.token.length > 9 ? n.token.slice(0, 8) + "…" : n.token, x, y + ROW / 2 - 5);
    ctx.font = font - 3 + "px " + FAMILY;
    ctx.fillText(n.log_prob.toFixed(2), x, y + ROW / 2 + 8);
  });
  canvas.setAttribute("aria-label", "Beam search tree: " + nodes.length + " hypotheses, beam size " + a.beam_size +
    ", winner “" + a.translation + "”.");
  const scroller = el("div", "ae-beamtree");
  scroller.appendChild(canvas);
  nodes.forEach((n) => { // the root (<s>) is every path's start: nothing to follow
    if (n.parent === -1) return;
    const [x, y] = place[n.id];
    const b = el("button", "ae-beam-node");
    b.type = "button";
    b.style.left = x - HALF + "px";
    b.style.top = y + 3 + "px";
    b.style.width = 2 * HALF + "px";
    b.style.height = ROW - 6 + "px";
    b.setAttribute("aria-label", "Step " + n.step + ": “" + n.token + "”, log p " + n.log_prob.toFixed(2) + ", " + n.status +
      (winnerPath.has(n.id) ? ", on the winner's path" : "") + ". Step through this hypothesis.");
    b.title = b.getAttribute("aria-label");
    b.addEventListener("click", () => emit(b, "ae-follow", { forced_ids: beamPath(nodes, n.id) }));
    scroller.appendChild(b);
  });
  const steps = depth - 1, fits = width <= (div.clientWidth || 700);
  const note = fits ? "" : "All " + steps + " steps: scroll sideways for the later ones.";
  div.replaceChildren(
    el("div", "ae-panel-title", "Beam search tree (beam " + a.beam_size + ", α " + a.alpha + "): winner “" + a.translation + "”"),
    ...(note ? [el("div", "ae-panel-note ae-beam-scroll-note", note)] : []), scroller, el("div", "ae-caption", BEAM_CAPTION));
}

// The panel, as panels.js registers it.
export const QUESTION = { what: "beam_tree" }; // the panel's, and the greedy page's line (beamline.js)

export const PANEL = {
  what: "beam_tree",
  button: ["Beam tree", "Beam search as a tree of hypotheses (asks the server)"],
  question: () => ({ question: QUESTION, waiting: "Searching with every hypothesis recorded…" }),
  draw: draw,
};
