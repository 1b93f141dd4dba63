"""The tensors a safetensors file declares (name, dtype, shape), read by the safetensors library without loading any.

`safetensors.safe_open` reads and checks the JSON header in Rust: its dtypes, shapes and data offsets, which must
tile the data exactly. Before it, the 8-byte header length is bounded here (the library allows 100 MB) and compared
with the file's size, so a crafted file is refused in a sentence that says how big it claims to be. Checkpoint
loading then compares every name, shape and dtype with what the model config implies, before it allocates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from safetensors import SafetensorError, safe_open

MAX_HEADER_BYTES = 1 << 20  # ~100 bytes per tensor: a 24+24-layer model's ~1,000 tensors need ~100 KB
FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # what a checkpoint's weights may be stored as
TORCH_FLOATS = {"float16": "F16", "bfloat16": "BF16", "float32": "F32", "float64": "F64"}  # torch's names of them


@dataclass(frozen=True)
class TensorInfo:
    """One tensor as the header declares it."""

    dtype: str  # safetensors code, e.g. "F16"
    shape: tuple[int, ...]

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @classmethod
    def of(cls, tensor) -> TensorInfo:
        """A loaded tensor as a header would declare it (its dtype by safetensors' code where it is a float)."""
        name = str(tensor.dtype).removeprefix("torch.")
        return cls(TORCH_FLOATS.get(name, name), tuple(tensor.shape))


def read_header(path: str | Path, max_bytes: int = MAX_HEADER_BYTES) -> dict[str, TensorInfo]:
    """The tensors a safetensors file declares; raises ValueError saying what is malformed."""
    size = Path(path).stat().st_size
    with open(path, "rb") as f:
        prefix = f.read(8)
    if len(prefix) < 8:
        raise ValueError(f"{size} bytes is too short for a header")
    length = int.from_bytes(prefix, "little")
    if length > max_bytes:
        raise ValueError(f"its header claims {length:,} bytes, more than the {max_bytes:,} allowed")
    if length > size - 8:
        raise ValueError(f"its header claims {length:,} bytes but only {size - 8:,} follow")
    try:
        with safe_open(str(path), framework="pt") as f:
            slices = {name: f.get_slice(name) for name in f.keys()}
            return {name: TensorInfo(s.get_dtype(), tuple(s.get_shape())) for name, s in slices.items()}
    except SafetensorError as exc:
        raise ValueError(str(exc)[:300]) from None
