"""A translator for lectures: the Tatoeba model trained on over Tatoeba, the lecture corpus, news and dictionary text.

    python -m explorer.training.train --recipe lecture_en_de --out OUT

Tatoeba alone gave a model that memorized short everyday sentences and failed on the first sentence a
lecturer types ("Attention is all you need."): the field's words occur in no sentence of any corpus we may
train on ("encoder": 0 sentences). The lecture corpus (`explorer/training/corpus/lecture/`, written for this
project) supplies them, at a weight that puts each of its pairs in every epoch several times. Tatoeba stays at
full weight, with long news sentences, idiomatic example sentences, and the dictionary's terms at a low weight
(a new fifth of them each epoch), so they teach vocabulary, not one-word answers. The lecture test set and the
corpus's own held-out tenth (`bench/data/lecture_dev_en_de.tsv`), with near-copies of their sentences, are never
trained on; the extra corpora come deduplicated against the evaluation sets (their MANIFEST.md), and the lecture
corpus holds no sentence of them either (tests/test_lecture_corpus.py).

It starts from the Tatoeba model (`init_from`: its weights, architecture and 8,000-piece vocabulary): on
this project's 2-core CPU a step takes ~0.9 s with native bf16 and ~1.4 s without; the from-scratch route with
a vocabulary learnt over the mix is `lecture_scratch_en_de`.
SIGTERM (or Ctrl-C) finishes the step, validates, saves and exits; the same command resumes from OUT.work.
"""

from explorer.training.recipe import DataSource, Recipe
from explorer.training.recipes.tatoeba_en_de import RECIPE as TATOEBA_MODEL
from explorer.training.trainer import TrainConfig

TATOEBA = "Tatoeba Project (tatoeba.org) and manythings.org/anki, CC-BY 2.0 France"
EXTRA = "../shared/data/en-de-extra/train"  # relative to the repository root; not shipped (MANIFEST.md there)
LECTURE = "explorer/training/corpus/lecture"  # written for this project, shipped (its README.md and GLOSSARY.md)
# the lecture test and dev sets: no training source is one of their sentences or contains one (data.held_out_filter)
HELD_OUT = ["bench/data/lecture_en_de.tsv", "bench/data/lecture_dev_en_de.tsv"]

RECIPE = Recipe(
    name="English→German for lectures",
    data_credit=(
        f"{TATOEBA}; the Attention Explorer lecture corpus (written for this project, MIT); "
        "Ding English-German dictionary 1.9 (GPL-2.0-or-later); WMT news test sets 2008-2018 "
        "(research use); LibreOffice and VLC German translations (MPL-2.0 / GPL-2.0-or-later)"
    ),
    known_limits=(
        "Domain: everyday sentences (Tatoeba), the language of a Transformer lecture (our corpus), news, dictionary "
        "examples and software strings; a small model, so long or literary sentences still lose words or repeat.",
        "Length: trained on pairs of up to 128 pieces; sentences beyond about 20 words degrade.",
        "Vocabulary: the Tatoeba model's joint BPE of 8,000 pieces; rare and technical words are split into many "
        "pieces or copied.",
        "Register: the data mixes du/Sie and gives several valid translations per source; the model picks one.",
    ),
    sources=(
        DataSource("../shared/data/tatoeba-en-de/train.tsv", 1.0, "Tatoeba: short everyday sentences", TATOEBA),
        DataSource(
            LECTURE,
            8.0,
            "Lecture corpus: the language of a Transformer and machine-translation lecture, written for this project",
            "MIT (this project)",
        ),
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
        exclude=HELD_OUT,
        max_tokens=4096,
        lr=7e-4,  # a quarter of the Tatoeba model's peak: new text without forgetting the old
        warmup=200,
        max_steps=5000,  # ~0.6-0.9 s a step on 2 cores with native bf16: what one sitting holds beside the evaluation
        cooldown_steps=1700,
        max_minutes=0.0,  # the step count decides; a session's limit stops it, the same command resumes
        eval_every=1500,
        bleu_sample=400,
        seed=1234,
        threads=2,
        bf16="auto",  # autocast where the CPU has native bf16 (1.6x faster there); fp32 elsewhere
        save_dtype="float16",
        # the time-lapse: the starting model (step 0), log-spaced steps, and the final model as the last point
        snapshot_steps=[25, 50, 100, 200, 400, 700, 1100, 1700, 2600, 4000],
    ),
)
