// answers.js: the one way the viewer asks the server a question about the trace on screen: a panel's (explain a cell,
// heads that matter, attribution, the beam tree), a view's (the lens, the value path, Q·K space, no positions, without
// the mask) and Compare two's second trace. Each question is asked once per trace; its answer (or {error}, a refusal
// in the server's words) goes into the store's `answers` under the question's key, where the panel and the views read
// it, drawn again when it arrives. On the exported offline page (no server) every answer is that it needs the server.
import { api } from "./api.js";

const BUSY_RETRY_MS = 1000;
export const NEEDS_SERVER = "This needs the server (it computes from the model): open the app rather than the exported page.";

// The key a question's answer is kept under: the question itself.
export function keyOf(question) { return JSON.stringify(question); }

export class Answers {
  // `store`: the viewer's store; `online`: a server to ask; `ownModel()`: the key of the model this page trained.
  constructor(store, online, ownModel) {
    this.store = store;
    this.online = online;
    this.ownModel = ownModel;
    this.asking = new Set(); // the keys asked about the trace on screen, not answered yet
    this.about = null; // the trace they are about
  }

  // Asked again (a person pressed the button again): a refusal is not kept, since it may have been a busy server's;
  // an answer is.
  again(question) {
    const s = this.store.get(), key = keyOf(question), answer = s.answers[key];
    if (answer && answer.error) {
      const answers = Object.assign({}, s.answers);
      delete answers[key];
      this.store.set({ answers: answers }, "again");
    }
  }

  // The answer to `question` about the trace on screen, or null while it is asked (asked now if it was not). A busy
  // server's refusal (429: too many at once) is asked again at the next drawing a second or more later.
  get(question) {
    const s = this.store.get(), key = keyOf(question), kept = s.answers[key];
    if (kept && !(kept.busy && Date.now() - kept.busy >= BUSY_RETRY_MS && !this.asking.has(key))) return kept;
    if (!this.online) return { error: NEEDS_SERVER };
    if (this.about !== s.trace) { this.about = s.trace; this.asking.clear(); }
    if (this.asking.has(key)) return null;
    this.asking.add(key);
    const trace = s.trace;
    api.ask(trace.request, question, this.ownModel())
      .catch((error) => Object.assign({ what: question.what, error: error.message }, error.status === 429 ? { busy: Date.now() } : {}))
      .then((answer) => {
        const now = this.store.get();
        if (now.trace !== trace) return; // an answer about a trace no longer on screen
        this.asking.delete(key);
        this.store.set({ answers: Object.assign({}, now.answers, { [key]: answer }) }, "answer");
      });
    return null;
  }
}
