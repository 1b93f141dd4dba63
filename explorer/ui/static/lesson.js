// lesson.js: a guided lesson through the model on the sentence on screen, in twelve stops (word pieces, embeddings
// and positions, encoder self-attention, the decoder's start, the look-ahead mask, cross-attention, query, key and
// value, the weighted sum of the values, the next-token choice, many heads, the layers, your turn). Each stop sets the view through the viewer's store (so a deep link
// names it, `lesson=N`, and a class in a room follows it) and says two or three sentences built from the numbers of
// this trace: the tokens, the weights and the probabilities the server sent, never a generic example. → and ←
// move through the stops while the lesson is open; Esc or "Close" ends it.
import { ARROW, headName } from "./trace.js";
import { button, el } from "./dom.js";
import { lensOf } from "./lens.js";
import { rolesFor } from "./roles.js";

const KIND_NAMES = { encoder_self: "encoder", decoder_self: "decoder self-attention", cross: "cross-attention" };

const w2 = (x) => x.toFixed(2);
const pct = (p) => (100 * p).toFixed(1) + "%";
const quote = (token) => "“" + token + "”";

function argmax(row) {
  let best = 0;
  row.forEach((v, j) => { if (v !== null && v > row[best]) best = j; });
  return best;
}

// The step whose cross-attention row (of `layer`, `head`) is most peaked: the clearest alignment of this sentence.
function clearestStep(trace, layer, head) {
  let best = { step: 1, j: 0, weight: -1 };
  for (let t = 1; t <= trace.T; t++) {
    const row = trace.weights("cross", layer, head, t)[t - 1];
    const j = argmax(row);
    const isEnd = trace.targetTokens[t - 1] === "</s>" || trace.sourceTokens[j] === "</s>";
    if (!isEnd && row[j] > best.weight) best = { step: t, j: j, weight: row[j] };
  }
  return best;
}

// The stop's last sentence: against a hand alignment of the sentence, where there is one (explorer/app/gold.py).
function goldSentence(t, layer, head) {
  const aer = t.goldAer(layer, head);
  if (aer !== null) {
    return "The outlines are the links a person aligned by hand: " + headName(layer, head) + "'s alignment error " +
      "rate (AER) on this sentence is " + aer.toFixed(2) + " (0: exactly the gold links).";
  }
  if (t.gold) return "This sentence is aligned by hand: press G to decode its gold translation and see the links outlined.";
  return "Read down the rows: where a head's weight follows the words' correspondence, attention is an alignment.";
}

// What the heads do, over many sentences rather than this one: the roles the server measured on its probe set, one
// example of each role found (a head's chip says it on the head buttons and the All heads tiles).
function rolesSaid(t, ask) {
  const answer = rolesFor(t, ask);
  if (!answer) return "… (asking the server what each head does over many sentences)";
  if (answer.error) return "";
  const seen = new Map();
  for (const h of answer.heads) if (h.role && !seen.has(h.role)) seen.set(h.role, h);
  const unlabelled = answer.heads.filter((h) => !h.role).length;
  if (!seen.size) return "Measured over " + answer.probe + " sentences, no head of this model has a clear role: each mixes several.";
  return "Over " + answer.probe + " sentences, heads take roles: " + [...seen.values()].map((h) =>
    KIND_NAMES[h.kind] + " " + headName(h.layer, h.head) + ", " + h.says).join("; ") + ". " + unlabelled + " of the " +
    answer.heads.length + " heads have none that the data supports (Voita et al. 2019 found that the heads that matter " +
    "are the ones with a role).";
}

// The word each piece belongs to: a piece that continues a word ("·st", the tokenizer's mark) joins the one before.
export function wordsOf(pieces) {
  let word = -1;
  return pieces.map((p, i) => (i > 0 && p.startsWith("·") ? word : ++word));
}

