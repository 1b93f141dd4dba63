// ask.js: questions the viewer sends to the server about the trace it shows (explorer/app/probes.py) and the
// answers routed back to whoever asked. One question of each kind is awaited at a time: a newer one
// replaces it, and a late answer to a replaced question is dropped.
(function (AE) {
  "use strict";

  function Asker(send) {
    this.send = send; // (request, question) -> raises the server event; null where there is no server
    this.next = 1;
    this.waiting = {}; // what -> {id, done}
  }

  // Ask `question` ({what, ...}) about `request`; done(answer) runs when its answer arrives.
  Asker.prototype.ask = function (request, question, done) {
    if (!this.send) return false;
    const id = this.next++;
    this.waiting[question.what] = { id: id, done: done };
    this.send(request, Object.assign({ id: id }, question));
    return true;
  };

  Asker.prototype.receive = function (answer) {
    if (!answer || !answer.what) return;
    const waiting = this.waiting[answer.what];
    if (!waiting || waiting.id !== answer.id) return; // replaced by a newer question
    delete this.waiting[answer.what];
    waiting.done(answer);
  };

  AE.Asker = Asker;
})((window.AttentionExplorer = window.AttentionExplorer || {}));
