"""The header of a safetensors file, read and checked without loading any tensor.

A safetensors file is an 8-byte little-endian header length, a JSON header
`{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}}`,
then the tensor bytes. Reading only the header lets checkpoint loading compare every name, shape and
dtype with what the model config implies, and check that the data fits the file, before it allocates.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

MAX_HEADER_BYTES = 1 << 20  # ~100 bytes per tensor: a 24+24-layer model's ~1,000 tensors need ~100 KB
MAX_NAME_CHARS = 200
# dtype code -> (bytes per element, the torch dtype it loads as)
DTYPES = {
    "BOOL": (1, "torch.bool"),
    "U8": (1, "torch.uint8"),
    "I8": (1, "torch.int8"),
    "F8_E5M2": (1, "torch.float8_e5m2"),
    "F8_E4M3": (1, "torch.float8_e4m3fn"),
    "I16": (2, "torch.int16"),
    "U16": (2, "torch.uint16"),
    "F16": (2, "torch.float16"),
    "BF16": (2, "torch.bfloat16"),
    "I32": (4, "torch.int32"),
    "U32": (4, "torch.uint32"),
    "F32": (4, "torch.float32"),
    "I64": (8, "torch.int64"),
    "U64": (8, "torch.uint64"),
    "F64": (8, "torch.float64"),
}
FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # what a checkpoint's weights may be stored as


@dataclass(frozen=True)
class TensorInfo:
    """One tensor as the header declares it."""

    dtype: str  # safetensors code, e.g. "F16"
    shape: tuple[int, ...]

    @property
    def torch_dtype(self) -> str:
        return DTYPES[self.dtype][1]

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES


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
        raw = f.read(length)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ValueError(f"its header is not valid JSON ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not isinstance(header, dict):
        raise ValueError(f"its header is a JSON {type(header).__name__}, not an object")
    data_bytes = size - 8 - length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if len(name) > MAX_NAME_CHARS or not name.isprintable():
            raise ValueError(f"tensor name {name[:60]!r} is not a plausible name")
        tensors[name] = _tensor_info(name, entry, data_bytes)
    return tensors


def _tensor_info(name: str, entry: object, data_bytes: int) -> TensorInfo:
    """Check one header entry: a known dtype, a shape of non-negative ints, offsets inside the data."""
    if not isinstance(entry, dict):
        raise ValueError(f"tensor {name} has header entry {_brief(entry)}, not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(f"tensor {name} has unknown dtype {_brief(dtype)}")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise ValueError(f"tensor {name} has shape {_brief(shape)}, not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_int(o) for o in offsets)) or not (
        0 <= offsets[0] <= offsets[1]
    ):
        raise ValueError(f"tensor {name} has data_offsets {_brief(offsets)}, not [begin, end]")
    begin, end = offsets
    if end > data_bytes:
        raise ValueError(
            f"tensor {name} has data_offsets [{begin}, {end}] past the end of the file's {data_bytes:,} data bytes"
        )
    needed = math.prod(shape) * DTYPES[dtype][0]
    if end - begin != needed:
        raise ValueError(
            f"tensor {name} has {end - begin:,} data bytes, but shape {tuple(shape)} of {dtype} needs {needed:,}"
        )
    return TensorInfo(dtype, tuple(shape))


def _brief(value: object) -> str:
    """A short repr of a header value; nested containers only by type, so no deep recursion."""
    scalars = (str, int, float, bool, type(None))
    short_list = isinstance(value, list) and len(value) <= 8 and all(isinstance(v, scalars) for v in value)
    if isinstance(value, scalars) or short_list:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"<a JSON {type(value).__name__}>"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