// The strongest weight between two pieces of different source words in any encoder head (</s> left out): two pieces
// of one word attending to each other is the tokenizer's split, not a link between words.
export function strongestEncoderLink(trace) {
  let best = { layer: 0, head: 0, i: 0, j: 0, weight: -1 };
  const words = wordsOf(trace.sourceTokens);
  for (let layer = 0; layer < trace.nLayers("encoder_self"); layer++) {
    for (let head = 0; head < trace.H; head++) {
      trace.head("encoder_self", layer, head, 0).forEach((row, i) => row.forEach((v, j) => {
        const plain = words[i] !== words[j] && trace.sourceTokens[i] !== "</s>" && trace.sourceTokens[j] !== "</s>";
        if (plain && v > best.weight) best = { layer: layer, head: head, i: i, j: j, weight: v };
      }));
    }
  }
  return best;
}

// The first decoder layer whose logit lens ranks the chosen token first at `step` ("no layer": none does); the lens
// is asked for (`ask`) when the trace does not hold it yet, and the stop is said again when it arrives.
function decidedAt(trace, step, ask) {
  const lens = lensOf(trace, ask);
  if (!lens) return "… (asking the server)";
  if (lens.error) return "not known here (" + lens.error + ")";
  const id = trace.steps[step - 1].id;
  const layer = lens.top_ids.findIndex((layerIds) => layerIds[step - 1][0] === id);
  return layer < 0 ? "no layer (it was sampled or forced)" : "layer " + layer;
}

// Why the softmax makes a score gap a landslide: weights are e^score over their sum, so a gap of d in score is a
// factor e^d in weight ("10.57 against 3.49: e^7.08 ≈ 1,190 times the weight").
export function softmaxGap(scores, weights, order, tokens) {
  if (order.length < 2) return "";
  const [a, b] = order, gap = scores[a] - scores[b], factor = Math.exp(gap);
  const times = factor < 10 ? factor.toFixed(1) : Math.round(factor).toLocaleString("en-US");
  return "Why so lopsided: each weight is e^score divided by the sum of them all, so the gap of " + w2(scores[a]) +
    " − " + w2(scores[b]) + " = " + w2(gap) + " in score makes the weight of " + quote(tokens[a]) + " e^" + w2(gap) +
    " ≈ " + times + " times that of " + quote(tokens[b]) + ": " + w2(weights[a]) + " against " + w2(weights[b]) + ".";
}

const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const norm = (a) => Math.sqrt(dot(a, a));

// The lesson head's tensors for the query of its clearest step (the question the view "Value path" asks there, so
// the view and the stops share one answer): {step, answer}, the answer null while it is asked.
function headTensors(t, ask) {
  const [layer, head] = lessonHead(t);
  const step = clearestStep(t, layer, head).step;
  return { step: step, answer: ask({ what: "value_path", kind: "cross", layer: layer, head: head, row: step - 1 }) };
}

// The lesson's cross-attention head: the model's best-aligning one, else the last layer's head 0.
function lessonHead(trace) {
  const [layer, head] = trace.defaultCross();
  return [layer, head === "mean" ? 0 : head];
}

