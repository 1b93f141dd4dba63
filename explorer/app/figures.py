"""Plotly figures drawn on the server: the Positional encoding tab's charts of a model's table, which the API sends
(`GET /ae/api/positional/figures`) and the browser draws. Every attention figure is drawn in the browser
(`explorer/ui/static/`), on one fixed 0..1 colour scale.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

COLORSCALE = "Viridis"  # the similarity's: colour-blind safe
NORMAL_FONT = 13
PRESENTATION_FONT = 20  # presentation mode: readable from the back of a lecture hall


def _layout(fig: go.Figure, title: str, font_size: int, height: int | None = None) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left"},
        font={"size": font_size},
        margin={"l": 10, "r": 10, "t": 40 + font_size, "b": 10},
        plot_bgcolor="white",
        height=height,
    )
    return fig


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
