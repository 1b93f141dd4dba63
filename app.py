"""Attention Explorer: `python app.py [--checkpoint DIR] [--host H] [--port P]`.

Loads the shipped English→German model (or the checkpoint given) and serves the explorer UI with uvicorn
(`explorer.ui.server`). On a Hugging Face Space, GRADIO_SERVER_NAME=0.0.0.0 and GRADIO_SERVER_PORT=7860 are set,
and it binds there.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# After every event Gradio rebuilds a pandas summary of up to 10,000 past events for its monitoring page: at lecture
# scale that was most of the server's CPU (200 students: 9.5 s). Once per 1,000 events, over the last 2,000, is plenty.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "2000")
if os.environ.get("SPACES_ZERO_GPU"):
    import spaces  # noqa: F401  # on a ZeroGPU Space: must be imported before torch initializes CUDA

from explorer.app import SHIPPED_CHECKPOINT as DEFAULT_CHECKPOINT  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=os.environ.get("EXPLORER_CHECKPOINT", str(DEFAULT_CHECKPOINT)))
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    parser.add_argument(
        "--session-idle-minutes",
        type=float,
        default=os.environ.get("EXPLORER_SESSION_IDLE_MINUTES"),
        help="a browser session without any event for this long is deleted with its trained model and files "
        "(default: explorer.app.session.SESSION_IDLE_S)",
    )
    parser.add_argument(
        "--files-max-age-minutes",
        type=float,
        default=os.environ.get("EXPLORER_FILES_MAX_AGE_MINUTES"),
        help="files the app hands out (.npz exports, trained checkpoints, uploads) are deleted this long after they "
        "were made "
        "(default: explorer.ui.FILES_MAX_AGE_S)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=int(os.environ.get("EXPLORER_THREADS", "1")),
        help="torch CPU threads (default 1: one sentence decodes as fast as with 2, and concurrent users do not "
        "oversubscribe the cores)",
    )
    return parser.parse_args(argv)


def warm_up_gradio() -> None:
    """Gradio imports matplotlib (if installed) while handling the first event: 0.5 s that the first student
    would wait for. Import it now, at start, instead."""
    try:
        import matplotlib  # noqa: F401

        matplotlib.get_backend()
    except ImportError:
        pass


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(max(1, args.threads))
    from explorer.app.timelapse import TimeLapse, read
    from explorer.interpret.handle import load_handle
    from explorer.model.checkpoint import CheckpointError

    try:
        handle = load_handle(args.checkpoint)
        timelapse = TimeLapse(read(args.checkpoint, handle))
    except CheckpointError as exc:
        print(f"error: cannot load the model: {exc}", file=sys.stderr)
        return 2

    from explorer.ui.server import build_app, serve

    warm_up_gradio()
    lifetimes = {}
    if args.session_idle_minutes is not None:
        lifetimes["idle_s"] = float(args.session_idle_minutes) * 60
    if args.files_max_age_minutes is not None:
        lifetimes["files_max_age_s"] = float(args.files_max_age_minutes) * 60
    app, _ = build_app(handle, timelapse, **lifetimes)
    serve(app, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