// Each stop: its title, the view it sets (`view(trace)`, merged into the store) and its sentences (`say(trace,
// state, ask)`: an array of strings, each built from this trace's numbers; `ask(question)` is the viewer's answer
// to a question about the trace, null while it is asked).
export const STOPS = [
  {
    title: "The sentence as word pieces",
    view: () => ({ view: "heatmap", kind: "encoder_self", layer: 0, head: "mean", step: 0 }),
    say(t) {
      const pieces = t.sourceTokens;
      const split = pieces.filter((p) => p.startsWith("·")); // a piece that continues a word (the tokenizer's mark)
      return [
        "The model never reads words. Your sentence is " + (pieces.length - 1) + " word pieces, and " +
          quote("</s>") + " closes it: " + pieces.map(quote).join(" ") + ".",
        "Each piece is a number in a vocabulary the tokenizer learned: " + quote(pieces[0]) + " is id " +
          t.wire.source_ids[0] + ". " + (split.length
            ? "A word the vocabulary lacks is cut into pieces: " + split.map(quote).join(", ") +
              (split.length === 1 ? " continues the word before it (“·”)." : " continue the word before them (“·”).")
            : "Every word here is one piece of the vocabulary: none had to be cut."),
        "The grid on the right has one row and one column per piece: the " + pieces.length + " × " + pieces.length +
          " encoder self-attention of layer 0.",
      ];
    },
  },
  {
    title: "Embeddings plus the positional encoding",
    view: () => ({ view: "heatmap", kind: "encoder_self", layer: 0, head: "mean", step: 0 }),
    say(t) {
      const d = t.model.n_heads * t.model.d_head;
      return [
        "Each piece's id picks one row of the embedding table: a vector of d_model = " + d + " numbers. On its own it " +
          "says what the piece is, not where it stands.",
        "So the model adds the positional encoding PE(pos), the same sine and cosine waves for every sentence: " +
          quote(t.sourceTokens[0]) + " gets PE(0), " + quote(t.sourceTokens[t.S - 1]) + " gets PE(" + (t.S - 1) + "). " +
          "Attention itself ignores order; these waves are the only way the model knows it (the Positional encoding tab " +
          "draws them; the view “No positions” takes them away).",
      ];
    },
  },
  {
    title: "Encoder self-attention",
    view(t) {
      const link = strongestEncoderLink(t);
      return { view: "heatmap", kind: "encoder_self", layer: link.layer, head: link.head, step: 0 };
    },
    say(t) {
      const link = strongestEncoderLink(t);
      return [
        "Every piece asks every other piece of the source how much it matters to it, in " + t.nLayers("encoder_self") +
          " layers of " + t.H + " heads. A row of the grid is one piece's question; it sums to 1.",
        "In " + headName(link.layer, link.head) + ", " + quote(t.sourceTokens[link.i]) + " puts " + w2(link.weight) +
          " of its weight on " + quote(t.sourceTokens[link.j]) + ": the strongest link between two words in this sentence.",
      ];
    },
  },
  {
    title: "The decoder starts from <s>",
    view: () => ({ view: "heatmap", kind: "decoder_self", layer: 0, head: 0, step: 1 }),
    say(t) {
      const first = t.steps[0];
      return [
        "The decoder writes the " + t.targetLanguage + " one piece at a time. At step 1 its only input is " + quote("<s>") + " (start), and " +
          "it writes " + quote(first.token) + " with probability " + pct(first.prob) + ".",
        "Each step appends the piece just written to the decoder's input: at step 2 it reads " + quote("<s>") + " and " +
          quote(first.token) + ". This sentence took " + t.T + " steps and " +
          (t.wire.finished === "eos" ? "ended when the model wrote </s>." : "stopped at the length limit."),
      ];
    },
  },
  {
    title: "The look-ahead mask",
    view: (t) => ({ view: "mask", kind: "decoder_self", layer: 0, head: 0, step: Math.min(3, t.T) }),
    say(t, s) {
      const step = Math.max(2, Math.min(s.step, t.T));
      if (t.T < 2) return ["This translation has one step only: the mask has nothing to hide. Try a longer sentence."];
      const scores = t.scoresAt(0, 0, step);
      const inputs = t.decoderInputTokens;
      return [
        "Training shows the decoder the whole " + t.targetLanguage + " sentence at once, so it must not peek at the pieces it has not " +
          "written yet. Before the softmax, every score of a later position is set to −∞.",
        "Row " + quote(inputs[0] + ARROW + t.targetTokens[0]) + " scores the next input " + quote(inputs[1]) + " at " +
          w2(scores[0][1]) + " (" + headName(0, 0) + "), but the mask makes that −∞, so its weight is exactly 0; the row's " +
          "only visible key, " + quote(inputs[0]) + ", gets weight " + w2(t.head("decoder_self", 0, 0, step)[0][0]) + ".",
        "The three grids: the scores q·k/√d_k, the mask, the weights after the softmax. The view “Without the mask” " +
          "shows a model trained without it.",
      ];
    },
  },
  {
    title: "Cross-attention as alignment",
    view(t) {
      const [layer, head] = lessonHead(t);
      return { view: "heatmap", kind: "cross", layer: layer, head: head, step: clearestStep(t, layer, head).step };
    },
    say(t) {
      const [layer, head] = lessonHead(t);
      const c = clearestStep(t, layer, head);
      return [
        "Cross-attention is where the decoder reads the source: the query comes from the decoder (the " +
          t.targetLanguage + " written so far), the keys and the values from the encoder (its output for every " +
          t.sourceLanguage + " piece), so each " + t.targetLanguage + " step asks every " + t.sourceLanguage + " piece.",
        "At step " + c.step + " the decoder writes " + quote(t.targetTokens[c.step - 1]) + "; " + headName(layer, head) +
          " puts " + w2(c.weight) + " of its weight on " + quote(t.sourceTokens[c.j]) + ".",
        goldSentence(t, layer, head),
      ];
    },
  },
  {
    title: "Query, key and value",
    view(t) {
      const [layer, head] = lessonHead(t);
      return { view: "heatmap", kind: "cross", layer: layer, head: head, step: clearestStep(t, layer, head).step };
    },
    say(t, s, ask) {
      const [layer, head] = lessonHead(t);
      const { step, answer } = headTensors(t, ask);
      const intro = "Where does a weight come from? From each piece's vector, three learned matrices make a query (what " +
        "this position is looking for), a key (what a piece offers to be found by) and a value (what a piece passes on).";
      if (!answer) return [intro, "… (asking the server for this head's queries and keys)"];
      if (answer.error) return [intro, "Not known here (" + answer.error + ")."];
      const scores = answer.keys.map((k) => dot(answer.query, k) / Math.sqrt(answer.d_head));
      const order = scores.map((_, j) => j).sort((a, b) => scores[b] - scores[a]).slice(0, 2);
      return [
        intro + " In " + headName(layer, head) + " each is d_k = " + answer.d_head + " numbers.",
        "At step " + step + " the query that writes " + quote(t.targetTokens[step - 1]) + " meets the key of every " + t.sourceLanguage + " " +
          "piece: q·k/√d_k = " + order.map((j) => w2(scores[j]) + " for " + quote(answer.key_tokens[j])).join(", ") +
          ". The softmax turns the scores into the weights of the heatmap: " + w2(answer.weights[order[0]]) + " on " +
          quote(answer.key_tokens[order[0]]) + ".",
        softmaxGap(scores, answer.weights, order, answer.key_tokens),
        "Click any cell of the heatmap to see this arithmetic for that weight: q, k, the whole row's scores and the " +
          "softmax's denominator.",
      ];
    },
  },
  {
    title: "The weighted sum of the values",
    view(t) { // the heatmap, not the value path: that view's labels overlap in presentation mode (issue 50)
      const [layer, head] = lessonHead(t);
      return { view: "heatmap", kind: "cross", layer: layer, head: head, step: clearestStep(t, layer, head).step };
    },
    say(t, s, ask) {
      const { step, answer } = headTensors(t, ask);
      const intro = "The weights say where to look; what the head passes on is the weighted sum of the values, " +
        "z = Σ w·v.";
      if (!answer) return [intro, "… (asking the server for this head's values)"];
      if (answer.error) return [intro, "Not known here (" + answer.error + ")."];
      const j = argmax(answer.weights), v = answer.values[j], z = answer.z;
      return [
        intro + " Here z is d_k = " + answer.d_head + " numbers, a mix of the values of the pieces the query looks at.",
        "At step " + step + ", " + quote(answer.key_tokens[j]) + " has weight " + w2(answer.weights[j]) + ", so z is " +
          "mostly its value: |z| = " + w2(norm(z)) + " against |v| = " + w2(norm(v)) + ", cosine " +
          w2(dot(z, v) / (norm(z) * norm(v))) + ".",
        "Every head's z is put side by side (" + t.H + " × " + answer.d_head + " = " + answer.d_model + " numbers), " +
          "projected back by the output matrix and added to the residual stream. The view “Value path” (View row) " +
          "draws each of these vectors, left to right, for the head and step on screen.",
      ];
    },
  },
  {
    title: "The next token: a distribution, then a choice",
    view(t) {
      const [layer, head] = lessonHead(t);
      return { view: "heatmap", kind: "cross", layer: layer, head: head, step: clearestStep(t, layer, head).step };
    },
    say(t, s) {
      const step = Math.max(1, s.step);
      const top = t.steps[step - 1].top.slice(0, 3);
      const chosen = t.steps[step - 1];
      const beam = t.request.strategy === "beam";
      return [
        "After the last layer, the decoder gives every piece of the vocabulary a probability. At step " + step + " the best " +
          "were " + top.map((c) => quote(c.token) + " " + pct(c.prob)).join(", ") + " (the bars on the left).",
        beam
          ? "Beam search kept the " + t.request.beam_size + " best partial translations at every step instead of one; the best " +
            "finished one, " + quote(t.wire.beams[0].text) + ", scored " + t.wire.beams[0].score.toFixed(2) + "."
          : "Greedy decoding takes the most probable one: " + quote(chosen.token) + ". Beam search would keep several " +
            "candidates alive (Decoding ▾); click a bar to force another piece and see the model go on from it.",
      ];
    },
  },
  {
    title: "Many heads, different patterns",
    view(t, s) {
      return { view: "heatmap", kind: "cross", layer: t.nLayers("cross") - 1, head: "all", step: Math.max(1, s.step) };
    },
    say(t, s, ask) {
      const step = Math.max(1, s.step), layer = t.nLayers("cross") - 1;
      const looks = [...Array(t.H).keys()].map((h) => {
        const row = t.head("cross", layer, h, step)[step - 1];
        const j = argmax(row);
        return "H" + h + " → " + quote(t.sourceTokens[j]) + " " + w2(row[j]);
      });
      return [
        "Each layer has " + t.H + " heads, each with its own queries and keys, so each can look somewhere else.",
        "At step " + step + ", writing " + quote(t.targetTokens[step - 1]) + ", the heads of cross-attention layer " + layer +
          " look most at: " + looks.join("; ") + ".",
        rolesSaid(t, ask),
      ];
    },
  },
  {
    title: "The layers",
    view(t, s) {
      return { view: "heatmap", kind: "cross", layer: t.nLayers("cross") - 1, head: "mean", step: Math.max(1, s.step) };
    },
    say(t, s, ask) {
      const step = Math.max(1, s.step);
      const per = [...Array(t.nLayers("cross")).keys()].map((layer) => {
        const row = t.meanOfHeads("cross", layer, step)[step - 1];
        const j = argmax(row);
        return "layer " + layer + ": " + quote(t.sourceTokens[j]) + " " + w2(row[j]);
      });
      return [
        "The decoder stacks " + t.nLayers("cross") + " layers; each reads the source again with what the layers below made " +
          "of the " + t.targetLanguage + " so far.",
        "At step " + step + " the mean of the heads looks most at " + per.join(", ") + " (L cycles the layers).",
        "The view “Logit lens” reads every decoder layer as if it were the last: at step " + step + ", the layer from which " +
          quote(t.targetTokens[step - 1]) + " leads is " + decidedAt(t, step, ask) + ".",
      ];
    },
  },
  {
    title: "Now try it yourself",
    view: () => ({}),
    say(t) {
      return [
        "Type your own sentence and press Enter; → steps through its " + "translation as you did through " +
          quote(t.wire.outputs[t.T]) + ".",
        "Click a cell to see how its weight is computed, press Quiz to guess where a head will look, or switch a head " +
          "off in the Head ablation tab and watch the translation change.",
      ];
    },
  },
];

