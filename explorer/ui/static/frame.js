// frame.js: the viewer's elements, laid out once: the step controls on top, the message and status lines, the
// companions' banners; on the left the companions' bars, the decode's notes, the selectors, the Tools row, the source
// and target chips, the output, the candidates and the beams; on the right the charts (layout.js); the keys' help
// below. The buttons ask the viewer's actions; the Tools row joins the top bar in presentation mode.
import { button, el, presenting } from "./dom.js";
import { copyLink, exportHtml, exportNpz, exportPng } from "./exports.js";
import { KEY_HELP } from "./keys.js";
import { Toolbar } from "./toolbar.js";
import { selectorRows } from "./selectors.js";
import { ChartArea } from "./layout.js";
import * as page from "./page.js";
import { PANELS } from "./panels.js";
import { Candidates } from "./topk.js";
import { SentenceField } from "./sentencefield.js";

// The viewer's parts, in `viewer.root`: {toolbar, tools, decoding, status, message, notes, rows, sourceLabel,
// sourceBox, targetBox, output, beamLine (what beam search writes), topk (the candidates), beams, area, sentence (the
// field "/" opens, online only), place()}.
export function buildFrame(viewer) {
  const online = viewer.online, hooked = (name) => viewer.hooked(name);
  const f = { toolbar: new Toolbar(viewer), rows: selectorRows(), area: new ChartArea(() => viewer.refresh(), viewer.online) };
  const tools = (f.tools = el("div", "ae-row ae-tools")); // beside the selectors (in presentation mode: the top bar)
  tools.appendChild(el("span", "ae-row-label", "Tools"));
  const copy = button("Copy link", "Copy a link to exactly this view", () => copyLink(viewer, copy));
  if (online) { // beam search, sampling and the what-if prefix are below the fold: this says they exist
    f.decoding = button("Decoding: greedy ▾", "Beam search, sampling and a what-if prefix: open the decoding options", () => page.openOptions());
    f.decoding.classList.add("ae-decoding");
    tools.append(f.decoding);
  }
  if (online) { // the next sentence without scrolling to the page's box (key /)
    f.sentence = new SentenceField(viewer);
    tools.append(button("✎ Sentence", "Type the next sentence here, without leaving the viewer (key /)", () => f.sentence.open()));
  }
  const html = button("⬇ HTML", "Download this sentence as one HTML file that works offline", () => exportHtml(viewer));
  html.classList.add("ae-desk-only"); // a download for the desk, not the projector's top bar
  const png = button("⬇ PNG", "Download the chart on the right as a PNG image", () => exportPng(viewer));
  tools.append(copy, png, html, ...hooked("tools").flatMap((c) => c.tools(online)));
  if (online) {
    tools.append(
      ...PANELS.filter((p) => p.button).map((p) => button(p.button[0], p.button[1], () => viewer.openPanel(p.what))),
      button("⬇ .npz", "Download every attention tensor of this sentence up to this step", () => exportNpz(viewer), "ae-desk-only"));
  }
  f.status = el("div", "ae-status");
  f.message = el("div", "ae-message"); // what went wrong with the last request, in words
  f.message.hidden = true;
  f.notes = el("ul", "ae-notes"); // the decode's notes: forced tokens, switched-off heads, a length limit
  f.sourceLabel = el("div", "ae-label");
  f.sourceBox = el("div", "ae-chips ae-source-chips");
  f.sourceBox.addEventListener("click", (event) => {
    const chip = event.target.closest(".ae-chip[data-index]"); // a companion made the chips answers
    if (chip) hooked("answer").some((c) => c.answer(Number(chip.dataset.index)));
  });
  for (const name of ["targetBox", "output", "beamLine", "beams"]) f[name] = el("div", { targetBox: "ae-chips ae-target-chips", output: "ae-output", beamLine: "ae-beam-line", beams: "ae-beams" }[name]);
  f.beamLine.hidden = true; // beamline.js: shown when beam search writes another translation
  f.topk = new Candidates(online);
  const left = el("div", "ae-left");
  // the companions' bars (the room's code, the lesson's sentences) head the left column, beside the chart they speak
  // of: the chart keeps its height
  left.append(...hooked("bar").map((c) => c.bar), f.notes, ...Object.values(f.rows),
    ...hooked("selectorRow").map((c) => c.selectorRow), tools, f.sourceLabel, f.sourceBox,
    el("div", "ae-label", "Target so far"), f.targetBox, f.output, f.beamLine, f.topk.element, f.beams);
  const body = el("div", "ae-body");
  body.append(left, f.area.element);
  const help = el("div", "ae-keys", "Keys: " + KEY_HELP + ". " + (online ? "Click a candidate bar to force it; click " +
    "a tile of All heads to select it; click a cell of a head's heatmap to see how its weight is computed." :
    "Click a tile of All heads to select it. This page works offline: forcing a candidate and the questions that " +
    "compute from the model need the app."));
  const frame = el("div", "ae-viewer");
  frame.append(f.toolbar.element, ...(f.sentence ? [f.sentence.element] : []), f.message, f.status, ...hooked("banner").map((c) => c.banner), body, help);
  viewer.root.replaceChildren(frame);
  // Presentation mode: the tools join the top bar (under the step controls), so the lecturer reaches Lesson, Present
  // to class, PNG and the questions without scrolling; otherwise they sit among the selectors, before the source.
  f.place = () => (presenting() ? (f.sentence ? f.sentence.element : f.toolbar.element).after(tools) : left.insertBefore(tools, f.sourceLabel));
  f.place();
  return f;
}
