// tabs.js: the registry of the page's tabs beside the viewer (Head ablation, Positional encoding, the Train tab's
// file and run), each drawn by the browser in its gr.HTML, and their mounting. A tab's module exports
// TAB = {id, create(element, context)}: create builds the tab in `element` and returns an instance whose methods are
// the actions its Gradio events call, with the events' values by name (`act`). `context` is {viewer, tab(id), signal}:
// the viewer on the page (its store and the trace on screen), another tab's instance (null before it is mounted), and
// this mount's AbortSignal: every listener, request and stream the tab opens ends with it. A tab mounted again
// (Gradio draws its gr.HTML anew) first aborts its previous mount. A new tab is its file and one line here.
import { TAB as ablation } from "./ablation.js";
import { TAB as positional } from "./positional.js";
import { TAB as upload } from "./upload.js";
import { TAB as train } from "./train.js";

export const TABS = [ablation, positional, upload, train];

function tabOf(id) {
  const tab = TABS.find((t) => t.id === id);
  if (!tab) throw new Error("no such tab: " + id);
  return tab;
}

export class Tabs {
  constructor(viewer) {
    this.viewer = viewer;
    this.mounted = new Map(); // id -> {instance, controller}
    this.waiting = new Map(); // id -> {promise, resolve}: actions asked before the tab's first mount wait for it
  }

  // Build tab `id` in `element`, ending its previous mount; the instance.
  mount(id, element) {
    const tab = tabOf(id);
    const before = this.mounted.get(id);
    if (before) before.controller.abort();
    const controller = new AbortController();
    const context = { viewer: this.viewer, tab: (other) => this.get(other), signal: controller.signal };
    const instance = tab.create(element, context);
    this.mounted.set(id, { instance: instance, controller: controller });
    this.whenMounted(id).resolve(instance);
    return instance;
  }

  // The mounted instance of tab `id`, or null.
  get(id) {
    const mounted = this.mounted.get(tabOf(id).id);
    return mounted ? mounted.instance : null;
  }

  // Call `action` of tab `id` with `values` (a Gradio event's values by name), once the tab is mounted.
  act(id, action, values) {
    return this.whenMounted(tabOf(id).id).promise.then(() => {
      const instance = this.get(id); // its latest mount: a tab mounted again answers with its new instance
      if (typeof instance[action] !== "function") throw new Error("tab " + id + " has no action " + action);
      return instance[action](values || {});
    });
  }

  whenMounted(id) {
    if (!this.waiting.has(id)) {
      let resolve = null;
      const promise = new Promise((r) => { resolve = r; });
      this.waiting.set(id, { promise: promise, resolve: resolve });
    }
    return this.waiting.get(id);
  }

  // End every mount (the page is going, or a test is done).
  abort() { this.mounted.forEach((m) => m.controller.abort()); }
}