const SEEN = "ae-lesson-pointed"; // localStorage: this browser was pointed to the lesson once (started or dismissed)

export class Lesson {
  constructor(viewer) {
    this.viewer = viewer;
    this.bar = el("div", "ae-lesson");
    this.bar.hidden = true;
    this.hint = this.pointer(); // the first visit's pointer to the lesson (a student alone needs a start)
    viewer.store.subscribe((state) => { if (state.trace) this.shown(state); });
  }

  // Beside the Lesson button on a browser's first visit (not in presentation mode, not in a room): where to start,
  // and the button that starts. In the tools row, so it moves nothing a lecturer has found.
  pointer() {
    const box = el("span", "ae-first-visit");
    const following = new URLSearchParams(window.location.search).has("room");
    let seen = true;
    try { seen = window.localStorage.getItem(SEEN) === "1"; } catch (e) { seen = true; }
    box.hidden = !this.viewer.online || following || seen;
    const done = () => {
      box.hidden = true;
      try { window.localStorage.setItem(SEEN, "1"); } catch (e) { /* private mode: shown again next time */ }
    };
    box.title = "The lesson walks through this sentence in " + STOPS.length + " stops, from its word pieces to " +
      "attention and the layers, each with this sentence's own numbers.";
    box.append(
      el("span", "", "New to Transformers?"),
      button("Start here", "Open the lesson's first stop (→ ← move through the stops)", () => { done(); this.go(1); }, "ae-primary"),
      button("✕", "Hide this for good", done));
    this.pointed = done;
    return box;
  }

