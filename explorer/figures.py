"""Plotly figures for the explorer: attention heatmaps, the all-heads mosaic, masks, top-k, positional encoding.

Conventions every attention figure keeps:
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
OTHER_COLOR = "#0072B2"  # Okabe-Ito blue
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
    font_size: int = 13,
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
            type="rect", x0=-0.5, x1=k - 0.5, y0=highlight_row - 0.5, y1=highlight_row + 0.5,
            line={"color": CHOSEN_COLOR, "width": 3},
        )
    return _layout(fig, title, font_size, height=max(380, 28 * q + 220))


def mosaic(
    maps: np.ndarray,
    query_labels: list[str],
    key_labels: list[str],
    kind: str,
    title: str,
    mask: np.ndarray | None = None,
    font_size: int = 12,
    highlight: tuple[int, int] | None = None,
) -> go.Figure:
    """Every layer x head of one kind as ONE heatmap: maps (L, H, queries, keys), tiles separated by gaps.

    One trace with null gaps keeps the payload small (values rounded to 3 decimals, labels sent once).
    Hover names the layer, head, query and key of each cell.
    """
    maps = np.asarray(maps, dtype=np.float64)
    L, H, q, k = maps.shape
    if mask is not None:
        maps = np.where(mask[None, None], maps, np.nan)
    grid = np.full((L * (q + 1) - 1, H * (k + 1) - 1), np.nan)
    for layer in range(L):
        for head in range(H):
            grid[layer * (q + 1) : layer * (q + 1) + q, head * (k + 1) : head * (k + 1) + k] = maps[layer, head]
    # categorical axes with unique labels make the hover exact; gap labels are distinct runs of spaces
    x = [f"H{h} · {escape(key_labels[j])} [{j}]" if j < k else " " * (h + 1) for h in range(H) for j in range(k + 1)][:-1]
    y = [f"L{l} · {escape(query_labels[i])} [{i}]" if i < q else "\u2009" * (l + 1) for l in range(L) for i in range(q + 1)][:-1]
    z = [[None if np.isnan(v) else round(float(v), 3) for v in row] for row in grid]
    fig = go.Figure(
        go.Heatmap(
            z=z, x=x, y=y, zmin=0.0, zmax=1.0, colorscale=COLORSCALE, hoverongaps=False,
            hovertemplate="%{y}<br>%{x}<br>weight %{z:.3f}<extra></extra>",
            colorbar={"title": {"text": "weight"}, "thickness": 12},
        )
    )
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, title={"text": f"heads 0..{H - 1} (keys)"})
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, autorange="reversed", title={"text": f"layers 0..{L - 1} (queries)"})
    annotations = [
        {"x": x[h * (k + 1) + (k - 1) // 2], "y": 1.0, "yref": "paper", "yanchor": "bottom", "text": f"head {h}", "showarrow": False}
        for h in range(H)
    ] + [
        {"x": 0.0, "xref": "paper", "xanchor": "right", "y": y[layer * (q + 1) + (q - 1) // 2], "text": f"L{layer}", "showarrow": False}
        for layer in range(L)
    ]
    fig.update_layout(annotations=annotations)
    if highlight is not None:
        layer, head = highlight
        fig.add_shape(
            type="rect", xref="x", yref="y",
            x0=head * (k + 1) - 0.5, x1=head * (k + 1) + k - 0.5, y0=layer * (q + 1) - 0.5, y1=layer * (q + 1) + q - 0.5,
            line={"color": CHOSEN_COLOR, "width": 2},
        )
    return _layout(fig, title, font_size, height=max(360, min(900, 60 + L * (q + 1) * 14 + 80)))


def mask_figure(mask: np.ndarray, labels: list[str], title: str, font_size: int = 13) -> go.Figure:
    """A boolean mask (queries, keys): allowed cells dark, masked cells grey, labelled."""
    mask = np.asarray(mask, dtype=bool)
    fig = go.Figure(
        go.Heatmap(
            z=mask.astype(int).tolist(), zmin=0, zmax=1, colorscale=[[0, MASKED_COLOR], [1, OTHER_COLOR]], showscale=False,
            customdata=[[["masked (−∞ before softmax)", "visible"][int(v)] for v in row] for row in mask],
            hovertemplate="query %{y}, key %{x}: %{customdata}<extra></extra>", xgap=1, ygap=1,
        )
    )
    fig.update_xaxes(_token_axis(labels, "key position", font_size))
    fig.update_yaxes(_token_axis(labels, "query position", font_size), autorange="reversed")
    return _layout(fig, title, font_size, height=max(300, 26 * len(labels) + 160))


def score_stages(
    scores: np.ndarray, mask: np.ndarray, weights: np.ndarray, labels: list[str], title: str, font_size: int = 12
) -> go.Figure:
    """Raw scores -> scores with the future at −∞ -> softmax weights, side by side (queries, keys)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=3, subplot_titles=("1. raw scores q·k/√d", "2. future set to −∞", "3. softmax weights"), horizontal_spacing=0.08)
    finite = scores[np.isfinite(scores)]
    lim = float(np.abs(finite).max()) if finite.size else 1.0
    raw = dict(zmin=-lim, zmax=lim, colorscale="RdBu", reversescale=True)
    fig.add_trace(go.Heatmap(z=np.round(scores, 3).tolist(), **raw, colorbar={"x": 0.28, "thickness": 10}, hovertemplate="score %{z:.3f}<extra></extra>"), 1, 1)
    fig.add_trace(go.Heatmap(z=np.where(mask, np.nan, 1.0).tolist(), colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]], showscale=False, hovertemplate="−∞<extra></extra>"), 1, 2)
    fig.add_trace(go.Heatmap(z=np.round(np.where(mask, scores, np.nan), 3).tolist(), **raw, showscale=False, hovertemplate="score %{z:.3f}<extra></extra>"), 1, 2)
    fig.add_trace(go.Heatmap(z=np.where(mask, np.nan, 1.0).tolist(), colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]], showscale=False, hovertemplate="0 (masked)<extra></extra>"), 1, 3)
    fig.add_trace(go.Heatmap(z=np.round(np.where(mask, weights, np.nan), 4).tolist(), zmin=0, zmax=1, colorscale=COLORSCALE, colorbar={"x": 1.0, "thickness": 10}, hovertemplate="weight %{z:.4f}<extra></extra>"), 1, 3)
    for col in (1, 2, 3):
        fig.update_xaxes(_token_axis(labels, "key", font_size), row=1, col=col)
        fig.update_yaxes(_token_axis(labels, "query" if col == 1 else "", font_size), autorange="reversed", row=1, col=col)
    return _layout(fig, title, font_size, height=max(340, 26 * len(labels) + 180))


