"""The loss curve of the model card (a PNG in the checkpoint); the Train tab draws its live curve in the browser."""

from __future__ import annotations

import io

from matplotlib.figure import Figure  # the object API: no pyplot state shared between threads, nothing to close

TRAIN_COLOR, VALID_COLOR, BLEU_COLOR = "#0072B2", "#D55E00", "#009E73"  # Okabe-Ito: distinct for colour-blind eyes


def loss_curve(history: list[dict], floor: float | None = None) -> Figure | None:
    """Training loss (and validation loss and BLEU where present) against step; None before two points exist.

    `floor`: the lowest loss label smoothing allows (`loss.smoothing_floor`), drawn as a dashed line.
    """
    train = [h for h in history if not h.get("valid")]
    if len(train) < 2:
        return None
    valid = [h for h in history if h.get("valid")]
    fig = Figure(figsize=(7, 4.4), dpi=100)
    font_size = 10  # points
    ax = fig.add_subplot()
    ax.plot(
        [h["step"] for h in train],
        [h["loss"] for h in train],
        label="training loss (label-smoothed)",
        color=TRAIN_COLOR,
    )
    if floor:
        ax.axhline(floor, color="#64748b", linestyle="--", linewidth=1, label=f"lowest possible ({floor:.2f})")
    lines = ax.get_lines()
    if valid:
        ax.plot(
            [h["step"] for h in valid], [h["loss"] for h in valid], "o-", label="validation loss", color=VALID_COLOR
        )
        ax2 = ax.twinx()
        ax2.plot(
            [h["step"] for h in valid], [h["bleu"] for h in valid], "s--", label="validation BLEU", color=BLEU_COLOR
        )
        ax2.set_ylabel("BLEU", fontsize=font_size)
        # BLEU from 0: one point (or two close ones) must not get an axis of its own few tenths
        ax2.set_ylim(0, max(10.0, 1.15 * max(h["bleu"] for h in valid)))
        ax2.tick_params(labelsize=font_size)
        lines = ax.get_lines() + ax2.get_lines()
    # room above the first (highest) losses: the Train tab's "Loss" label sits over the figure's top-left corner
    ax.set_ylim(0, 1.12 * max(h["loss"] for h in history if h.get("loss") is not None))
    ax.set_xlabel("step", fontsize=font_size)
    ax.set_ylabel("cross-entropy", fontsize=font_size)
    ax.tick_params(labelsize=font_size)
    ax.grid(alpha=0.3)
    # one legend below the axes, where it cannot cover a curve
    fig.legend(
        lines,
        [line.get_label() for line in lines],
        loc="lower center",
        ncol=len(lines),
        frameon=False,
        fontsize=font_size,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 0.94))
    return fig


def loss_curve_png(history: list[dict]) -> bytes | None:
    """`loss_curve` as PNG bytes, for a checkpoint directory."""
    fig = loss_curve(history)
    if fig is None:
        return None
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