  // Open the lesson at its first stop, or close it.
  toggle() {
    if (this.viewer.state.lesson) this.close();
    else this.go(1);
  }

  // Stop n (1..STOPS.length): its view, through the store.
  go(n) {
    const v = this.viewer, t = v.trace;
    if (!t || n < 1 || n > STOPS.length) return;
    v.player.stop();
    if (!v.state.lesson) v.bringIntoView(".ae-lesson"); // opening: in the window once drawn
    v.select(Object.assign({ lesson: n, panel: null }, STOPS[n - 1].view(t, v.state)), "lesson");
  }

  move(delta) { this.go(this.viewer.state.lesson + delta); }

  close() { this.viewer.select({ lesson: null }, "lesson"); }

  // The lesson's bar for the state shown (`state.trace`).
  shown(state) {
    if (state.lesson && !this.hint.hidden) this.pointed(); // the lesson found another way: no more pointing
    this.draw(state.trace, state);
  }

  // ---- companion hooks (companions.js)

  tools() {
    return [button("Lesson", "A guided lesson through the model on this sentence, in " + STOPS.length + " stops (→ ← move)", () => this.toggle()), this.hint];
  }

  clamp(s) { // null, a stop number, or what a link typed
    const stop = Number(s.lesson);
    s.lesson = Number.isInteger(stop) && stop >= 1 ? Math.min(STOPS.length, stop) : null;
    return s;
  }