def topk_bars(pieces: list[str], probs: list[float], chosen: str, title: str, font_size: int = 13) -> go.Figure:
    """Next-token candidates as horizontal bars, the chosen token marked in a second colour."""
    labels = [f"{escape(p)}  [{i + 1}]" for i, p in enumerate(pieces)]  # unique even if two pieces print alike
    colors = [CHOSEN_COLOR if p == chosen else OTHER_COLOR for p in pieces]
    fig = go.Figure(
        go.Bar(
            x=probs, y=labels, orientation="h", marker_color=colors, text=[f"{p:.1%}" for p in probs], textposition="outside",
            hovertemplate="%{y}: p = %{x:.4f}<extra></extra>", cliponaxis=False,
        )
    )
    fig.update_xaxes(range=[0, 1.15], title={"text": "probability"}, tickformat=".0%")
    fig.update_yaxes(autorange="reversed", tickfont={"size": font_size})
    return _layout(fig, title, font_size, height=max(300, 30 * len(pieces) + 120))


def pe_heatmap(pe: np.ndarray, title: str, font_size: int = 13) -> go.Figure:
    """The positional-encoding table (positions, dimensions) on −1..1."""
    fig = go.Figure(
        go.Heatmap(
            z=np.round(pe, 3).tolist(), zmin=-1, zmax=1, colorscale="RdBu", reversescale=True,
            hovertemplate="position %{y}, dimension %{x}: %{z:.3f}<extra></extra>", colorbar={"thickness": 12},
        )
    )
    fig.update_xaxes(title={"text": "dimension i (even: sin, odd: cos)"})
    fig.update_yaxes(title={"text": "position"}, autorange="reversed")
    return _layout(fig, title, font_size, height=460)


def pe_waves(pe: np.ndarray, dims: list[int], d_model: int, title: str, font_size: int = 13) -> go.Figure:
    """Selected dimensions as waves over position; the legend gives each one's wavelength."""
    fig = go.Figure()
    positions = list(range(pe.shape[0]))
    for d in dims:
        wavelength = 2 * np.pi * 10000 ** ((d - d % 2) / d_model)
        fig.add_trace(go.Scatter(x=positions, y=np.round(pe[:, d], 4).tolist(), mode="lines", name=f"dim {d} ({'sin' if d % 2 == 0 else 'cos'}, λ≈{wavelength:.0f})"))
    fig.update_xaxes(title={"text": "position"})
    fig.update_yaxes(title={"text": "PE value"}, range=[-1.1, 1.1])
    return _layout(fig, title, font_size, height=400)


def pe_similarity(pe: np.ndarray, title: str, font_size: int = 13) -> go.Figure:
    """Dot products PE(p)·PE(q): the band structure shows they depend on p − q."""
    sim = pe @ pe.T
    fig = go.Figure(go.Heatmap(z=np.round(sim, 2).tolist(), colorscale=COLORSCALE, hovertemplate="PE(%{y})·PE(%{x}) = %{z:.2f}<extra></extra>", colorbar={"thickness": 12}))
    fig.update_xaxes(title={"text": "position q"})
    fig.update_yaxes(title={"text": "position p"}, autorange="reversed")
    return _layout(fig, title, font_size, height=460)


def loss_curve(history: list[dict], title: str = "Training loss", font_size: int = 13) -> go.Figure:
    """Training (and validation) loss over steps, for the live Train tab."""
    train = [h for h in history if not h.get("valid")]
    valid = [h for h in history if h.get("valid")]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[h["step"] for h in train], y=[h["loss"] for h in train], mode="lines", name="training loss", line={"color": OTHER_COLOR}))
    if valid:
        fig.add_trace(go.Scatter(x=[h["step"] for h in valid], y=[h["loss"] for h in valid], mode="lines+markers", name="validation loss", line={"color": CHOSEN_COLOR}))
    fig.update_xaxes(title={"text": "step"})
    fig.update_yaxes(title={"text": "cross-entropy"})
    return _layout(fig, title, font_size, height=340)
