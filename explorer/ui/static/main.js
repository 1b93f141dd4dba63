// main.js: the entry of the viewer's bundle. Puts on window.AttentionExplorer what the page calls: mount() from the
// Gradio HTML component, translateForm() and formFromLink() from the Translate tab's browser events, standalone()
// from an exported offline page, mountTab() from each tab's gr.HTML and act() from its buttons (tabs.js: the Head
// ablation, Positional encoding and Train tabs), exampleAgrees() from the sentence box's input event; and `viewer`,
// the viewer on the page, for scripts that measure it (bench/). No module reads it: the tabs get the viewer through
// their mount.
import { DEFAULT_MODEL } from "./settings.js";
import { formFromLink, fromForm } from "./request.js";
import { requestOfLink } from "./link.js";
import { Viewer } from "./viewer.js";
import { Tabs } from "./tabs.js";
import { keepPlace } from "./place.js";
import { keepPresenting } from "./presenting.js";
import { exampleAgrees } from "./page.js";

// The page: its viewer, and the tabs, mounted once the viewer is (a tab's action waits for its tab).
class Page {
  constructor() {
    this.viewer = null;
    this.tabs = new Promise((resolve) => { this.viewerMounted = resolve; });
  }

  // In the Gradio page (the gr.HTML component's js_on_load): a deep link's trace comes from the plain route, the
  // opening example's with the page.
  mount(element) {
    const viewer = new Viewer(element, true);
    this.viewer = viewer;
    this.viewerMounted(new Tabs(viewer));
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

  // Tab `id` (tabs.js) drawn in `element`, by its gr.HTML's js_on_load.
  mountTab(id, element) { return this.tabs.then((tabs) => tabs.mount(id, element)); }

  // A tab's button: `action` of tab `id` with the event's values by name.
  act(id, action, values) { return this.tabs.then((tabs) => tabs.act(id, action, values)); }

  // The Translate tab's form (its values by name: the trace request's fields, the model chosen, "Explore my trained
  // model"): its trace, with the chosen model.
  translateForm(form) {
    const viewer = this.viewer;
    if (!viewer) return;
    if (!String(form.sentence || "").trim()) { // said here: the API would refuse a request without sentence=...
      const language = viewer.trace ? viewer.trace.sourceLanguage : "English";
      return viewer.say("Type a sentence in " + language + " in the box first, then press Enter or “Translate & step”.");
    }
    return this.tabs.then((tabs) => {
      const training = tabs.get("train");
      const own = (training && training.trained.key) || viewer.ownKey; // trained on this page, or a link's model
      if (form.use_own && !own) { // said in the Train tab, where the box is, and above the viewer
        const text = "You have not trained a model on this page yet (or it is still training): train one first, or " +
          "untick “Explore my trained model”.";
        if (training) training.say(text);
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
    });
  }

  // In an exported HTML file: the trace and the view it was exported at are inlined in the page.
  standalone(element) {
    const viewer = new Viewer(element, false);
    const view = JSON.parse(document.getElementById("ae-state").textContent);
    viewer.load(JSON.parse(document.getElementById("ae-trace").textContent), { opensAt: { sentence: null, view: view } });
    this.viewer = viewer;
    return viewer;
  }
}

const page = new Page();
Object.assign(window.AttentionExplorer || (window.AttentionExplorer = {}), {
  mount: (element) => page.mount(element),
  translateForm: (form) => page.translateForm(form),
  formFromLink: (form) => formFromLink(form, new URLSearchParams(window.location.search)),
  standalone: (element) => page.standalone(element),
  mountTab: (id, element) => page.mountTab(id, element),
  act: (id, action, values) => page.act(id, action, values),
  exampleAgrees: exampleAgrees,
});
Object.defineProperty(window.AttentionExplorer, "viewer", { get: () => page.viewer, configurable: true });
if (window.AttentionExplorer.loaded) window.AttentionExplorer.loaded(); // the page's js_on_load waits for this