  opened(link) { // a link that names a stop and no step: the stop sets its own view; a stop the lesson lacks is named
    if (!link || typeof link.lesson !== "number") return; // none (a room's view says null)
    const n = STOPS.length, stop = Math.min(n, Math.max(1, link.lesson));
    if (link.lesson !== stop) {
      const v = this.viewer, before = v.f.message.hidden ? "" : v.f.message.textContent + " ";
      v.say(before + "This link asks for lesson stop " + link.lesson + ", and the lesson has " + n + " stops (1–" + n +
        "): it opens at stop " + stop + ".");
    }
    if (link.step === undefined || link.lesson !== stop) this.go(stop);
  }

  onKey(key) { // → and ← move through the stops while the lesson is open; Esc closes it once no panel is open
    const s = this.viewer.state;
    if (!s.lesson) return false;
    if (key === "ArrowRight" || key === "PageDown") this.move(1);
    else if (key === "ArrowLeft" || key === "PageUp") this.move(-1);
    else if (key === "Escape" && !s.panel) this.close();
    else return false;
    return true;
  }

  draw(t, s) {
    this.bar.hidden = !s.lesson;
    if (!s.lesson) return;
    const stop = STOPS[s.lesson - 1];
    const head = el("div", "ae-lesson-head");
    head.append(
      el("span", "ae-lesson-title", "Lesson " + s.lesson + " / " + STOPS.length + " · " + stop.title),
      button("◀", "Previous stop (←)", () => this.move(-1)),
      button("▶", "Next stop (→)", () => this.move(1), "ae-primary"),
      button("Close", "Close the lesson (Esc)", () => this.close()));
    head.children[1].disabled = s.lesson === 1;
    head.children[2].disabled = s.lesson === STOPS.length;
    const text = el("div", "ae-lesson-text");
    stop.say(t, s, (question) => this.viewer.answers.get(question)).forEach((sentence) => text.appendChild(el("p", "", sentence)));
    this.bar.replaceChildren(head, text);
  }
}
