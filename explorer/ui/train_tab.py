"""The "Train" tab: train a small model on the server, watch loss and alignment emerge, explore it, download it.

Gradio lays out the form; the browser does the rest through the API (`static/train.js`: `POST /ae/api/train`, the
run's event stream, its stop and its checkpoint), as it traces: no event of this tab runs on the server.
"""

from __future__ import annotations

import gradio as gr

from ..app.limits import MINUTES
from ..app.training_job import CORPORA, PRESETS, preset_label
from ..app.uploads import MAX_UPLOAD_BYTES
from .common import Context, browser_drawn
from .viewer import tab_js, tab_on_load


def build(ctx: Context):
    minutes_limit = MINUTES
    with gr.Tab("Train", id="train"):
        gr.Markdown(
            "Train a fresh small model on the bundled mini corpus (442 simple English–German pairs written for this "
            f"project) or on your own TSV (English TAB German per line, up to {MAX_UPLOAD_BYTES // 2**20} MB). Only "
            "this page knows the trained model's key. One training job runs on the server at a time."
        )
        with gr.Row():
            corpus = gr.Radio(
                [(label, value) for value, label in CORPORA.items()], value="mini", label="Data", elem_id="train-corpus"
            )
            with gr.Column():
                browser_drawn("<div class='ae-upload'></div>", UPLOAD_ON_LOAD, "train-upload")
        with gr.Row():
            preset = gr.Radio(
                [(preset_label(name), name) for name in PRESETS],
                value="tiny",
                label="Model size",
                elem_id="train-preset",
            )
            minutes = gr.Slider(
                minutes_limit.low,
                minutes_limit.high,
                value=minutes_limit.default,
                step=0.1,  # minutes, in tenths
                label="Training time (minutes)",
                elem_id="train-minutes",
            )
            seed = gr.Number(0, precision=0, label="Seed", elem_id="train-seed")
        with gr.Row():
            train_btn = gr.Button("Train", variant="primary", elem_id="train-btn")
            stop_btn = gr.Button("Stop", variant="stop", elem_id="train-stop")
        browser_drawn("<div class='ae-train'></div>", RUN_ON_LOAD, "train-run")
        ctx.use_own.render()
    browser = {"api_name": False, "queue": False}
    form = [corpus, preset, minutes, seed]  # read by name in the browser: {corpus, preset, minutes, seed}
    train_btn.click(None, form, None, js=tab_js("train", "start", form, prefix="train-"), **browser)
    stop_btn.click(None, None, None, js=tab_js("train", "stop"), **browser)


UPLOAD_ON_LOAD = tab_on_load("upload", ".ae-upload")
RUN_ON_LOAD = tab_on_load("train", ".ae-train")
