"""A translator for lectures: the Tatoeba model trained on, over Tatoeba plus news, dictionary and interface text.

    python -m explorer.training.train --recipe lecture_en_de --out OUT

Tatoeba alone gave a model that memorized short everyday sentences and failed on the first sentence a
lecturer types ("Attention is all you need."). This mix keeps Tatoeba at full weight and adds long news
sentences, idiomatic example sentences, and the dictionary's terms at a low weight (a new fifth of them
each epoch), so they teach vocabulary, not one-word answers. The lecture test set
(`bench/data/lecture_en_de.tsv`) and near-copies of its sentences are never trained on.

It starts from the Tatoeba model (`init_from`: its weights, architecture and 8,000-piece vocabulary): on
this project's 2-core CPU without native bf16 a step takes ~1.4 s, and training from scratch with a
vocabulary learnt over the mix (drop `init_from`, set `vocab_size`) would need the Tatoeba model's ~10,000
steps, four hours, before it matched that model's BLEU: more than a session (bench/RESULTS.md).
SIGTERM (or Ctrl-C) finishes the step, validates, saves and exits; the same command resumes from OUT.work.
"""

from explorer.training.recipe import DataSource, Recipe
from explorer.training.recipes.tatoeba_en_de import RECIPE as TATOEBA_MODEL
from explorer.training.trainer import TrainConfig

TATOEBA = "Tatoeba Project (tatoeba.org) and manythings.org/anki, CC-BY 2.0 France"
EXTRA = "../shared/data/en-de-extra/train"  # relative to the repository root; not shipped (MANIFEST.md there)

RECIPE = Recipe(
    name="English→German for lectures",
    data_credit=(
        f"{TATOEBA}; Ding English-German dictionary 1.9 (GPL-2.0-or-later); WMT news test sets 2008-2018 "
        "(research use); LibreOffice and VLC German translations (MPL-2.0 / GPL-2.0-or-later)"
    ),
    known_limits=(
        "Domain: everyday sentences (Tatoeba), news, dictionary examples and software strings; a small model "
        "trained for three hours on a CPU, so long or literary sentences still lose words or repeat.",
        "Length: trained on pairs of up to 128 pieces; sentences beyond about 20 words degrade.",
        "Vocabulary: the Tatoeba model's joint BPE of 8,000 pieces; rare and technical words are split into many "
        "pieces or copied.",
        "Register: the data mixes du/Sie and gives several valid translations per source; the model picks one.",
    ),
    sources=(
        DataSource("../shared/data/tatoeba-en-de/train.tsv", 1.0, "Tatoeba: short everyday sentences", TATOEBA),
        DataSource(f"{EXTRA}/wmt-news.tsv", 1.0, "WMT news test sets: long news sentences", "research use"),
        DataSource(
            f"{EXTRA}/ding-sentences.tsv", 2.0, "Ding dictionary: idiomatic example sentences", "GPL-2.0-or-later"
        ),
        DataSource(
            f"{EXTRA}/ding-terms.tsv", 0.2, "Ding dictionary: words and short phrases, every field", "GPL-2.0-or-later"
        ),
        DataSource(
            f"{EXTRA}/ui-strings.tsv", 0.5, "LibreOffice and VLC interface strings", "MPL-2.0 / GPL-2.0-or-later"
        ),
    ),
    config=TrainConfig(
        # The Tatoeba model's architecture (pre-LN, 3+3 layers, 4 heads); init_from brings its weights and vocabulary.
        model=TATOEBA_MODEL.config.model,
        init_from="checkpoints/tatoeba-en-de",
        valid="../shared/data/tatoeba-en-de/valid.tsv",  # its sources are also removed from the training data
        exclude=["bench/data/lecture_en_de.tsv"],  # the lecture test set: never trained on
        max_tokens=4096,
        lr=7e-4,  # a quarter of the Tatoeba model's peak: new text without forgetting the old
        warmup=200,
        max_steps=1700,  # ~1.4-5 s a step on 2 cores shared with the session's other work: what a session held
        cooldown_steps=900,
        max_minutes=170.0,
        eval_every=800,
        bleu_sample=400,
        seed=1234,
        threads=2,
        bf16="auto",  # autocast where the CPU has native bf16 (1.6x faster there); fp32 elsewhere
        save_dtype="float16",
        # the time-lapse: the starting model (step 0), log-spaced steps, and the final model as the last point
        snapshot_steps=[25, 50, 100, 150, 250, 400, 600, 900, 1300],
    ),
)
