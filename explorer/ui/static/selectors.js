// selectors.js: the rows of buttons that choose what the chart shows: the view, the attention kind, the layer and the
// head (its number, ★ on the best-aligning head, mean, all, rollout where the kind has one). Only the rows the view
// on screen uses are shown. A button asks the viewer's select().
import { KINDS, KIND_TITLES } from "./trace.js";
import { button, el } from "./dom.js";
import { VIEWS, viewOf } from "./views.js";
import { roleOf } from "./roles.js";

const KIND_NAMES = { encoder_self: "Encoder self", decoder_self: "Decoder self (masked)", cross: "Cross" };

// The rows' elements: {view, kind, layer, head}.
export function selectorRows() {
  return { view: el("div", "ae-row ae-view-tabs"), kind: el("div", "ae-row ae-kinds"), layer: el("div", "ae-row ae-layers"), head: el("div", "ae-row ae-heads") };
}

// `roles`: the server's answer to {what: "roles"} (roles.js), or null: each head button then carries its role's chip.
export function drawSelectors(rows, t, s, select, roles) {
  const row = (box, label, items, current, name) => {
    box.replaceChildren(el("span", "ae-row-label", label), ...items.map(([value, text, title, chip]) => {
      const b = button(text, title, () => select({ [name]: value }), value === current ? "ae-on" : "");
      if (chip) b.appendChild(el("span", "ae-role-chip", chip)); // a head's role (on a projector: the shown head's)
      b.dataset.value = value;
      b.setAttribute("aria-pressed", String(value === current));
      return b;
    }));
  };
  row(rows.view, "View", VIEWS.map((v) => [v.id, v.label, v.tip + " (V cycles the views)"]), s.view, "view");
  row(rows.kind, "Kind", KINDS.map((k) => [k, KIND_NAMES[k], KIND_TITLES[k] + " (K cycles)"]), s.kind, "kind");
  const layers = [...Array(t.nLayers(s.kind)).keys()];
  row(rows.layer, "Layer", layers.map((l) => [l, String(l), "layer " + l + " (L cycles)"]), s.layer, "layer");
  const best = t.model.best_head;
  const heads = [...Array(t.H).keys()].map((h) => {
    const isBest = best && best.kind === s.kind && best.layer === s.layer && best.head === h;
    const role = roleOf(roles, s.kind, s.layer, h);
    return [h, String(h) + (isBest ? " ★" : ""),
      "head " + h + (isBest ? ": best word alignment" : "") + (role ? "; " + role.says : "") + " (key " + h + ")",
      role && role.short];
  });
  heads.push(["mean", "mean", "mean of heads (M)"], ["all", "all", "all heads of this layer (A)"]);
  if (t.hasRollout(s.kind)) heads.push(["rollout", "rollout", "attention rollout through every encoder layer (R)"]);
  row(rows.head, "Head", heads, s.head, "head");
  const controls = viewOf(s.view).controls; // the rows that apply to the view on screen
  for (const name of ["kind", "layer", "head"]) rows[name].hidden = !controls.includes(name);
}
