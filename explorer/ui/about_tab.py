"""The "About the model" tab: what the loaded checkpoint is, how it was trained and how well it translates."""

from __future__ import annotations

import gradio as gr

from ..app.markdown import escape
from ..interpret.handle import ModelHandle
from .common import Context

VOCABULARIES = {  # by the tokenizer's kind
    "sentencepiece": "one SentencePiece vocabulary for both languages",
    "sentencepiece-pair": "a SentencePiece model per language over one shared vocabulary",
}


def describe(handle: ModelHandle, key: str | None = None) -> str:
    """Markdown about the model; every value from the checkpoint is escaped, so it shows as plain text."""
    c = handle.config
    meta = handle.metadata  # validated when the checkpoint was loaded (explorer/model/metadata.py)
    lines = [
        f"### {escape(handle.name)}" + (f" (model={escape(key)})" if key else ""),
        f"- translates {escape(handle.languages.label)}.",
        f"- {handle.model.num_parameters():,} parameters: {c.n_encoder_layers} encoder + {c.n_decoder_layers} decoder "
        "layers, "
        f"d_model {c.d_model}, {c.n_heads} heads, feed-forward {c.d_ff} ({c.activation}), "
        f"{'pre' if c.norm_first else 'post'}-LN, "
        f"{VOCABULARIES[handle.tokenizer.KIND]} of {c.vocab_size} pieces, up to {c.max_len} tokens.",
    ]
    source = meta.get("converted_from")
    if source:
        lines.append(
            f"- converted from the {escape(source.get('format', ''))} model {escape(source.get('source', ''))} "
            f"(licence {escape(source.get('licence', 'unknown'))}) into this explorer's model class: it was not "
            "trained here."
        )
    if meta.get("training_minutes") is not None:
        lines.append(
            f"- trained for {escape(meta['training_minutes'])} min ({escape(meta.get('steps', '?'))} steps) "
            f"on {escape(meta.get('hardware', 'unknown hardware'))}"
            + (
                f", continued from {escape(start)}."
                if (start := (meta.get("train_config") or {}).get("init_from"))
                else "."
            )
        )
    for name, ev in (meta.get("evaluation") or {}).items():
        lines.append(
            f"- {escape(name)}: BLEU {escape(ev['bleu'])}, chrF {escape(ev['chrf'])} ({escape(ev['sentences'])} "
            "segments)."
        )
    alignment = meta.get("alignment")
    if alignment:
        best = alignment["best"]
        lines.append(
            "- the cross-attention that best predicts word alignment is "
            f"L{escape(best['layer'])}·H{escape(best['head'])} (layer, head) "
            f"(alignment error rate {best['aer']:.2f} on {escape(alignment['pairs'])} hand-aligned sentences); the "
            "explorer opens on it."
        )
    if meta.get("data_credit"):
        lines.append(f"- training data: {escape(meta['data_credit'])}.")
    methods = (alignment or {}).get("methods") or []
    if methods:  # the viewer's explanations, scored against the same hand alignments
        lines += [
            "",
            "How close each explanation the viewer offers comes to where a person aligns the words "
            f"({escape(alignment['pairs'])} hand-aligned sentences, each target word to its highest-scoring source "
            "word; lower error is closer):",
            "",
            "| explanation | alignment error rate | target words placed as a person would |",
            "|---|---|---|",
        ]
        lines += [
            f"| {escape(r['method'])} | {r['aer']:.3f} | "
            + (f"{r['accuracy']:.0%}" if r.get("accuracy") is not None else "–")
            + " |"
            for r in methods
        ]
        tied = tie_note(methods)
        if tied:
            lines += ["", tied]
    return "\n".join(lines)


def tie_note(methods: list[dict]) -> str:
    """A sentence for rows with the same scores: each was measured on its own, and equal rows are a tie (issue 66)."""
    seen: dict[tuple, list[str]] = {}
    for r in methods:
        seen.setdefault((r["aer"], r.get("accuracy")), []).append(r["method"])
    tied = [names for names in seen.values() if len(names) > 1]
    if not tied:
        return ""
    return " ".join(
        f"{' and '.join(escape(n) for n in names)} score the same here, and they are not a copy: each is measured on "
        "its own and they pick different source words, as many of them right (`python -m bench.alignment_overlap`)."
        for names in tied
    )


def build(ctx: Context, served: dict[str, ModelHandle] | None = None):
    """The tab: every model the server serves to everyone, the one the page opens on first."""
    served = served or {"shipped": ctx.shipped}
    names = " and ".join(f"**{escape(h.name)}**" for h in served.values())
    with gr.Tab("About the model", id="about"):
        gr.Markdown(
            f"This page describes the shipped model{'s' if len(served) > 1 else ''}, {names}"
            + (
                ": the page opens on the first, and the header switches to the other in one click (the API takes "
                "the `model=` beside its name). "
                if len(served) > 1
                else ". "
            )
            + "With *Explore my trained model* ticked, the viewer shows the model you trained in the Train tab "
            "instead; the header always names the model whose attention is on screen.",
            latex_delimiters=[],
        )
        for key, handle in served.items():
            gr.Markdown(describe(handle, key), latex_delimiters=[])  # no $$...$$ typesetting of names
        gr.Markdown(
            "Rows of every attention map are queries and columns keys. Decoder and cross-attention rows are labelled "
            "with the target token produced at that step; the decoder self-attention keys are the decoder's inputs "
            "(`<s>` and the tokens produced before). Pieces that continue a word start with `·`."
        )
        gr.Markdown(
            "New to Transformers? In the Translate tab, press **Lesson** (under Tools): twelve stops through the model "
            "on the sentence on screen, from its word pieces through query, key and value to the layers, each with the "
            "numbers of that sentence. "
            "→ and ← move through them. The view **Without the mask** shows why the decoder's self-attention is "
            "masked, with the same small model trained with and without the mask; **Value path** shows what one head "
            "carries for one query, from the residual stream through q, k, v and the weights back into it; "
            "**Logit lens** shows what each decoder layer would write if it were the last; **Q·K space** puts one "
            "head's queries and keys in one plane; **No positions** shows what the model loses without its positional "
            "encoding. On the cross-attention heatmap of an example sentence (or another hand-aligned one), outlines "
            "mark the word links a person aligned by hand, and the title gives the head's alignment error rate on the "
            "sentence; press **G** to decode the gold translation when the model wrote another."
        )
