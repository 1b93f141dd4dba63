"""The "Train" tab: train a small model for this browser session, watch loss and alignment emerge, download it."""

from __future__ import annotations

import functools
import html

import gradio as gr

from ..app.limits import LIMITS
from ..app.training_job import CORPORA, PRESETS, run_training
from ..app.uploads import MAX_UPLOAD_BYTES
from ..interpret.request import UserError
from .common import Context, browser_drawn, font_size, session_event, zero_gpu

# the file picker is the browser's (`static/upload.js`): it sends the file to the API, which keeps it under an id;
# the Train button's event carries that id in the place of the upload's input
JS_ON_LOAD = "AttentionExplorer.mountUpload(element.querySelector('.ae-upload'));"


def build(ctx: Context):
    minutes_limit = LIMITS["minutes"]
    with gr.Tab("Train", id="train"):
        gr.Markdown(
            "Train a fresh small model on the bundled mini corpus (442 simple English–German pairs written for this "
            "project) "
            f"or on your own TSV (English TAB German per line, up to {MAX_UPLOAD_BYTES // 2**20} MB). The model "
            "belongs to "
            "this browser session only. One training job runs on the server at a time."
        )
        with gr.Row():
            corpus = gr.Radio(
                [(label, value) for value, label in CORPORA.items()], value="mini", label="Data", elem_id="train-corpus"
            )
            with gr.Column():
                browser_drawn("<div class='ae-upload'></div>", JS_ON_LOAD, "train-upload")
                upload = gr.Textbox(visible=False)  # the upload id, filled by the browser when Train is pressed
        with gr.Row():
            preset = gr.Radio(list(PRESETS), value=next(iter(PRESETS)), label="Model size", elem_id="train-preset")
            minutes = gr.Slider(
                minutes_limit.low,
                minutes_limit.high,
                value=minutes_limit.default,
                step=0.1,  # minutes, in tenths
                label="Training time (minutes)",
                elem_id="train-minutes",
            )
            seed = gr.Number(0, precision=0, label="Seed")
        with gr.Row():
            train_btn = gr.Button("Train", variant="primary", elem_id="train-btn")
            stop_btn = gr.Button("Stop", variant="stop", elem_id="train-stop")
        message = gr.Markdown(elem_id="train-message")
        with gr.Row():
            loss_plot = gr.Plot(label="Loss", elem_id="train-loss")
            snapshot = gr.Plot(label="Attention snapshot", elem_id="train-snapshot")
        with gr.Row():
            download = gr.File(label="Trained checkpoint (.zip)", interactive=False, elem_id="train-download")
            ctx.use_own.render()
        model_note = gr.Markdown(latex_delimiters=[])

    @session_event
    @functools.partial(zero_gpu, duration=120)  # a ZeroGPU Space needs one GPU function: the training is it
    def train(corpus, upload, preset, minutes, seed, presentation, session, progress=gr.Progress()):  # noqa: B008  (Gradio's way to ask for a progress bar)
        path = session.models.uploads.path(upload) if corpus == "upload" and upload not in (None, "") else None
        for update in run_training(session, preset, minutes, path, seed, font_size(presentation), corpus=corpus):
            progress(update.fraction, desc=update.message)
            yield (
                update.message,
                update.loss_figure,
                update.snapshot,
                str(update.checkpoint_zip) if update.checkpoint_zip else None,
            )

    # preprocess=False: the values arrive as sent and the core's validation names a bad one. concurrency_limit=None:
    # the TrainingSlot allows one job per server and tells a second person so at once; gradio's default limit of 1
    # would instead queue their click silently behind the job.
    inputs = [corpus, upload, preset, minutes, seed, ctx.presentation, ctx.state]
    train_btn.click(
        train,
        inputs,
        [message, loss_plot, snapshot, download, ctx.state],
        api_name="train",
        concurrency_limit=None,
        preprocess=False,
        js=f"(...values) => AttentionExplorer.withUpload(values, {inputs.index(upload)}, {len(inputs)})",
    )

    @session_event
    def stop(session):
        return session.stop_training()

    stop_btn.click(stop, [ctx.state], [message, ctx.state], api_name="stop_training", concurrency_limit=None)

    @session_event
    def choose(use_own, session):
        try:
            return session.choose_model(use_own), use_own
        except UserError as exc:  # say so, and untick the box: the next trace uses the shipped model again
            gr.Warning(html.escape(str(exc), quote=False))
            return str(exc), False

    ctx.use_own.input(
        choose,
        [ctx.use_own, ctx.state],
        [model_note, ctx.use_own, ctx.state],
        api_name="choose_model",
        concurrency_limit=None,
        preprocess=False,
    )
