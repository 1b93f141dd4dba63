// main.js: the entry of the viewer's bundle. Puts on window.AttentionExplorer what the page calls: mount() from the
// Gradio HTML component, translateForm() and formFromLink() from the Translate tab's browser events, standalone()
// from an exported offline page, mountAblation() from the Head ablation tab's gr.HTML, mountUpload(), mountTrain(),
// startTraining() and stopTraining() from the Train tab, mountPositional() and showPositional() from the Positional
// encoding tab, exampleAgrees() from the sentence box's input event.
import { DEFAULT_MODEL } from "./settings.js";
import { formFromLink, fromForm } from "./request.js";
import { requestOfLink } from "./link.js";
import { Viewer } from "./viewer.js";
import { mount as mountAblation } from "./ablation.js";
import { mount as mountUpload } from "./upload.js";
import { mount as mountTrain, say as sayTraining, startTraining, stopTraining, trained } from "./train.js";
import { mount as mountPositional, showPositional } from "./positional.js";
import { keepPlace } from "./place.js";
import { keepPresenting } from "./presenting.js";
import { exampleAgrees } from "./page.js";

// In the Gradio page (the gr.HTML component's js_on_load): a deep link's trace comes from the plain route, the
// opening example's with the page.
function mount(element) {
  const viewer = new Viewer(element, true);
  window.aeViewer = viewer;
  keepPlace(viewer); // the address bar follows the place: Back and reload return to it
  keepPresenting(); // and a reload keeps presentation mode
  // the room (one to drive again, or one to follow: ?room=CODE) gives this page its view, not the address's link
  const placed = viewer.hooked("start").map((c) => c.start()).some(Boolean);
  const link = viewer.pendingView;
  if (link && link.sentence && !placed) {
    link.own = true; // only the link's own decode opens at the link's place
    viewer.requestTrace(requestOfLink(), { link: true });
  } else if (placed) viewer.pendingView = null;
  return viewer;
}

// The Translate tab's form (its values by name: the trace request's fields, the model chosen, "Explore my trained
// model"): its trace, with the chosen model.
function translateForm(form) {
  const viewer = window.aeViewer;
  if (!viewer) return;
  if (!String(form.sentence || "").trim()) { // said here: the API would refuse a request without sentence=...
    const language = viewer.trace ? viewer.trace.sourceLanguage : "English";
    return viewer.say("Type a sentence in " + language + " in the box first, then press Enter or “Translate & step”.");
  }
  const own = trained.key || viewer.ownKey; // trained on this page, or the model of a link to one
  if (form.use_own && !own) { // said in the Train tab, where the box is, and above the viewer
    const text = "You have not trained a model on this page yet (or it is still training): train one first, or " +
      "untick “Explore my trained model”.";
    sayTraining(text);
    return viewer.say(text);
  }
  // the heads switched off stay off for the next sentence of the same model until the Head ablation tab switches
  // them back on (another model has other heads)
  const model = form.use_own ? own : form.model || DEFAULT_MODEL;
  const same = viewer.trace && viewer.trace.modelKey === model;
  const request = fromForm(Object.assign({}, form, { sentence: form.sentence || "" }), model, same ? viewer.trace.request.ablation : []);
  // the same sentence with another model (the header's choice): it opens where the other one was, to compare
  const t = viewer.trace, s = viewer.state;
  const switched = t && !same && t.request.sentence === request.sentence;
  const opensAt = switched ? { sentence: request.sentence, view: { step: s.step, kind: s.kind, layer: s.layer, head: s.head, view: s.view } } : null;
  return viewer.requestTrace(request, { opensAt: opensAt }).then(() => viewer.focus());
}

// In an exported HTML file: the trace and the view it was exported at are inlined in the page.
function standalone(element) {
  const viewer = new Viewer(element, false);
  const view = JSON.parse(document.getElementById("ae-state").textContent);
  viewer.load(JSON.parse(document.getElementById("ae-trace").textContent), { opensAt: { sentence: null, view: view } });
  window.aeViewer = viewer;
  return viewer;
}

Object.assign(window.AttentionExplorer || (window.AttentionExplorer = {}), {
  mount: mount, translateForm: translateForm, formFromLink: (form) => formFromLink(form, new URLSearchParams(window.location.search)), standalone: standalone, mountAblation: mountAblation,
  mountUpload: mountUpload, mountTrain: mountTrain, startTraining: startTraining, stopTraining: stopTraining,
  mountPositional: mountPositional, showPositional: showPositional, exampleAgrees: exampleAgrees,
});
if (window.AttentionExplorer.loaded) window.AttentionExplorer.loaded(); // the page's js_on_load waits for this
