"""Write `tests/js/fixtures/trace.json`: a real wire trace for the browser code's unit tests, and what Python reads
from it (`explorer.app.wire.unpack`), so the browser's unpacking is checked against the server's own.

    PYTHONPATH=. python tests/js/make_fixture.py

The trace is the shipped lecture model's greedy decode of "I see the sea." (`tests/test_bundle.py` checks that the
fixture still has every field the server sends).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.models import ModelRegistry
from explorer.app.schemas import TraceQuery, validate
from explorer.app.wire import unpack
from explorer.interpret.handle import load_handle

SENTENCE = "I see the sea."
OUT = Path(__file__).parent / "fixtures" / "trace.json"


def rows(array: np.ndarray) -> list:
    return np.asarray(array, dtype=np.float64).tolist()


def main() -> None:
    handle = load_handle(SHIPPED_CHECKPOINT)
    wire = ModelRegistry(handle).trace(handle, validate(TraceQuery, {"sentence": SENTENCE}).to_request())
    attention = {kind: unpack(wire["attention"][kind]) for kind in ("encoder_self", "decoder_self", "cross")}
    last, t = wire["model"]["n_layers"]["cross"] - 1, 2
    reference = {  # what the browser must read from the wire, as Python reads it
        "t": t,
        "cross_L_last_H1": rows(attention["cross"][last, 1, :t]),
        "decoder_self_L0_H0": rows(attention["decoder_self"][0, 0, :t, :t]),
        "encoder_self_L0_mean": rows(attention["encoder_self"][0].mean(axis=0)),
        "cross_rollout_L_last": rows(unpack(wire["rollout"]["cross"])[last, :t]),
        "scores_L0_H0": rows(unpack(wire["scores"]["decoder_self"])[0, 0, :t, :t]),
    }
    OUT.write_text(json.dumps({"wire": wire, "reference": reference}, separators=(",", ":")) + "\n")
    print(f"{OUT}: {OUT.stat().st_size:,} bytes, {len(wire['steps'])} steps")


if __name__ == "__main__":
    main()
