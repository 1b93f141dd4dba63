// fake_dom.mjs: the little of a browser page that room.js and the tabs touch, for Node: elements that hold children,
// text, classes and listeners (ended by their AbortSignal); the window's page events (a reload's beforeunload); and an EventSource the test drives
// (it delivers the server's events, fails, reconnects). Import after setup.mjs.

class FakeElement {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.className = "";
    this.ownText = "";
    this.hidden = false;
    this.dataset = {};
    this.style = {};
    this.listeners = {};
    this.parent = null;
  }

  get classList() {
    const names = () => this.className.split(/\s+/).filter(Boolean);
    const set = (list) => { this.className = list.join(" "); };
    return {
      contains: (name) => names().includes(name),
      add: (name) => { if (!names().includes(name)) set([...names(), name]); },
      toggle: (name, on) => set(on ? [...new Set([...names(), name])] : names().filter((n) => n !== name)),
    };
  }

  set textContent(text) { this.ownText = String(text); this.children = []; }
  get textContent() { return [this.ownText, ...this.children.map((c) => c.textContent)].filter(Boolean).join(" "); }

  appendChild(node) { node.parent = this; this.children.push(node); return node; }
  append(...nodes) { nodes.forEach((node) => this.appendChild(node)); }
  replaceChildren(...nodes) { this.children = []; this.append(...nodes); }
  remove() { if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this); }
  // a listener ends with its `signal` (an AbortSignal), as in a browser
  addEventListener(name, handle, options) {
    const signal = options && options.signal;
    if (signal && signal.aborted) return;
    (this.listeners[name] ||= []).push(handle);
    if (signal) signal.addEventListener("abort", () => { this.listeners[name] = this.listeners[name].filter((h) => h !== handle); });
  }

  setAttribute(name, value) { this[name] = String(value); }

  // The inputs below that are ticked (the only selector the tabs ask: "input:checked").
  querySelectorAll(selector) {
    if (selector !== "input:checked") throw new Error("the fake page knows no selector " + selector);
    return this.all().filter((node) => node.tagName === "INPUT" && node.checked);
  }

  // The page as a person would use it: the button labelled `label`, anywhere below, clicked.
  button(label) {
    const found = this.all().find((node) => node.tagName === "BUTTON" && node.ownText === label);
    if (!found) throw new Error("no button " + JSON.stringify(label) + " in: " + this.textContent);
    return { click: () => (found.listeners.click || []).forEach((handle) => handle({ target: found })) };
  }

  all() { return this.children.flatMap((c) => [c, ...c.all()]); }
}

function textNode(text) {
  const node = new FakeElement("#text");
  node.ownText = String(text);
  return node;
}

globalThis.document = { createElement: (tag) => new FakeElement(tag), createTextNode: textNode, body: new FakeElement("body") };

// The window's page events: a test says the page is being reloaded (`pageEvent("beforeunload")`).
const pageListeners = {};
globalThis.addEventListener = (name, handle) => (pageListeners[name] ||= []).push(handle);
export function pageEvent(name) { (pageListeners[name] || []).forEach((handle) => handle({ type: name })); }

// An EventSource whose server is the test: `opened` lists every stream the page opened, newest last.
export class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static opened = [];

  constructor(url) {
    this.url = url;
    this.readyState = FakeEventSource.CONNECTING;
    this.listeners = {};
    this.onerror = null;
    this.onopen = null;
    FakeEventSource.opened.push(this);
  }

  addEventListener(name, handle) { (this.listeners[name] ||= []).push(handle); }
  close() { this.readyState = FakeEventSource.CLOSED; }

  // The server sends an event (on a stream not yet open, it opens first, as the browser tells the page).
  emit(name, data) {
    if (this.readyState !== FakeEventSource.OPEN) {
      this.readyState = FakeEventSource.OPEN;
      if (this.onopen) this.onopen({});
    }
    (this.listeners[name] || []).forEach((handle) => handle({ data: JSON.stringify(data) }));
  }

  // The connection drops: the browser retries by itself (`refused` false), or gives up after a refusal (true).
  drop(refused) {
    this.readyState = refused ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
    if (this.onerror) this.onerror({});
  }
}
globalThis.EventSource = FakeEventSource;
