// compare.js: "compare two". The trace on screen (A) beside a second one (B): another sentence with the same
// options, or the same sentence with the other model (the shipped one and the one trained in this browser
// session), both at the same step, kind, layer and head; below them A − B where both maps have the same
// shape (blue: B attends more, vermillion: A attends more), and a message saying why not where they differ.
import { KIND_TITLES } from "./trace.js";
import { COLORS, signedFill } from "./colors.js";
import { FAMILY, el, emit, fontSize, sizeCanvas } from "./dom.js";
import * as heatmap from "./heatmap.js";

const COMPARE_CAPTION = "Two decodes at the same step, kind, layer and head, and their difference A − B where the " +
  "maps have the same shape. A difference compares weights position by position: it says nothing about tokens " +
  "that moved (a different word order puts the same relation in another cell).";

// B's form, the two maps and the difference, made once; the form asks for B with "ae-compare" {sentence, model}.
function parts(div) {
  if (!div._cmp) {
    const input = el("input", "ae-compare-sentence");
    input.type = "text";
    input.placeholder = "second sentence (empty: the same sentence)";
    const model = el("select", "ae-compare-model");
    [["same", "same model"], ["other", "the other model (shipped / trained here)"]].forEach(([v, text]) => {
      const o = el("option", "", text);
      o.value = v;
      model.appendChild(o);
    });
    const go = el("button", "ae-btn ae-primary", "Compare");
    go.type = "button";
    const ask = () => emit(div, "ae-compare", { sentence: input.value, model: model.value });
    go.addEventListener("click", ask);
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") ask(); });
    const bar = el("div", "ae-compare-bar");
    bar.append(el("span", "ae-row-label", "B:"), input, model, go);
    const pair = el("div", "ae-compare-pair");
    const a = el("div", "ae-compare-map ae-compare-a"), b = el("div", "ae-compare-map ae-compare-b");
    pair.append(a, b);
    const note = el("div", "ae-panel-note ae-compare-note");
    const diff = el("div", "ae-compare-diff");
    diff.appendChild(document.createElement("canvas"));
    div.replaceChildren(bar, pair, note, diff);
    div._cmp = { input: input, model: model, a: a, b: b, note: note, diff: diff };
  }
  return div._cmp;
}

// The A − B map of rows x columns (null: masked in either), with its labels and a small key.
function drawDiff(div, rows, columns, values, title, height) {
  const canvas = div.querySelector("canvas");
  const font = fontSize() - 1;
  const width = Math.max(300, div.clientWidth || 600);
  const ctx = sizeCanvas(canvas, width, height);
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, width, height);
  ctx.font = font + "px " + FAMILY;
  const left = 8 + Math.max(...rows.map((s) => ctx.measureText(s).width)), top = font + 12, bottom = font + 22;
  const cw = (width - left - 90) / columns.length, ch = (height - top - bottom) / rows.length;
  ctx.fillStyle = "#1f2937";
  ctx.font = "600 " + font + "px " + FAMILY;
  ctx.textBaseline = "middle";
  ctx.fillText(title, 4, font / 2 + 2);
  ctx.font = font + "px " + FAMILY;
  values.forEach((row, i) => row.forEach((v, j) => {
    ctx.fillStyle = v === null ? COLORS.masked : signedFill(v, 1); // over the white background
    ctx.fillRect(left + j * cw, top + i * ch, Math.ceil(cw), Math.ceil(ch));
  }));
  ctx.fillStyle = "#1f2937";
  ctx.textAlign = "right";
  rows.forEach((s, i) => ctx.fillText(s, left - 4, top + (i + 0.5) * ch));
  ctx.textAlign = "center";
  columns.forEach((s, j) => ctx.fillText(s, left + (j + 0.5) * cw, height - bottom + font / 2 + 4));
  [[-1, "B more"], [0, "equal"], [1, "A more"]].forEach(([v, text], n) => {
    ctx.fillStyle = signedFill(v, 1);
    ctx.fillRect(width - 80, top + n * (font + 10), 14, font + 4);
    ctx.strokeStyle = "#cbd5e1";
    ctx.strokeRect(width - 80, top + n * (font + 10), 14, font + 4);
    ctx.fillStyle = "#1f2937";
    ctx.textAlign = "left";
    ctx.fillText(text, width - 62, top + n * (font + 10) + (font + 4) / 2);
  });
  canvas.setAttribute("aria-label", title);
  div._values = values; // read by the browser tests
}

