"""A training time-lapse: the Translate tab's examples decoded by the model at log-spaced steps of its training.

    python -m explorer.app.timelapse --checkpoint DIR --snapshots WORK_DIR/snapshots [--sentence S ...]

The training CLI keeps the weights at `snapshot_steps` (`WORK_DIR/snapshots/step_NNNNNN.safetensors`); this
decodes each example with each of them and with the final model, and writes `DIR/timelapse.json.gz`: the wire
traces, one file. The viewer then offers a *training step* control for those sentences: the same sentence,
kind, layer and head at an earlier point of training. The file is read like the rest of a checkpoint: bounded
before it is decompressed, checked field by field, and tied to the final weights by their fingerprint; a file
that is not what it should be is refused with one line naming what is wrong.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import torch
from safetensors.torch import load_file

from ..interpret.handle import ModelHandle, fingerprint, load_handle
from ..interpret.trace import build_traces, plan_trace
from ..model.checkpoint import CheckpointError
from .encoded import Encoded
from .examples import EXAMPLES
from .questions.lens import lens_lists, trace_lens
from .schemas import trace_request
from .wire import to_wire

FILE = "timelapse.json.gz"
VERSION = 1
MAX_FILE_BYTES = 16 * 2**20  # compressed
MAX_JSON_BYTES = 96 * 2**20  # decompressed: read in bounded pieces, never more
MAX_POINTS = 32
MAX_SENTENCES = 16
SNAPSHOT = re.compile(r"step_(\d{6})\.safetensors")


def build(checkpoint: str | Path, snapshots: str | Path, sentences: list[str]) -> dict:
    """Every sentence decoded greedily by every snapshot and by the final model (the last point)."""
    final = load_handle(checkpoint)
    files = sorted(p for p in Path(snapshots).iterdir() if SNAPSHOT.fullmatch(p.name))
    steps = [int(SNAPSHOT.fullmatch(p.name).group(1)) for p in files]
    final_step = int(final.metadata.get("steps") or (max(steps) + 1 if steps else 0))
    points = []
    requests = [trace_request(s) for s in sentences]
    for step, path in [*zip(steps, files), (final_step, None)]:
        if path is not None and step >= final_step:
            continue
        handle = final
        if path is not None:
            model = type(final.model)(final.config).eval()
            model.load_state_dict({k: v.float() for k, v in load_file(str(path)).items()})
            handle = replace(final, model=model, fingerprint=fingerprint(model, final.tokenizer))
        traces = build_traces(handle, [plan_trace(handle, r) for r in requests])
        # each point's own logit lens goes with its traces: the server's /ask/lens would read the final model's
        wires = [
            to_wire(t, handle) | {"model_key": "shipped", "lens": lens_lists(trace_lens(handle, t), handle)}
            for t in traces
        ]
        points.append({"step": step, "outputs": [w["outputs"][-1] for w in wires], "traces": wires})
        print(f"step {step}: " + " | ".join(w["outputs"][-1] for w in wires[:3]), flush=True)
    return {"version": VERSION, "fingerprint": final.fingerprint, "sentences": sentences, "points": points}


def write(timelapse: dict, checkpoint: str | Path) -> Path:
    path = Path(checkpoint) / FILE
    data = gzip.compress(json.dumps(timelapse, ensure_ascii=False, separators=(",", ":")).encode(), 9, mtime=0)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"the time-lapse is {len(data):,} bytes; a checkpoint holds at most {MAX_FILE_BYTES:,}")
    path.write_bytes(data)
    return path


def read(checkpoint: str | Path, handle: ModelHandle) -> dict | None:
    """The checkpoint's time-lapse, checked; None when it has none; CheckpointError naming what is wrong."""
    path = Path(checkpoint) / FILE
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CheckpointError(f"{path}: {size:,} bytes, more than a time-lapse may have ({MAX_FILE_BYTES:,})")
    try:
        with gzip.open(path, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise CheckpointError(f"{path}: not a gzip file ({exc})") from None
    if len(data) > MAX_JSON_BYTES:
        raise CheckpointError(f"{path}: decompresses to more than {MAX_JSON_BYTES:,} bytes")
    try:
        timelapse = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise CheckpointError(f"{path}: not JSON ({exc})") from None
    problem = _problem(timelapse, handle)
    if problem:
        raise CheckpointError(f"{path}: {problem}")
    return timelapse


def _problem(t, handle: ModelHandle) -> str | None:
    """What is wrong with a time-lapse read from disk, or None."""
    if not isinstance(t, dict) or t.get("version") != VERSION:
        return f"not a version-{VERSION} time-lapse"
    if t.get("fingerprint") != handle.fingerprint:
        return "it was recorded for other weights (its fingerprint is not this model's)"
    sentences, points = t.get("sentences"), t.get("points")
    if not isinstance(sentences, list) or not 0 < len(sentences) <= MAX_SENTENCES:
        return f"sentences must be a list of 1 to {MAX_SENTENCES}"
    if not all(isinstance(s, str) and 0 < len(s) <= 1000 for s in sentences):
        return "every sentence must be a text of 1 to 1,000 characters"
    if not isinstance(points, list) or not 0 < len(points) <= MAX_POINTS:
        return f"points must be a list of 1 to {MAX_POINTS}"
    last = -1
    for i, point in enumerate(points):
        if not isinstance(point, dict) or not isinstance(point.get("step"), int) or point["step"] <= last:
            return f"points[{i}].step must be a whole number larger than the one before"
        last = point["step"]
        traces = point.get("traces")
        if not isinstance(traces, list) or len(traces) != len(sentences):
            return f"points[{i}] must hold one trace per sentence"
        for j, wire in enumerate(traces):
            if not isinstance(wire, dict) or not isinstance(wire.get("request"), dict):
                return f"points[{i}].traces[{j}] is not a trace"
            if wire["request"].get("sentence") != sentences[j] or not isinstance(wire.get("attention"), dict):
                return f"points[{i}].traces[{j}] is not the trace of {sentences[j][:40]!r}"
    return None


class TimeLapse:
    """A checked time-lapse, its traces encoded once per sentence for the viewer's route."""

    def __init__(self, timelapse: dict | None):
        self.sentences: list[str] = list(timelapse["sentences"]) if timelapse else []
        self.steps: list[int] = [p["step"] for p in timelapse["points"]] if timelapse else []
        self.encoded: dict[str, Encoded] = {}
        for j, sentence in enumerate(self.sentences):
            answer = {
                "sentence": sentence,
                "steps": self.steps,
                "traces": [p["traces"][j] for p in timelapse["points"]],
            }
            self.encoded[sentence] = Encoded.json(answer)

    def settings(self) -> dict:
        """What the viewer needs to know before it asks: which sentences have a time-lapse, at which steps."""
        return {"sentences": self.sentences, "steps": self.steps}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.app.timelapse", description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--snapshots", required=True, help="WORK_DIR/snapshots of the run that trained it")
    parser.add_argument("--sentence", nargs="*", default=None, help="default: the Translate tab's examples")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    sentences = args.sentence or [s for s, _ in EXAMPLES]
    try:
        path = write(build(args.checkpoint, args.snapshots, sentences), args.checkpoint)
        read(args.checkpoint, load_handle(args.checkpoint))  # what was written reads back
    except (CheckpointError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
