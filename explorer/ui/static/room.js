// room.js: classroom mode (explorer/app/room_api.py). The lecturer presses "Present to class": the room's code, QR
// code and address go on the projector, and every change of the lecturer's view (the sentence and its options, the
// step, kind, layer, head and view, the lesson's stop) goes to the room. A student who opens the address (?room=CODE) follows it live
// over a server-sent event stream, may explore on their own and follow again; nothing a student does reaches the
// class. The lecturer asks the class which source token the shown cross-attention head will attend to most at the
// next step; each student clicks one, the projector counts the answers, and the reveal shows the class's guesses
// beside the actual row, each student's own guess against it, and a running class score on the lecturer's screen.
// A lecturer's reload, second tab or waking laptop drives the room again (its key stays in sessionStorage), and a
// student's page says when the lecturer's page is away and when it is back.
import { VIEW_STATE } from "./store.js";
import { button, el } from "./dom.js";
import { api } from "./api.js";
import { sameDecode, toBody, traceRequest } from "./request.js";
import { headName } from "./trace.js";

const KEY = "ae-room"; // sessionStorage: the lecturer's {code, key, score}, so a reload keeps driving the room

const post = api.room; // (path, body, the lecturer's key)

// The view the room carries: the trace request (its model among its fields), and the view state.
function viewOf(viewer) {
  const s = viewer.state;
  const trace = toBody(Object.assign({}, viewer.trace.request, { model: viewer.modelKey }));
  return { trace: trace, step: s.step, kind: s.kind, layer: s.layer, head: s.head, view: s.view, lesson: s.lesson };
}

export class Room {
  constructor(viewer) {
    this.viewer = viewer;
    this.bar = el("div", "ae-room");
    this.bar.hidden = true;
    this.code = null;
    this.key = null; // the lecturer's secret; null on a student's page
    this.following = true; // a student's page applies the room's view
    this.latest = null; // the room's last view
    this.question = null; // the room's open question
    this.dismissed = null; // the id of the revealed question this student dismissed
    this.guess = null; // this student's answer to it
    this.answeredWith = null; // the token the guess was sent under
    this.score = { right: 0, answers: 0, counted: [] }; // the class over the revealed questions (the lecturer's
    // screen), with the ids of the questions counted: a reload keeps it, and counts no question twice
    this.sending = null;
    this.sent = null; // the JSON of the last view sent: an unchanged view is not sent again
    this.token = null; // a student's answer token, from the stream's first event
    this.adopting = false; // a reloaded lecturer page takes the room's view before it sends its own
    this.lecturer = null; // on a student's page: "away" while no lecturer's page is open on the room, then "back"
    this.unloading = false; // the page is going (a reload): its stream closing says nothing about the room
    const going = () => { this.unloading = true; };
    window.addEventListener("beforeunload", going); // Chromium drops the stream as the reload starts, before pagehide
    window.addEventListener("pagehide", going);
    window.addEventListener("pageshow", () => { this.unloading = false; }); // it stayed (bfcache, a download)
    viewer.store.subscribe((state) => { if (state.trace) this.decorateChips(viewer.f.sourceBox); });
  }

