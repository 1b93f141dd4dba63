"""Attention Explorer: `python app.py [--checkpoint DIR [DIR ...]] [--device auto|cpu|cuda] [--host H] [--port P]`.

Loads the shipped English→German models (the lecture translator, which the page opens on, and the Tatoeba model, to
compare), or the models given (the first opens: checkpoints, Marian folders, `hf:Helsinki-NLP/opus-mt-en-fr`), and
serves the explorer UI with uvicorn (`explorer.server.server`).
On a Hugging Face Space, GRADIO_SERVER_NAME=0.0.0.0 and GRADIO_SERVER_PORT=7860 are set, and it binds there.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from explorer.app import SHIPPED_MODELS  # noqa: E402
from explorer.model.formats import split_checkpoints  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--checkpoint",
        nargs="+",
        default=split_checkpoints(os.environ["EXPLORER_CHECKPOINT"])
        if os.environ.get("EXPLORER_CHECKPOINT")
        else [str(p) for p in SHIPPED_MODELS],
        help="the models to serve, the first the one the page opens on (default: the shipped lecture and Tatoeba "
        "models): a checkpoint folder, a Marian folder as transformers saves one (converted on load), or "
        "hf:OWNER/NAME, a Marian model on the Hugging Face Hub (downloaded into its cache). A request picks one "
        "with model=KEY, the folder's or the Hub model's name (GET /ae/api/models). EXPLORER_CHECKPOINT sets them "
        f"too, separated by {os.pathsep!r}",
    )
    parser.add_argument(
        "--device",
        default=os.environ.get("EXPLORER_DEVICE", "auto"),
        help="where the served models run: auto (CUDA when a GPU is available, else the CPU), cpu, cuda, mps. "
        "The Train tab trains on the same choice.",
    )
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    parser.add_argument(
        "--trained-idle-minutes",
        type=float,
        default=os.environ.get("EXPLORER_TRAINED_IDLE_MINUTES"),
        help="a model trained in the app, unused for this long, is dropped with its run and checkpoint file "
        "(default: explorer.app.models.MODEL_IDLE_S)",
    )
    parser.add_argument(
        "--trusted-proxy",
        default=os.environ.get("AE_TRUSTED_PROXIES", ""),
        help="the reverse proxy in front of the app (addresses or networks, comma-separated; * where only the proxy "
        "can reach the app, as on a Hugging Face Space): a request is counted by the address that proxy appended to "
        "X-Forwarded-For, the right-most one. Default: none (the connection's own address)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=int(os.environ.get("EXPLORER_THREADS", "1")),
        help="torch CPU threads (default 1: one sentence decodes as fast as with 2, and concurrent users do not "
        "oversubscribe the cores)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.environ.get("EXPLORER_WORKERS"),
        help="batches the model computes at once, each on one core (default: the CPUs this process may use, its "
        "affinity within the container's CPU quota, not the host's count)",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(max(1, args.threads))
    from explorer.app.models import load_served
    from explorer.app.timelapse import TimeLapse, read
    from explorer.interpret.handle import device_label, serving_device
    from explorer.model.checkpoint import CheckpointError

    try:
        from explorer.app.callers import trusted_proxies

        proxies = trusted_proxies(args.trusted_proxy)
        device = serving_device(args.device)
        served = load_served(args.checkpoint, device)
        timelapse = TimeLapse(read(args.checkpoint[0], next(iter(served.values()))))
    except (CheckpointError, ValueError) as exc:
        print(f"error: cannot load the model: {exc}", file=sys.stderr)
        return 2
    from explorer.app.scheduler import available_cpus

    workers = args.workers or available_cpus()
    print(f"* Serving {', '.join(served)} on {device_label(device)}, {workers} model slots", flush=True)

    from explorer.server.server import build_app, serve

    lifetimes = {} if args.trained_idle_minutes is None else {"trained_idle_s": float(args.trained_idle_minutes) * 60}
    app, _ = build_app(served, timelapse, proxies=proxies, workers=workers, **lifetimes)
    serve(app, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
