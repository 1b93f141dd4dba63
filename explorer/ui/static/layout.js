// layout.js: the right column: one chart per view (only the one on screen shown; each view made in its chart the first
// time it is shown), above it the sentence the view's point needs when another is on screen (its `offer`), the
// caption under it and the panel that answers a question. It sizes the chart to the window, so the step controls, the
// status line and the chart are seen together. A panel open takes the lower part of the window, as much as it needs (the chart keeps MIN_CHART px):
// it covers nothing. In presentation mode the caption is folded under "How to read this view" and, opened, the chart
// makes room for it. Heights are measured once per text or answer, and read before anything is written.
import { button, el, emit } from "./dom.js";
import * as panels from "./panels.js";
import { VIEWS, viewOf } from "./views.js";

const MIN_CHART = 190; // px: the chart's height when a panel or a caption takes the rest of the window

export class ChartArea {
  constructor(refresh, online) {
    this.refresh = refresh;
    this.online = online; // a view's offer traces a sentence: not on the exported offline page
    this.element = el("div", "ae-right");
    this.offer = el("div", "ae-offer");
    this.offer.hidden = true;
    this.offered = null; // the offer drawn ({sentence, why}), and its height
    this.offerHeight = 0;
    this.charts = Object.fromEntries(VIEWS.map((view) => [view.id, el("div", view.className)])); // one per view
    this.made = {}; // the views made so far, by id (views.js: each owns its state)
    this.caption = el("div", "ae-caption");
    this.panel = el("div", "ae-panel");
    this.panel.hidden = true;
    this.panel.addEventListener("toggle", () => { this.panelNeed = null; refresh(); }, true); // its fold opened
    this.element.append(this.offer, ...Object.values(this.charts), this.caption, this.panel);
    this.captionText = null; // the caption drawn, whether folded, and its height in presentation mode
    this.captionFolded = false;
    this.captionHeight = null;
    this.shown = null; // the panel's content drawn, and the height it needs
    this.panelNeed = null;
  }

  // The view `id` in its chart, made the first time it is asked for.
  view(id) {
    const view = viewOf(id);
    if (!this.made[view.id]) this.made[view.id] = view.create(this.charts[view.id]);
    return this.made[view.id];
  }

  resized() { this.captionHeight = this.panelNeed = this.offered = null; } // text wraps anew

  // The room for the chart: what is left of the window below where it starts. Normal mode: as the page scrolled to
  // the top lays it out. Presentation mode: with the viewer at the top of the window (it scrolls there when the mode
  // is switched on and when a new sentence arrives).
  height(root, presenting) {
    const chartTop = this.element.getBoundingClientRect().top;
    const top = presenting ? chartTop - root.getBoundingClientRect().top : chartTop + window.scrollY;
    const room = window.innerHeight - top - 12;
    return Math.max(280, Math.min(900, room > 0 ? room : 460));
  }

  // Lay out the caption and the panel (`content`: {what, note} or {what, answer}, or null) for state `s`; returns the
  // chart's height.
  fit(s, t, height, presenting, content) {
    height -= this.drawOffer(s, t);
    const caption = s.panel ? "" : viewOf(s.view).caption(s, t);
    if (caption !== this.captionText || presenting !== this.captionFolded) this.drawCaption(caption, presenting);
    this.caption.hidden = !caption;
    if (presenting && caption && this.captionHeight === null) this.captionHeight = this.caption.offsetHeight + 10;
    let chart = presenting && caption ? Math.max(MIN_CHART, height - this.captionHeight) : height;
    const shown = s.panel ? content : null;
    const same = shown && this.shown && shown.what === this.shown.what && shown.answer === this.shown.answer && shown.note === this.shown.note;
    if (!same) {
      this.shown = shown;
      this.panelNeed = null;
      panels.draw(this.panel, shown, s);
    }
    if (shown) {
      if (this.panelNeed === null) { // measured once per answer, not per step
        this.panel.style.maxHeight = "";
        this.panelNeed = this.panel.scrollHeight + this.panel.offsetHeight - this.panel.clientHeight;
      }
      chart = Math.max(MIN_CHART, height - this.panelNeed - 10);
      this.panel.style.maxHeight = Math.max(160, height - chart - 10) + "px";
    } else this.panel.style.maxHeight = "";
    for (const [id, div] of Object.entries(this.charts)) div.hidden = id !== s.view;
    return chart;
  }

  // The view's offer while another sentence is on screen: one line, and a button that traces the offered sentence in
  // this view ("ae-try"); returns the height it takes from the chart.
  drawOffer(s, t) {
    const offer = viewOf(s.view).offer;
    const shown = this.online && offer && !s.panel && t.request.sentence !== offer.sentence ? offer : null;
    if (shown !== this.offered) {
      this.offered = shown;
      this.offer.hidden = !shown;
      this.offerHeight = 0;
      if (shown) {
        const go = button("Show “" + shown.sentence + "”", "Translate this sentence and show it in this view",
          () => emit(this.offer, "ae-try", { sentence: shown.sentence }), "ae-offer-try");
        const why = el("span", "ae-offer-why", shown.why);
        why.title = shown.why;
        this.offer.replaceChildren(go, why);
        this.offerHeight = this.offer.offsetHeight + 6;
      } else this.offer.replaceChildren();
    }
    return this.offerHeight;
  }

  // The caption's text at a desk; on a projector folded under "How to read this view", so the chart keeps the window.
  drawCaption(text, presenting) {
    this.captionText = text;
    this.captionFolded = presenting;
    this.captionHeight = null;
    if (!presenting) {
      this.caption.textContent = text;
      return;
    }
    const fold = el("details", "ae-caption-fold");
    fold.append(el("summary", "", "How to read this view"), el("span", "", text));
    fold.addEventListener("toggle", () => { this.captionHeight = null; this.refresh(); });
    this.caption.replaceChildren(fold);
  }
}