  // On page load: a lecturer's room to drive again, or a room to follow (?room=CODE). True when there is one: the room
  // gives the page its view, not the address (a lecturer's reload or Back would open the address's place, a step
  // behind the room's, and send it to the class).
  start() {
    const code = new URLSearchParams(window.location.search).get("room");
    let mine = null;
    try { mine = JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch (e) { mine = null; }
    if (mine && (!code || code === mine.code)) {
      if (mine.score && Array.isArray(mine.score.counted)) this.score = mine.score; // a page before it kept no score
      this.lead(mine.code, mine.key, true);
    }
    else if (code) this.join(code);
    return Boolean(this.code);
  }

  // ---- the lecturer

  present() {
    if (this.key) return this.showCode(); // one room per lecturer page: pressed again, it shows the code
    return post("", {}).then((made) => {
      this.lead(made.code, made.key);
      this.keep();
    }, (error) => this.viewer.say(error.message));
  }

  // The lecturer's room, its key and the class score, kept for this tab (a reload drives the room again).
  keep() {
    try {
      sessionStorage.setItem(KEY, JSON.stringify({ code: this.code, key: this.key, score: this.score }));
    } catch (e) { /* private mode: this page only */ }
  }

  lead(code, key, resumed) {
    this.code = code;
    this.key = key;
    this.adopting = Boolean(resumed);
    this.viewer.store.subscribe(() => this.send());
    this.listen();
    this.send();
  }

  studentUrl() {
    return window.location.href.split("?")[0].split("#")[0] + "?room=" + this.code;
  }

  // The lecturer's view to the room: the newest only, one request at a time.
  send() {
    if (!this.key || !this.viewer.trace || this.adopting) return;
    const view = viewOf(this.viewer);
    if (JSON.stringify(view) === this.sent) return;
    if (this.sending) { this.queued = view; return; }
    this.sent = JSON.stringify(view);
    this.sending = post("/" + this.code + "/view", view, this.key).catch((error) => this.viewer.say(error.message))
      .finally(() => {
        this.sending = null;
        if (this.queued) { this.queued = null; this.send(); }
      });
  }

  ask() {
    const s = this.viewer.state, t = this.viewer.trace;
    if (s.step >= t.T) return this.viewer.say("The decode is at its last step: go back one step to ask about the next.");
    const [layer, head] = s.kind === "cross" && Number.isInteger(s.head) ? [s.layer, s.head] : t.defaultCross().map((x) => (x === "mean" ? 0 : x));
    this.viewer.select({ view: "heatmap", kind: "cross", layer: layer, head: head }, "room");
    post("/" + this.code + "/question", { step: s.step + 1, layer: layer, head: head, sources: t.S }, this.key)
      .catch((error) => this.viewer.say(error.message));
  }

  // Reveal: the class's guesses, and the step taken, so the heatmap's new row is the answer (the class follows).
  reveal() {
    post("/" + this.code + "/reveal", {}, this.key).then((q) => this.viewer.go(q.step, "room"))
      .catch((error) => this.viewer.say(error.message));
  }

  end() {
    post("/" + this.code + "/end", {}, this.key).catch(() => null);
    try { sessionStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
    this.close();
  }

  // ---- a student

  join(code) {
    this.code = code.toUpperCase();
    // a student who steps or switches on their own explores on their own: the room's next change does not undo it
    // (an answer arriving, or a new trace, changes what is shown without the student: not exploring)
    this.viewer.store.subscribe((state, changed, source) => {
      const moved = changed.some((name) => VIEW_STATE.includes(name));
      if (this.code && this.following && moved && source !== "room" && source !== "trace") this.detach();
    });
    this.listen();
  }

  detach() { this.following = false; this.draw(); }

  follow() {
    this.following = true;
    if (this.latest) this.apply(this.latest);
    this.draw();
  }

  // Take the room's view: the trace first if the sentence or its options changed (from the shared cache), then the
  // state. A lecturer's own page never applies what it sent, except once after a reload (it adopts the room's view).
  apply(view) {
    this.latest = view;
    if (this.key && this.adopting) {
      this.adopting = false;
      this.draw();
      if (!view) return this.send();
    } else if (this.key || !this.following || !view) return;
    const v = this.viewer, state = { step: view.step, kind: view.kind, layer: view.layer, head: view.head, view: view.view, lesson: view.lesson || null };
    const request = traceRequest(view.trace);
    const same = v.trace && sameDecode(v.trace.request, request);
    if (same) v.select(state, "room");
    else {
      v.requestTrace(request, { byRoom: true, opensAt: { sentence: request.sentence, view: state } });
    }
  }

  // A student leaves the class's view by a trace of their own (a sentence, a candidate, a head off, a hypothesis).
  explore() {
    if (this.code && !this.key && this.following) this.detach();
  }

  // ---- companion hooks (companions.js)

  tools(online) {
    return online ? [button("Present to class", "A room the class follows live: its code and QR code for the projector", () => this.present())] : [];
  }

  loading() { this.draw(); } // a question is about one trace: the room bar says whether it is this one

  // Is the trace on screen the one question `q` is about?
  onScreen(q) {
    const t = this.viewer.trace;
    if (!q || !t || !q.trace) return false;
    return sameDecode(t.request, traceRequest(q.trace)) && q.step <= t.T;
  }

  answer(j) {
    const q = this.question;
    if (!q || q.revealed || this.guess !== null || this.key || !this.onScreen(q)) return false;
    this.guess = j;
    this.sendGuess(q, null);
    this.draw();
    return true;
  }

  // The guess, under this stream's token; `previous`: the token it was counted under before the stream reconnected
  // (the server moves it). Refused, the page forgets the guess and says why, unless the stream or the question has
  // moved on meanwhile.
  sendGuess(q, previous) {
    const token = this.answeredWith = this.token; // named as `previous` if the stream reconnects, sent or not
    post("/" + this.code + "/answer", { question: q.id, pick: this.guess, token: token, previous: previous })
      .catch((error) => {
        if (this.token !== token) return; // reconnected meanwhile: `answerAgain` sent it under the new token
        if (!this.question || this.question.id !== q.id) return; // about a question gone: the guess is the new one's
        this.guess = null;
        this.viewer.say(error.message);
      }).finally(() => this.draw());
  }

  // A page that reconnected has a new token: its guess moves to it (its old token's answer counted meanwhile).
  answerAgain() {
    const q = this.question;
    if (q && !q.revealed && this.guess !== null && !this.key) this.sendGuess(q, this.answeredWith || null);
  }

  // ---- both: the room's events

  listen() {
    if (this.source) this.source.close();
    this.source = api.roomEvents(this.code, this.key); // with the key, the lecturer's page is not counted
    const on = (name, handle) => this.source.addEventListener(name, (e) => { handle(JSON.parse(e.data)); this.draw(); });
    on("state", (state) => {
      this.count = state.following;
      const again = state.token && this.token && state.token !== this.token; // reconnected: a new answer token
      if (state.token) this.token = state.token;
      if (state.lecturer === false) this.lecturer = "away";
      else if (this.lecturer === "away") this.lecturerBack();
      this.setQuestion(state.question);
      if (again) this.answerAgain();
      this.apply(state.view);
    });
    on("view", (view) => this.apply(view));
    on("following", (data) => { this.count = data.following; });
    on("lecturer", (data) => {
      if (!data.present) this.lecturer = "away";
      else if (this.lecturer === "away") this.lecturerBack();
    });
    on("question", (q) => this.setQuestion(q));
    on("answered", (data) => { if (this.question && this.question.id === data.id) this.question.answered = data.answered; });
    on("end", () => { const code = this.code; this.close(); this.viewer.say("The lecturer ended room " + code + "."); });
    this.source.onerror = () => { // EventSource retries by itself, except after a refusal (no room, a full room)
      if (this.unloading) return; // a reload: the lecturer's key stays for the page that comes back
      if (this.source && this.source.readyState === EventSource.CLOSED) {
        const code = this.code;
        window.setTimeout(() => { // a refusal, unless the page turns out to be going (then the key stays)
          if (this.unloading || this.code !== code) return;
          if (this.key) try { sessionStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
          this.close();
          this.viewer.say("Room " + code + " cannot be followed: it has ended, the server restarted, or it is full.");
        }, 1000);
      } else {
        this.error = "reconnecting…";
        this.draw();
      }
    };
    this.source.onopen = () => { this.error = null; this.draw(); };
    this.draw();
  }

  // "The lecturer is back", said for a few seconds, then the bar as it was.
  lecturerBack() {
    this.lecturer = "back";
    window.clearTimeout(this.backTimer);
    this.backTimer = window.setTimeout(() => { if (this.lecturer === "back") { this.lecturer = null; this.draw(); } }, 6000);
  }

  setQuestion(q) {
    if (q && (!this.question || this.question.id !== q.id)) this.guess = null;
    if (q && q.revealed && this.key && this.onScreen(q) && !this.score.counted.includes(q.id)) {
      const row = this.row(q), best = row.indexOf(Math.max(...row)); // the class's running score
      this.score.right += q.counts[best];
      this.score.answers += q.answered;
      this.score.counted.push(q.id);
      this.keep();
    }
    this.question = q;
    this.viewer.refresh();
  }

  close() {
    if (this.source) this.source.close();
    this.source = null;
    this.code = this.key = this.question = null;
    this.bar.hidden = true;
  }

  // The head's actual row at the question's step, from the trace on screen.
  row(q) {
    return this.viewer.trace.weights("cross", q.layer, q.head, q.step)[q.step - 1];
  }

  // Source chips as answers while a question is open (a student's page).
  decorateChips(box) {
    const q = this.question;
    if (!q || this.key || q.revealed || !this.onScreen(q)) return;
    Array.from(box.children).forEach((chip, j) => {
      chip.classList.add("ae-room-choice");
      chip.classList.toggle("ae-room-guess", j === this.guess);
      chip.dataset.index = j;
    });
  }

  // ---- the room bar

  draw() {
    this.bar.hidden = !this.code;
    if (!this.code) return;
    const parts = [el("b", "ae-room-code", "Room " + this.code)];
    if (this.key && this.adopting) { // a reload: it drives the room once it has taken the room's view (`apply`)
      parts.push(el("span", "ae-room-count", "rejoining as the lecturer…"));
    } else if (this.key) {
      parts.push(el("span", "ae-room-count", (this.count || 0) + " following"),
        button("Show code", "The code, the address and a QR code, large, for the projector", () => this.showCode()),
        button("Ask the class", "Which source token will the shown cross-attention head attend to most at the next step?", () => this.ask()),
        button("Reveal", "Show the class's guesses beside the head's actual row", () => this.reveal()),
        button("End room", "Close the room: the students' pages stop following", () => this.end()));
      if (this.score.answers) {
        parts.push(el("span", "ae-room-score", "Class score: " + this.score.right + " of " + this.score.answers + " right"));
      }
    } else {
      // following once its stream has given it its token (the room's state): until then it is joining
      const how = !this.following ? "exploring on your own" : this.token ? "following the lecturer" : "joining the room…";
      parts.push(el("span", "ae-room-count", how));
      if (this.lecturer === "away") {
        parts.push(el("span", "ae-room-lecturer ae-room-note", "the lecturer's page is away: this view waits for it " +
          "(a reload or a sleeping laptop comes back on its own)"));
      } else if (this.lecturer === "back") parts.push(el("span", "ae-room-lecturer", "the lecturer is back"));
      parts.push(
        this.following ? button("Explore on my own", "Stop following; the class is not affected", () => this.detach())
          : button("Follow again", "Back to the lecturer's view", () => this.follow(), "ae-primary"));
    }
    if (this.error) parts.push(el("span", "ae-room-note", this.error));
    const q = this.question;
    if (q && this.shows(q)) parts.push(this.questionPart(q));
    this.bar.replaceChildren(...parts);
  }

  // Whether question `q` stays on this page: a student's revealed question leaves at the next sentence (it is about
  // one no longer on screen) or when dismissed; the next question replaces it. The lecturer's stays, as the record.
  shows(q) {
    if (this.key || !q.revealed) return true;
    return this.onScreen(q) && this.dismissed !== q.id;
  }

  questionPart(q) {
    const box = el("div", "ae-room-question");
    const trace = this.viewer.trace, tokens = trace.sourceTokens;
    box.appendChild(el("div", "ae-room-ask", "Class question " + q.id + " · " + headName(q.layer, q.head) +
      ": which source token will step " + q.step + " attend to most? " + q.answered + " answered."));
    if (!this.onScreen(q)) {
      const about = q.trace ? "“" + q.trace.sentence + "”" : "the lecturer's sentence";
      box.appendChild(el("div", "ae-room-note", "This question is about " + about + (this.key ? ": translate it again to " +
        "see the answer." : ": follow again to answer and see it.")));
      return box;
    }
    if (!q.revealed) {
      box.appendChild(el("div", "ae-room-note", this.key ? "Students click a source token; press Reveal when ready." :
        this.guess === null ? "Click it in Source." : "Your guess: “" + tokens[this.guess] + "”. Wait for the reveal."));
      return box;
    }
    const row = this.row(q), best = row.indexOf(Math.max(...row)), peak = Math.max(1, ...q.counts);
    const table = el("div", "ae-room-histogram");
    tokens.forEach((token, j) => {
      const bar = el("div", "ae-room-bar" + (j === best ? " ae-room-best" : "") + (j === this.guess ? " ae-room-mine" : ""));
      const meter = (className, share, text) => {
        const track = el("span", "ae-room-track " + className), fill = el("span", "ae-room-fill");
        fill.style.width = (100 * share).toFixed(1) + "%";
        track.append(fill, el("span", "ae-room-value", text));
        return track;
      };
      bar.append(el("span", "ae-room-token", token), meter("ae-room-guesses", q.counts[j] / peak, String(q.counts[j])),
        meter("ae-room-weight", row[j], row[j].toFixed(2)));
      table.appendChild(bar);
    });
    if (!this.key) {
      box.appendChild(button("✕ Dismiss", "Hide this answer (the next question shows on its own)", () => {
        this.dismissed = q.id;
        this.draw();
      }, "ae-room-dismiss"));
    }
    box.append(el("div", "ae-room-note", "The class's guesses (blue) beside the head's weights (orange); the head looked most at “" +
      tokens[best] + "”." + (this.key || this.guess === null ? "" : this.guess === best ? " Your guess was right." :
        " Your guess, “" + tokens[this.guess] + "”, got weight " + row[this.guess].toFixed(2) + ".")), table);
    return box;
  }

  showCode() {
    const overlay = el("div", "ae-room-overlay");
    const url = this.studentUrl();
    const qr = document.createElement("img");
    qr.alt = "QR code of " + url;
    qr.src = api.roomQrUrl(this.code, url);
    overlay.append(el("div", "ae-room-big", this.code), qr, el("div", "ae-room-url", url),
      button("Close", "Back to the viewer", () => overlay.remove(), "ae-primary"));
    overlay.addEventListener("click", (e) => { if (e.target === overlay) overlay.remove(); });
    document.body.appendChild(overlay);
  }
}
