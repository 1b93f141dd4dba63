// heads.js: "which heads matter" for the sentence on screen: from the server's answer (explorer/interpret/
// head_importance.py) a layer x head grid per attention kind, each tile the log-probability the translation
// loses when that head alone is switched off; the most important heads darkest. Clicking a tile asks the
// viewer to switch that head off (a new trace), so the class sees what the translation becomes without it.
import { KINDS, KIND_TITLES } from "./trace.js";
import { signedFill } from "./colors.js";
import { el, emit } from "./dom.js";

const HEADS_CAPTION = "Each tile: how much log-probability the translation above loses when that one head is switched " +
  "off (its output zeroed) and every other head stays on; one batched pass over all heads. It measures heads one at " +
  "a time: two heads that can stand in for each other both look unimportant alone. A negative number means the " +
  "translation became more likely without that head: it was pulling away from this output (it stays white). Click a " +
  "tile to switch that head off in the viewer.";

// Draw an answer ({drops: {kind: [[...]]}, log_prob, translation}) into div; a click on a tile emits
// "ae-switch-off" {kind, layer, head}.
export function draw(div, a) {
  const all = Object.values(a.drops).flat(2).filter((v) => v !== null);
  const peak = Math.max(...all.map(Math.abs), 1e-9);
  const best = Math.max(...all);
  const grids = el("div", "ae-heads-grids");
  KINDS.forEach((kind) => {
    const table = el("table", "ae-heads-grid");
    table.dataset.kind = kind;
    const header = el("tr");
    header.appendChild(el("th", "", ""));
    a.drops[kind][0].forEach((_, h) => header.appendChild(el("th", "", "head " + h)));
    table.appendChild(header);
    a.drops[kind].forEach((row, layer) => {
      const tr = el("tr");
      tr.appendChild(el("th", "", "layer " + layer));
      row.forEach((drop, head) => {
        if (drop === null) { // switched off already in this trace
          const off = el("td", "ae-off", "off");
          off.title = KIND_TITLES[kind] + ", layer " + layer + ", head " + head + ": switched off in this trace";
          return tr.appendChild(off);
        }
        const td = el("td", drop === best ? "ae-top" : "", drop.toFixed(2));
        const share = Math.max(0, drop) / peak; // a head whose loss helps the translation stays white
        td.style.background = signedFill(share, 1);
        td.style.color = share > 0.55 ? "white" : "#1f2937";
        const change = drop >= 0 ? "loses " + drop.toFixed(3) : "gains " + (-drop).toFixed(3);
        td.title = KIND_TITLES[kind] + ", layer " + layer + ", head " + head + ": the translation " + change +
          " log-probability without it (click to switch it off)";
        td.dataset.layer = layer;
        td.dataset.head = head;
        td.addEventListener("click", () => emit(td, "ae-switch-off", { kind: kind, layer: layer, head: head }));
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    const box = el("div", "ae-heads-kind");
    box.append(el("div", "ae-label", KIND_TITLES[kind]), table);
    grids.appendChild(box);
  });
  div.replaceChildren(
    el("div", "ae-panel-title", "Which heads matter for “" + a.translation + "” (log p = " + a.log_prob.toFixed(2) + ")"),
    grids, el("div", "ae-caption", HEADS_CAPTION));
}
