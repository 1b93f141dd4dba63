"""Draw the lecture corpus's in-domain dev set: a random tenth of its pairs, kept out of every training run.

    python -m bench.lecture_dev            # writes bench/data/lecture_dev_en_de.tsv
    python -m bench.lecture_dev --check    # says whether the committed file is the one this draw gives

The draw is made once, before any training, with a fixed seed over the corpus's pairs in file order, and the
file is committed. The recipes list it in `exclude`, so no training source is one of its English sentences or
contains one (`explorer.training.data.held_out_filter`): the pairs stay in the corpus folder, and the
training run drops them.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from explorer.training.data import LECTURE_CORPUS, fold, read_corpus

DEV = Path(__file__).parent / "data" / "lecture_dev_en_de.tsv"
FRACTION = 0.1
SEED = 2026


def draw(pairs: list[tuple[str, str]], fraction: float = FRACTION, seed: int = SEED) -> list[tuple[str, str]]:
    """A random `fraction` of the pairs, one per English sentence (folded), in corpus order."""
    first = {}
    for en, de in pairs:
        first.setdefault(fold(en), (en, de))
    unique = list(first.values())
    chosen = set(random.Random(seed).sample(range(len(unique)), round(fraction * len(unique))))
    return [pair for i, pair in enumerate(unique) if i in chosen]


def render(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"{en}\t{de}\n" for en, de in pairs)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lecture_dev", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args()
    dev = render(draw(read_corpus(str(LECTURE_CORPUS))))
    if args.check:
        same = DEV.is_file() and DEV.read_text(encoding="utf-8") == dev
        print(f"{DEV}: {'the same draw' if same else 'differs from this draw'}")
        return 0 if same else 1
    DEV.write_text(dev, encoding="utf-8")
    print(f"{DEV}: {dev.count(chr(10))} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
