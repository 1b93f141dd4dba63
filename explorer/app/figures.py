"""Plotly figures drawn on the server: positional encoding, the training loss and the training tab's attention snapshot.

The step-through views (heatmaps, mosaic, mask, top-k) are drawn in the browser (`explorer/ui/static/`) with the
same conventions; on the server, every attention figure keeps them too:
- rows are queries, columns are keys, both labelled with tokens (numeric axes with tick text, so a
  repeated token never merges two rows);
- cross-attention rows are target tokens, columns source tokens;
- one fixed colour scale from 0 to 1 (Viridis, colour-blind safe); positions a mask removed are drawn
  in light grey with the hover text "masked", never as a small weight.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

COLORSCALE = "Viridis"
MASKED_COLOR = "#d0d0d0"
CHOSEN_COLOR = "#D55E00"  # Okabe-Ito vermillion
NORMAL_FONT = 13
PRESENTATION_FONT = 20  # presentation mode: readable from the back of a lecture hall
KIND_TITLES = {
    "encoder_self": "Encoder self-attention",
    "decoder_self": "Decoder masked self-attention",
    "cross": "Cross-attention (encoder-decoder)",
}
AXIS_TITLES = {
    "encoder_self": ("source token (query)", "source token (key)"),
    "decoder_self": ("produced target token (query)", "decoder input so far (key)"),
    "cross": ("produced target token (query)", "source token (key)"),
}


def escape(label: str) -> str:
    """Plotly renders a subset of HTML in every text field: escape tokens so `<s>` or typed markup show as text."""
    return str(label).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _layout(fig: go.Figure, title: str, font_size: int, height: int | None = None) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left"},
        font={"size": font_size},
        margin={"l": 10, "r": 10, "t": 40 + font_size, "b": 10},
        plot_bgcolor="white",
        height=height,
    )
    return fig


def _token_axis(labels: list[str], title: str, font_size: int) -> dict:
    return {
        "title": {"text": title},
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "ticktext": [escape(x) for x in labels],
        "tickfont": {"size": font_size},
        "showgrid": False,
        "zeroline": False,
    }


def _masked_layer(mask: np.ndarray) -> go.Heatmap:
    """A grey layer drawn where mask is False (positions the model cannot attend to)."""
    z = np.where(mask, np.nan, 1.0)
    return go.Heatmap(
        z=z.tolist(),
        colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
        showscale=False,
        hovertemplate="masked: weight exactly 0<extra></extra>",
        name="masked",
    )


def attention_heatmap(
    weights: np.ndarray,
    query_labels: list[str],
    key_labels: list[str],
    kind: str,
    title: str,
    mask: np.ndarray | None = None,
    font_size: int = NORMAL_FONT,
    highlight_row: int | None = None,
    zmax: float = 1.0,
) -> go.Figure:
    """One head (or a head mean): weights (queries, keys) on the fixed 0..1 scale."""
    weights = np.asarray(weights, dtype=np.float64)
    q, k = weights.shape
    if len(query_labels) != q or len(key_labels) != k:
        raise ValueError(f"labels {len(query_labels)}x{len(key_labels)} do not match weights {q}x{k}")
    shown = weights if mask is None else np.where(mask, weights, np.nan)
    qe, ke = [escape(x) for x in query_labels], [escape(x) for x in key_labels]
    custom = [[[qe[i], ke[j]] for j in range(k)] for i in range(q)]
    fig = go.Figure()
    if mask is not None and not mask.all():
        fig.add_trace(_masked_layer(mask))
    fig.add_trace(
        go.Heatmap(
            z=np.round(shown, 4).tolist(),
            zmin=0.0,
            zmax=zmax,
            colorscale=COLORSCALE,
            customdata=custom,
            hovertemplate="query: %{customdata[0]}<br>key: %{customdata[1]}<br>weight %{z:.4f}<extra></extra>",
            colorbar={"title": {"text": "weight"}, "thickness": 12},
            name="weights",
        )
    )
    ytitle, xtitle = AXIS_TITLES[kind]
    fig.update_xaxes(_token_axis(key_labels, xtitle, font_size), side="bottom", tickangle=-45 if k > 8 else 0)
    fig.update_yaxes(_token_axis(query_labels, ytitle, font_size), autorange="reversed")
    if highlight_row is not None and 0 <= highlight_row < q:
        fig.add_shape(
            type="rect",
            x0=-0.5,
            x1=k - 0.5,
            y0=highlight_row - 0.5,
            y1=highlight_row + 0.5,
            line={"color": CHOSEN_COLOR, "width": 3},
        )
    return _layout(fig, title, font_size, height=max(380, 28 * q + 220))


def pe_heatmap(pe: np.ndarray, title: str, font_size: int = NORMAL_FONT) -> go.Figure:
    """The positional-encoding table (positions, dimensions) on −1..1."""
    fig = go.Figure(
        go.Heatmap(
            z=np.round(pe, 3).tolist(),
            zmin=-1,
            zmax=1,
            colorscale="RdBu",
            reversescale=True,
            hovertemplate="position %{y}, dimension %{x}: %{z:.3f}<extra></extra>",
            colorbar={"thickness": 12},
        )
    )
    fig.update_xaxes(title={"text": "dimension i (even: sin, odd: cos)"})
    fig.update_yaxes(title={"text": "position"}, autorange="reversed")
    return _layout(fig, title, font_size, height=460)


def pe_waves(pe: np.ndarray, dims: list[int], d_model: int, title: str, font_size: int = NORMAL_FONT) -> go.Figure:
    """Selected dimensions as waves over position, one strip each (drawn on one axis, dimensions 0, 1, 4 and 16
    tangled into one knot), stacked on the same position axis so the frequency ladder reads from top to bottom;
    each strip's title gives its wavelength."""
    from plotly.subplots import make_subplots

    dims = list(dims) or [0]
    names = [
        f"dim {d} ({'sin' if d % 2 == 0 else 'cos'}, wavelength ≈ {2 * np.pi * 10000 ** ((d - d % 2) / d_model):.0f})"
        for d in dims
    ]
    spacing = min(0.12, 0.6 / len(dims))
    fig = make_subplots(rows=len(dims), cols=1, shared_xaxes=True, subplot_titles=names, vertical_spacing=spacing)
    positions = list(range(pe.shape[0]))
    for row, (d, name) in enumerate(zip(dims, names), start=1):
        fig.add_trace(
            go.Scatter(x=positions, y=np.round(pe[:, d], 4).tolist(), mode="lines+markers", name=name),
            row=row,
            col=1,
        )
        fig.update_yaxes(range=[-1.15, 1.15], tickvals=[-1, 0, 1], zeroline=True, row=row, col=1)
    fig.update_xaxes(title={"text": "position"}, row=len(dims), col=1)
    fig.update_annotations(font={"size": font_size})
    fig.update_layout(showlegend=False)  # each strip's title names it
    return _layout(fig, title, font_size, height=90 + (70 + 2 * font_size) * len(dims))


def pe_similarity(pe: np.ndarray, title: str, font_size: int = NORMAL_FONT) -> go.Figure:
    """Dot products PE(p)·PE(q): the band structure shows they depend on p − q."""
    sim = pe @ pe.T
    fig = go.Figure(
        go.Heatmap(
            z=np.round(sim, 2).tolist(),
            colorscale=COLORSCALE,
            hovertemplate="PE(%{y})·PE(%{x}) = %{z:.2f}<extra></extra>",
            colorbar={"thickness": 12},
        )
    )
    fig.update_xaxes(title={"text": "position q"})
    fig.update_yaxes(title={"text": "position p"}, autorange="reversed")
    return _layout(fig, title, font_size, height=460)