// One canvas with what the Compare view shows (A and B side by side, A − B below), for the PNG button.
export function compareCanvas(div) {
  const shown = (sel) => { const c = div.querySelector(sel); return c && c.offsetParent !== null ? c : null; };
  const a = shown(".ae-compare-a canvas"), b = shown(".ae-compare-b canvas"), diff = shown(".ae-compare-diff canvas");
  const out = document.createElement("canvas");
  const top = Math.max(a ? a.height : 0, b ? b.height : 0);
  out.width = Math.max((a ? a.width : 0) + (b ? b.width : 0), diff ? diff.width : 0);
  out.height = top + (diff ? diff.height : 0);
  const ctx = out.getContext("2d");
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, out.width, out.height);
  if (a) ctx.drawImage(a, 0, 0);
  if (b) ctx.drawImage(b, a ? a.width : 0, 0);
  if (diff) ctx.drawImage(diff, 0, top);
  return out;
}

// Draw pair.a (the trace on screen) and pair.b (the second trace, or null) at state's step, kind, layer and head;
// pair.error, the refusal of the last B asked for, is said beside B's form.
export function draw(div, pair, state) {
  const c = parts(div);
  const drawn = drawPair(c, pair, state);
  c.note.classList.toggle("ae-panel-error", Boolean(pair.error));
  if (pair.error) c.note.textContent = pair.error;
  return drawn;
}

function drawPair(c, pair, state) {
  const s = state, A = pair.a, B = pair.b, height = state.height;
  const head = s.head === "all" ? "mean" : s.head;
  // A alone takes the height; with B, A and B side by side and A − B below them
  const half = B ? Math.max(220, Math.round(height * 0.55)) : height - 60;
  const drawn = [heatmap.draw(c.a, A, Object.assign({}, s, { head: head, height: half, label: "A" }))];
  c.diff.hidden = true;
  c.a.parentNode.classList.toggle("ae-compare-single", !B); // A alone takes the width too
  if (!B) {
    c.b.hidden = true;
    c.note.textContent = "Type a second sentence (or choose the other model) and press Compare: B is decoded once, " +
      "then both follow the same step, kind, layer and head.";
    return Promise.all(drawn);
  }
  c.b.hidden = false;
  const stepB = Math.min(s.step, B.T);
  const problems = [];
  if (s.layer >= B.nLayers(s.kind)) problems.push("B's model has no " + s.kind + " layer " + s.layer);
  if (Number.isInteger(head) && head >= B.H) problems.push("B's model has no head " + head);
  if (problems.length) {
    c.b.hidden = true;
    c.note.textContent = "Cannot show B here: " + problems.join("; ") + ". Choose a layer and head both models have.";
    return Promise.all(drawn);
  }
  drawn.push(heatmap.draw(c.b, B, Object.assign({}, s, { head: head, step: stepB, height: half, label: "B" })));
  const [qa, ka] = A.labels(s.kind, s.step), [qb, kb] = B.labels(s.kind, stepB);
  const label = "B: “" + B.request.sentence + "” (" + B.model.name + ")";
  if (qa.length !== qb.length || ka.length !== kb.length || qa.length === 0) {
    c.note.textContent = label + ". No difference map: A is " + qa.length + " × " + ka.length + " here and B " +
      qb.length + " × " + kb.length + " (queries × keys); the two can only be compared side by side.";
    return Promise.all(drawn);
  }
  const wa = A.weights(s.kind, s.layer, head, s.step), wb = B.weights(s.kind, s.layer, head, stepB);
  const values = wa.map((row, i) => row.map((v, j) => (v === null || wb[i][j] === null ? null : v - wb[i][j])));
  c.note.textContent = label + ". " + COMPARE_CAPTION;
  c.diff.hidden = false;
  const rows = qa.map((q, i) => (q === qb[i] ? q : q + " / " + qb[i]));
  const columns = ka.map((k, j) => (k === kb[j] ? k : k + " / " + kb[j]));
  drawDiff(c.diff, rows, columns, values, "A − B · " + KIND_TITLES[s.kind] + " · layer " + s.layer, Math.max(160, Math.round(height * 0.4) - 40));
  return Promise.all(drawn);
}
