"""Why the look-ahead mask, measured: one small model trained twice with the project's CLI, with the mask and without
it, on the same data, steps and seed; then what each does with the Translate tab's examples.

    python -m bench.maskless [--work /var/tmp/mask_pair] [--ship checkpoints/mask-companions] [--reuse] [--json OUT]

1. Trains `--recipe mask_companion_en_de` twice (the second with `--lookahead-mask false`) into WORK/with-mask and
   WORK/without-mask (`--reuse`: keep runs already there); `--ship` copies both checkpoints there.
2. Reports, for both: the training loss at the end (the mean of the last logged steps), the validation loss and
   chrF; for every example sentence, the greedy translation of each; and, teacher-forced on the masked model's
   translation as in training, the maskless model's next-token accuracy and the mean weight its decoder
   self-attention puts on the next position (the one it is asked to predict: the cheat). The same numbers the app's
   "Without the mask" view shows (explorer/app/maskless.py).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.app_latency import ROOT
from explorer.app.examples import EXAMPLES

RUNS = {"with-mask": [], "without-mask": ["--lookahead-mask", "false"]}


def train(work: Path, reuse: bool) -> dict[str, Path]:
    outs = {}
    for name, flags in RUNS.items():
        out = work / name
        outs[name] = out
        if reuse and (out / "model.safetensors").exists():
            continue
        command = [sys.executable, "-m", "explorer.training.train", "--recipe", "mask_companion_en_de"]
        command += [*flags, "--out", str(out), "--work-dir", str(work / f"{name}.work")]
        print("$", " ".join(command[1:]), flush=True)
        subprocess.run(command, cwd=ROOT, check=True)
    return outs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="/var/tmp/mask_pair")
    parser.add_argument("--ship", default=None, help="copy both checkpoints into this folder")
    parser.add_argument("--reuse", action="store_true", help="keep the runs already in WORK")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    outs = train(Path(args.work), args.reuse)
    if args.ship:
        ship = Path(args.ship)
        for name, out in outs.items():
            target = ship / name
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            for f in ("config.json", "model.safetensors", "tokenizer.model", "README.md", "loss_curve.png"):
                if (out / f).exists():
                    shutil.copy2(out / f, target / f)
    from explorer.app.maskless import Companions

    companions = Companions.load(outs["with-mask"], outs["without-mask"])
    result = {"runs": companions.summary(), "examples": []}
    for sentence, _ in EXAMPLES:
        answer = companions.answer(sentence)
        result["examples"].append(
            {
                "sentence": sentence,
                "with_mask": answer["translations"]["with_mask"],
                "without_mask": answer["translations"]["without_mask"],
                "teacher_forced_accuracy": answer["forced"]["accuracy"],
                "next_position_weight": answer["forced"]["next_weight"],
            }
        )
    runs = result["runs"]
    print("\n| | with the mask | without the mask |\n|---|---|---|")
    for key, label in (("final_loss", "training loss, last 100 steps"), ("valid_loss", "validation loss"),
                       ("chrf", "validation chrF"), ("steps", "steps")):  # fmt: skip
        print(f"| {label} | {runs['with_mask'][key]} | {runs['without_mask'][key]} |")
    print("\n| sentence | with the mask | without the mask | maskless: teacher-forced accuracy | weight on next |")
    print("|---|---|---|---|---|")
    for e in result["examples"]:
        print(
            f"| {e['sentence']} | {e['with_mask']} | {e['without_mask'] or '(nothing: </s> first)'} | "
            f"{e['teacher_forced_accuracy']:.0%} | "
            f"{e['next_position_weight']:.2f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
