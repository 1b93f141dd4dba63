// views.js: the registry of the viewer's views. Each view is {id, label, tip, className, controls, caption, create},
// exported as VIEW by its own module and registered once below; the viewer builds its tabs, its charts, which selector
// rows show, the caption and the drawing from this list and names no view; `tip` says what the view shows (its
// button's tooltip). Adding a view is its file and one line here. `controls`: which of kind, layer and head apply;
// `caption(state, trace)`: the text under the chart. `offer` (optional): {sentence, why}, a sentence the view's point
// needs, offered above the chart with one line of why while another sentence is on screen.
// `create(div)` makes the view in its box, once, on first showing: an instance that owns what it keeps between
// drawings (its parts, the head view's chips, the grid's geometry), with
//   draw(context, state)  context {trace, compare() -> {trace, error}, ask(question)}; returns a promise (`ask`: the
//                         server's answer to a question about the trace on screen, null while it is asked, asked once
//                         per trace)
//   png(header)           a canvas (or a promise of one) at twice the screen's size with the header lines above
//   focus(cell)           optional, where it has cells to explain: keep the explained cell in view.
import { VIEW as heatmap } from "./heatmap.js";
import { VIEW as headview } from "./headview.js";
import { VIEW as mosaic } from "./mosaic.js";
import { VIEW as mask } from "./mask.js";
import { VIEW as compare } from "./compare.js";
import { VIEW as maskless } from "./maskless.js";
import { VIEW as valuepath } from "./valuepath.js";
import { VIEW as lens } from "./lens.js";
import { VIEW as qkspace } from "./qkspace.js";
import { VIEW as nopos } from "./nopos.js";
import { VIEW as contributions } from "./contributions.js";

export const VIEWS = [heatmap, headview, mosaic, mask, compare, lens, contributions, valuepath, qkspace, nopos, maskless];

// The view of `id`, else the first (the heatmap).
export function viewOf(id) { return VIEWS.find((v) => v.id === id) || VIEWS[0]; }
