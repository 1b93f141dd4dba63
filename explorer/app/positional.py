"""The model's own positional-encoding buffer: its rows for the API (`positional_table`) and the Positional
encoding tab's figures of it."""

from __future__ import annotations

from ..errors import UserError, shown
from ..interpret.handle import ModelHandle
from . import figures
from .schemas import Positional, PositionalQuery

MAX_WAVES = 12  # dimensions drawn as waves at once


def positional_table(handle: ModelHandle, query: PositionalQuery) -> Positional:
    """The first `query.positions` rows of `handle`'s table (rounded to 6 decimals: the JSON stays small)."""
    pe = handle.model.pos_encoding.pe
    max_len, d_model = pe.shape
    if query.positions > max_len:
        raise UserError(f"Positions {query.positions} is out of range: the model's table has {max_len} rows.")
    rows = pe[: query.positions].cpu().double().numpy().round(6)
    return Positional(model=handle.name, d_model=d_model, max_len=max_len, encoding=rows.tolist())


def positional_figures(
    handle: ModelHandle, n_positions: int, n_dims: int, wave_dims: str, font_size: int = figures.NORMAL_FONT
):
    """Heatmap, waves and similarity of the first `n_positions` rows of the model's table (numbers the API's schema
    validated: here only held to this model's table)."""
    pe_table = handle.model.pos_encoding.pe.cpu().numpy()
    max_pos, d_model = pe_table.shape
    if not 2 <= n_positions <= max_pos:
        raise UserError(
            f"Positions {shown(n_positions)} is out of range: choose 2 to {max_pos} (the model's table has {max_pos} "
            "rows)."
        )
    if not 2 <= n_dims <= d_model:
        raise UserError(f"Dimensions {shown(n_dims)} is out of range: choose 2 to {d_model} (d_model = {d_model}).")
    try:
        dims = sorted({int(x) for x in str(wave_dims)[:200].replace(",", " ").split()})
    except ValueError:
        raise UserError(
            f"Wave dimensions must be numbers separated by commas, e.g. 0, 1, 20, 100 (got {str(wave_dims)[:60]!r})."
        ) from None
    if not dims or any(not 0 <= d < d_model for d in dims) or len(dims) > MAX_WAVES:
        raise UserError(
            f"Wave dimensions {str(wave_dims)[:60]!r}: give 1 to {MAX_WAVES} dimensions between 0 and {d_model - 1}."
        )
    pe = pe_table[:n_positions]
    return (
        figures.pe_heatmap(
            pe[:, :n_dims],
            f"Positional encoding ({handle.config.positional_layout} sin/cos): {n_positions} positions × {n_dims} of "
            f"{d_model} dimensions",
            font_size,
        ),
        figures.pe_waves(pe, dims, d_model, "Selected dimensions over position: the frequency ladder", font_size),
        figures.pe_similarity(pe, "PE(p)·PE(q): similarity depends on the distance p − q", font_size),
    )
