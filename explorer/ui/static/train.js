// train.js: the Train tab's run, through the API like everything else. Train posts the form (POST /ae/api/train,
// with the chosen file's upload id from the upload tab), the run's state streams back (GET /ae/api/train/{run}/events)
// and is drawn here: its message and progress, the loss curve and the attention snapshot (drawn from the run's numbers
// with plotly.js, like every chart of the viewer), the checkpoint's download. Stop asks the server to stop the run.
// The trained model's key (`trained`) becomes the page's own model, which "Explore my trained model" traces with
// (main.js translateForm). The stream ends with the tab's mount.
import { COLORS } from "./colors.js";
import { api } from "./api.js";
import { el, escape, fontSize } from "./dom.js";
import { layout, react, tokenAxis } from "./plot.js";

class Train {
  // Build the run's parts in `element` (tabs.js: the context).
  constructor(element, context) {
    this.context = context;
    this.run = null; // the run this page follows: {id, source}
    this.trained = { key: null, name: null }; // the model this page trained, once its run is done
    this.message = el("div", "ae-train-message", "Choose the data, the model's size and how long, then press Train.");
    this.message.id = "train-message";
    this.message.setAttribute("role", "status");
    this.progress = el("progress", "ae-train-progress");
    this.progress.max = 1;
    this.progress.value = 0;
    this.loss = el("div", "ae-plot ae-train-chart");
    this.loss.id = "train-loss";
    this.snapshot = el("div", "ae-plot ae-train-chart");
    this.snapshot.id = "train-snapshot";
    this.download = el("a", "ae-train-download", "Download the trained checkpoint (.zip)");
    this.download.id = "train-download";
    this.download.hidden = true;
    const charts = el("div", "ae-train-charts");
    charts.append(this.loss, this.snapshot);
    element.replaceChildren(this.message, this.progress, charts, this.download);
    context.signal.addEventListener("abort", () => this.close());
  }

  // Say `text` in the Train tab's message line (also where "Explore my trained model" is refused).
  say(text) { this.message.textContent = text; }

  // The Train button ({corpus, preset, minutes, seed}, the Train tab's values by name).
  start(values) {
    if (this.run && this.run.source) return this.say("This page is already training a model: wait for it, or press Stop.");
    this.say("Starting…");
    const upload = this.context.tab("upload");
    return (upload ? upload.chosen() : Promise.resolve(""))
      .then((file) => api.train({
        corpus: values.corpus, upload: values.corpus === "upload" ? file : "", preset: values.preset,
        minutes: values.minutes, seed: values.seed,
      }, this.context.signal))
      .then((started) => this.follow(started.run))
      .catch((error) => { if (!this.context.signal.aborted) this.say(error.message); });
  }

  // The Stop button.
  stop() {
    if (!this.run || !this.run.source) return this.say("No training is running on this page.");
    return api.stopTraining(this.run.id).then((answer) => this.say(answer.message), (error) => this.say(error.message));
  }

  follow(id) {
    this.close();
    const source = api.trainingEvents(id);
    this.run = { id: id, source: source };
    this.download.hidden = true;
    source.addEventListener("state", (event) => this.draw(id, JSON.parse(event.data)));
    source.onerror = () => { // the server restarted, or forgot the run: a stream that is done was closed first
      if (source.readyState === EventSource.CLOSED && this.run && this.run.source === source) {
        this.run.source = null;
        this.say("The connection to the training run was lost (the server may have restarted): train again.");
      }
    };
  }

  close() {
    if (this.run && this.run.source) this.run.source.close();
    if (this.run) this.run.source = null;
  }

  draw(id, state) {
    this.say(state.message);
    this.progress.value = state.fraction;
    if (state.loss && state.loss.train.length > 1) drawLoss(this.loss, state.loss);
    if (state.snapshot) drawSnapshot(this.snapshot, state.snapshot);
    if (!state.done) return;
    this.close();
    if (state.checkpoint) {
      this.download.href = api.checkpointUrl(id);
      this.download.hidden = false;
    }
    if (state.model) Object.assign(this.trained, { key: state.model, name: state.name });
  }
}

export const TAB = { id: "train", create: (element, context) => new Train(element, context) };

const COLOURS = { train: "#0072B2", valid: "#D55E00", bleu: "#009E73", floor: "#64748b" }; // Okabe-Ito

// Training loss by step, the lowest loss label smoothing allows, and validation loss and BLEU where measured.
function lossTraces(loss) {
  const steps = loss.train.map((p) => p[0]);
  const traces = [{ x: steps, y: loss.train.map((p) => p[1]), name: "training loss (label-smoothed)", mode: "lines", line: { color: COLOURS.train } }];
  if (loss.floor != null) {
    traces.push({ x: [steps[0], steps[steps.length - 1]], y: [loss.floor, loss.floor], mode: "lines", hoverinfo: "skip",
      name: "lowest possible (" + loss.floor.toFixed(2) + ")", line: { color: COLOURS.floor, dash: "dash", width: 1 } });
  }
  if (loss.valid.length) {
    const at = loss.valid.map((p) => p[0]);
    traces.push({ x: at, y: loss.valid.map((p) => p[1]), name: "validation loss", mode: "lines+markers", line: { color: COLOURS.valid } });
    traces.push({ x: at, y: loss.valid.map((p) => p[2]), name: "validation BLEU", mode: "lines+markers", yaxis: "y2",
      line: { color: COLOURS.bleu, dash: "dot" }, marker: { symbol: "square" } });
  }
  return traces;
}

function drawLoss(div, loss) {
  const font = fontSize();
  react(div, lossTraces(loss), layout("Loss", 360, font, {
    xaxis: { title: { text: "step" }, automargin: true },
    yaxis: { title: { text: "cross-entropy" }, rangemode: "tozero", automargin: true },
    yaxis2: { title: { text: "BLEU" }, overlaying: "y", side: "right", rangemode: "tozero", automargin: true, visible: loss.valid.length > 0 },
    legend: { orientation: "h", y: -0.3 },
    margin: { l: 10, r: 10, t: 34 + font, b: 10 },
  }));
}

function drawSnapshot(div, snapshot) {
  const font = fontSize();
  // the viewer's one fixed 0..1 scale, so a weight reads the same here as in every view; the hover names the tokens
  const custom = snapshot.rows.map((row) => snapshot.columns.map((column) => [escape(row), escape(column)]));
  const heat = { type: "heatmap", z: snapshot.weights, zmin: 0, zmax: 1, colorscale: COLORS.scale, customdata: custom,
    hovertemplate: "%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>" };
  react(div, [heat], layout(snapshot.title, 360, font, {
    xaxis: tokenAxis(snapshot.columns, "source token (English)", font),
    yaxis: Object.assign(tokenAxis(snapshot.rows, "target token (German)", font), { autorange: "reversed" }),
  }));
}
