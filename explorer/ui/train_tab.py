"""The "Train" tab: train a small model for this browser session, watch loss and alignment emerge, download it."""

from __future__ import annotations

import gradio as gr

from ..inputs import UserError
from ..training_job import MAX_UPLOAD_BYTES, PRESETS, run_training
from .common import Context, guarded


def build(ctx: Context):
    with gr.Tab("Train", id="train"):
        gr.Markdown(
            "Train a fresh small model on the bundled mini corpus (442 simple English–German pairs written for this project) "
            f"or on your own TSV (English TAB German per line, up to {MAX_UPLOAD_BYTES // 2**20} MB). The model belongs to "
            "this browser session only. One training job runs on the server at a time."
        )
        with gr.Row():
            corpus = gr.Radio([("bundled mini corpus", "mini"), ("my uploaded TSV", "upload")], value="mini", label="Data", elem_id="train-corpus")
            upload = gr.File(label="TSV file", file_types=[".tsv", ".txt"], type="filepath", elem_id="train-upload")
        with gr.Row():
            preset = gr.Radio(list(PRESETS), value=next(iter(PRESETS)), label="Model size", elem_id="train-preset")
            minutes = gr.Slider(0.2, 5, value=1.0, step=0.1, label="Training time (minutes)", elem_id="train-minutes")
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
            use_own = gr.Checkbox(False, label="Explore my trained model (instead of the shipped one)", elem_id="use-own")
        model_note = gr.Markdown()

    @guarded
    def train(corpus, upload, preset, minutes, seed, key, progress=gr.Progress()):
        session = ctx.session(key)
        if corpus == "upload" and not upload:
            raise UserError("Choose a TSV file to upload (English TAB German per line), or pick the bundled mini corpus.")
        for update in run_training(session, preset, minutes, upload if corpus == "upload" else None, seed, session.font_size):
            progress(update.fraction, desc=update.message)
            yield update.message, update.loss_figure, update.snapshot, str(update.checkpoint_zip) if update.checkpoint_zip else None

    # concurrency_limit=None: the TrainingSlot allows one job per server and tells a second person so at once;
    # gradio's default limit of 1 would instead queue their click silently behind the running job
    train_btn.click(
        train, [corpus, upload, preset, minutes, seed, ctx.key], [message, loss_plot, snapshot, download], api_name="train",
        concurrency_limit=None,
    )

    @guarded
    def stop(key):
        return ctx.session(key).stop_training()

    stop_btn.click(stop, [ctx.key], [message], api_name="stop_training", concurrency_limit=None)

    @guarded
    def choose(use_own, key):
        return ctx.session(key).choose_model(use_own)

    use_own.input(choose, [use_own, ctx.key], [model_note], api_name="choose_model", concurrency_limit=None)
