"""Every head's role in a model, as the explorer shows them, and what measuring them costs.

    python -m bench.head_roles [--checkpoint DIR] [--write] [--json OUT]

The roles question's answer (`explorer/app/questions/roles.py`: the probe set of the examples, the hand-aligned
sentences and 200 of the mini corpus's, each teacher-forced on the model's greedy translation), as one table row per
head with its role, the rule's words and every score, on one torch thread, and its seconds (computed once per model by
the server, then kept). `--write` stores them in the checkpoint's metadata (`head_roles`), where the server reads them
and the page brings them with it: the shipped checkpoints carry theirs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import torch

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.questions.roles import measure_roles
from explorer.interpret.handle import load_handle


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.head_roles", description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--json")
    parser.add_argument("--write", action="store_true", help="store the roles in the checkpoint's config.json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    handle = load_handle(args.checkpoint)
    t0 = time.perf_counter()
    answer = measure_roles(handle)
    seconds = time.perf_counter() - t0
    print(f"{handle.name}: {len(answer.heads)} heads on {answer.probe} probe sentences, {seconds:.1f} s\n")
    print(
        "| kind | layer | head | role | as the page says it | prev / self / next | sink | punct. | rare | broad | AER |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for h in answer.heads:

        def cell(name: str, scores: dict = h.scores) -> str:
            return f"{scores[name]:.2f}" if name in scores else "–"

        print(
            f"| {h.kind} | {h.layer} | {h.head} | {h.role or 'unlabelled'} | {h.says} | {cell('previous')} / "
            f"{cell('self')} / {cell('next')} | {cell('sink')} | {cell('punctuation')} | {cell('rare')} | "
            f"{cell('broad')} | {cell('alignment')} |"
        )
    print(
        "\n"
        + ", ".join(f"{role or 'unlabelled'}: {n}" for role, n in Counter(h.role for h in answer.heads).most_common())
    )
    if args.json:
        Path(args.json).write_text(json.dumps(answer.model_dump() | {"seconds": seconds}, indent=1))
    if args.write:
        from explorer.model.checkpoint import update_metadata

        update_metadata(args.checkpoint, {"head_roles": answer.model_dump(exclude={"what"})})
        print(f"stored in {Path(args.checkpoint) / 'config.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
