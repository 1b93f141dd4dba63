"""Hold out a random tenth of lecture-corpus pairs as the in-domain dev set, before they are ever trained on.

    python -m bench.lecture_dev explorer/training/corpus/lecture/09_new.tsv [...]

For each file named (new pairs, not yet trained on): a seeded random tenth of its distinct English sentences moves
to `bench/data/lecture_dev_en_de.tsv`, and every pair whose English is, or contains, a dev or lecture-set sentence
(`explorer.training.data.held_out_filter`) leaves the file. The corpus folder then holds training pairs only. The
first 917 dev pairs were drawn this way over the first eight files together (seed 2026), before any training.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from explorer.training.data import fold, held_out_filter, read_rows, read_tsv

DEV = Path(__file__).parent / "data" / "lecture_dev_en_de.tsv"
LECTURE_SET = Path(__file__).parent / "data" / "lecture_en_de.tsv"
FRACTION = 0.1
SEED = 2026


def draw(pairs: list[tuple[str, str]], fraction: float = FRACTION, seed: int = SEED) -> list[tuple[str, str]]:
    """A random `fraction` of the pairs, one per English sentence (folded), in their order."""
    first = {}
    for en, de in pairs:
        first.setdefault(fold(en), (en, de))
    unique = list(first.values())
    chosen = set(random.Random(seed).sample(range(len(unique)), round(fraction * len(unique))))
    return [pair for i, pair in enumerate(unique) if i in chosen]


def split(file: Path) -> tuple[int, int]:
    """Move a tenth of `file`'s pairs to the dev set and drop every held-out pair from it; (moved, dropped)."""
    pairs = read_tsv(file)
    dev = draw(pairs)
    with DEV.open("a", encoding="utf-8") as out:
        out.writelines(f"{en}\t{de}\n" for en, de in dev)
    held_out = held_out_filter(row[0] for path in (DEV, LECTURE_SET) for row in read_rows(path))
    kept = [(en, de) for en, de in pairs if not held_out(en)]
    file.write_text("".join(f"{en}\t{de}\n" for en, de in kept), encoding="utf-8")
    return len(dev), len(pairs) - len(kept)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lecture_dev", description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="new corpus files, never trained on")
    args = parser.parse_args()
    for file in args.files:
        moved, dropped = split(file)
        print(f"{file}: {moved} pairs to {DEV.name}, {dropped} pairs held out in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
