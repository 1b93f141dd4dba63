"""Attention Explorer: a small English→German Transformer and the tools to look inside it.

The folders are the layers of the system; each imports only from the ones listed before it:

    model/      the translator: config, layers (attention, masks, positional encoding), vocabulary, checkpoints
    interpret/  looking inside it: hooks, decoding, the decode trace, alignment, validated requests
    training/   training and evaluation: data, loss, trainer, recipes, evaluation, model card
    app/        the app's logic without gradio: per-session state, trace cache, wire format, figures
    ui/         the Gradio app and its browser code (the only place that imports gradio)

Beside them, `errors.py` (`UserError`, the refusal a person reads) imports nothing, and every layer may import it.
"""
