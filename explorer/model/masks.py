"""Attention masks as plain functions; True means "this query may attend to this key".

The model and the UI call the same functions, so the drawn mask is the mask that was applied.
"""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Key-padding mask (B, 1, 1, S) from token ids (B, S): False where the key is padding."""
    return (ids != pad_id)[:, None, None, :]


def lookahead_mask(size: int, device: torch.device | str | None = None, offset: int = 0) -> torch.Tensor:
    """Look-ahead ("subsequent") mask (1, 1, size, offset + size): query i sees keys 0 .. offset + i.

    `offset` is the number of already-cached positions when decoding incrementally.
    """
    rows = torch.arange(size, device=device)[:, None] + offset  # (size, 1)
    cols = torch.arange(offset + size, device=device)[None, :]  # (1, offset + size)
    return (cols <= rows)[None, None]  # (1, 1, size, offset + size)


def decoder_self_mask(tgt: torch.Tensor, pad_id: int, offset: int = 0) -> torch.Tensor:
    """Look-ahead mask combined with target padding (B, 1, T, offset + T).

    With a cache (offset > 0) the padding of cached keys is not known here, so only the look-ahead
    part applies; incremental decoding never pads.
    """
    mask = lookahead_mask(tgt.size(1), tgt.device, offset)
    if offset == 0:
        mask = mask & padding_mask(tgt, pad_id)
    return mask
