// train.js: the Train tab's run, through the API like everything else. Train posts the form (POST /ae/api/train,
// with the chosen file's upload id), the run's state streams back (GET /ae/api/train/{run}/events) and is drawn here:
// its message and progress, the loss curve and the attention snapshot (drawn from the run's numbers with plotly.js,
// like every chart of the viewer), the checkpoint's download.
// Stop asks the server to stop the run. The trained model's key becomes the page's own model, which "Explore my
// trained model" traces with (main.js translateForm).
import { SETTINGS } from "./settings.js";
import { clientHeaders } from "./api.js";
import { COLORS } from "./colors.js";
import { el, escape, fontSize } from "./dom.js";
import { layout, react, tokenAxis } from "./plot.js";
import { chosenUpload } from "./upload.js";

let parts = null; // what mount drew
let run = null; // the run this page follows: { id, source }
export const trained = { key: null, name: null }; // the model this page trained, once its run is done

// Build the run's parts in `element` (the gr.HTML's js_on_load).
export function mount(element) {
  const message = el("div", "ae-train-message", "Choose the data, the model's size and how long, then press Train.");
  message.id = "train-message";
  message.setAttribute("role", "status");
  const progress = el("progress", "ae-train-progress");
  progress.max = 1;
  progress.value = 0;
  const loss = el("div", "ae-plot ae-train-chart");
  loss.id = "train-loss";
  const snapshot = el("div", "ae-plot ae-train-chart");
  snapshot.id = "train-snapshot";
  const download = el("a", "ae-train-download", "Download the trained checkpoint (.zip)");
  download.id = "train-download";
  download.hidden = true;
  element.replaceChildren(message, progress, el("div", "ae-train-charts"), download);
  element.querySelector(".ae-train-charts").append(loss, snapshot);
  parts = { message, progress, loss, snapshot, download };
}

function post(path, body) {
  return fetch(SETTINGS.API + path, { method: "POST", headers: clientHeaders({ "content-type": "application/json" }), body: JSON.stringify(body) })
    .then((response) => response.json().catch(() => ({ error: "The server answered " + response.status + "." }))
      .then((answer) => {
        if (!response.ok || answer.error) throw new Error(answer.error || "HTTP " + response.status);
        return answer;
      }));
}

// Say `text` in the Train tab's message line (also where "Explore my trained model" is refused).
export function say(text) { if (parts) parts.message.textContent = text; }

// The Train button (values: corpus, preset, minutes, seed, as the Train tab hands them over).
export function startTraining(values) {
  const [corpus, preset, minutes, seed] = values;
  if (run && run.source) return say("This page is already training a model: wait for it, or press Stop.");
  say("Starting…");
  return chosenUpload()
    .then((upload) => post("/train", { corpus, upload: corpus === "upload" ? upload : "", preset, minutes, seed }))
    .then((started) => follow(started.run))
    .catch((error) => say(error.message));
}

// The Stop button.
export function stopTraining() {
  if (!run || !run.source) return say("No training is running on this page.");
  return post("/train/" + run.id + "/stop", {}).then((answer) => say(answer.message)).catch((error) => say(error.message));
}

function follow(id) {
  const source = new EventSource(SETTINGS.API + "/train/" + id + "/events");
  run = { id, source };
  parts.download.hidden = true;
  source.addEventListener("state", (event) => draw(id, JSON.parse(event.data)));
  source.onerror = () => { // the server restarted, or forgot the run: a stream that is done was closed first
    if (source.readyState === EventSource.CLOSED) {
      run.source = null;
      say("The connection to the training run was lost (the server may have restarted): train again.");
    }
  };
}

function draw(id, state) {
  say(state.message);
  parts.progress.value = state.fraction;
  if (state.loss && state.loss.train.length > 1) drawLoss(parts.loss, state.loss);
  if (state.snapshot) drawSnapshot(parts.snapshot, state.snapshot);
  if (!state.done) return;
  run.source.close();
  run.source = null;
  if (state.checkpoint) {
    parts.download.href = SETTINGS.API + "/train/" + id + "/checkpoint.zip";
    parts.download.hidden = false;
  }
  if (state.model) Object.assign(trained, { key: state.model, name: state.name });
}

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
