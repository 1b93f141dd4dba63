"""Write `tests/js/fixtures/`: the settings the page gives the browser code (`settings.json`, as
`explorer.ui.viewer.settings` makes them for the shipped models) and a real wire trace with what Python reads from it
(`trace.json`, `explorer.app.wire.unpack`), so the browser's unpacking is checked against the server's own.

    PYTHONPATH=. python tests/js/make_fixture.py

The trace is the shipped lecture model's greedy decode of "I see the sea." (`tests/test_bundle.py` checks that the
fixtures still have every field the server sends, and the settings the trace request's fields).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np

from explorer.app import SHIPPED_MODELS
from explorer.app.callers import SERVER
from explorer.app.models import ModelRegistry, load_served
from explorer.app.schemas import trace_request
from explorer.app.wire import unpack
from explorer.ui.viewer import settings

SENTENCE = "I see the sea."
FIXTURES = Path(__file__).parent / "fixtures"


def rows(array: np.ndarray) -> list:
    return np.asarray(array, dtype=np.float64).tolist()


def main() -> None:
    models = ModelRegistry(load_served(SHIPPED_MODELS))
    handle = models.shipped
    wire = asyncio.run(models.atraced(handle, trace_request(SENTENCE), SERVER)).wire
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
    page = settings(None, [m.model_dump() for m in models.listing()])
    (FIXTURES / "settings.json").write_text(json.dumps(page, indent=1) + "\n")
    traced = json.dumps({"wire": wire, "reference": reference}, separators=(",", ":"))
    (FIXTURES / "trace.json").write_text(traced + "\n")
    print(f"{FIXTURES}: settings.json, trace.json ({len(wire['steps'])} steps)")


if __name__ == "__main__":
    main()
