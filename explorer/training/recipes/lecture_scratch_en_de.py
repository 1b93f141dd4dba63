"""A translator for lectures, from scratch: Tatoeba plus news, dictionary and interface text, its own vocabulary.

    python -m explorer.training.train --recipe lecture_scratch_en_de --out OUT

Tatoeba alone gave a model that memorized short everyday sentences and failed on the first sentence a
lecturer types ("Attention is all you need."). This mix keeps Tatoeba at full weight and adds long news
sentences, idiomatic example sentences, and the dictionary's terms at a low weight (a new fifth of them
each epoch), so they teach vocabulary, not one-word answers. The lecture test set
(`bench/data/lecture_en_de.tsv`) and near-copies of its sentences are never trained on.

The vocabulary (10,000 pieces) is learnt over the weighted mix, so the field's words (attention, encoder,
network) get pieces of their own; the Tatoeba model's 8,000 pieces, learnt on Tatoeba alone, split them (the
first run of `lecture_en_de`, which continued that model, still failed on them: bench/RESULTS.md). The terms
weigh more here (0.3). At ~1.4 s a step on 2 cores, 10,000 steps are about four hours: two sessions, resumed from
OUT.work.
SIGTERM (or Ctrl-C) finishes the step, validates, saves and exits; the same command resumes from OUT.work.
"""

from explorer.model.config import ModelConfig
from explorer.training.recipe import DataSource, Recipe
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
        "Vocabulary: a joint BPE of 10,000 pieces learnt over the weighted mix; rare names are split or copied.",
        "Register: the data mixes du/Sie and gives several valid translations per source; the model picks one.",
    ),
    sources=(
        DataSource("../shared/data/tatoeba-en-de/train.tsv", 1.0, "Tatoeba: short everyday sentences", TATOEBA),
        DataSource(f"{EXTRA}/wmt-news.tsv", 1.0, "WMT news test sets: long news sentences", "research use"),
        DataSource(
            f"{EXTRA}/ding-sentences.tsv", 2.0, "Ding dictionary: idiomatic example sentences", "GPL-2.0-or-later"
        ),
        DataSource(
            f"{EXTRA}/ding-terms.tsv", 0.3, "Ding dictionary: words and short phrases, every field", "GPL-2.0-or-later"
        ),
        DataSource(
            f"{EXTRA}/ui-strings.tsv", 0.5, "LibreOffice and VLC interface strings", "MPL-2.0 / GPL-2.0-or-later"
        ),
    ),
    config=TrainConfig(
        # The Tatoeba model's architecture (pre-LN, 3+3 layers, 4 heads) with a vocabulary learnt over the mix.
        model=ModelConfig(
            vocab_size=10000,
            d_model=256,
            n_heads=4,
            n_encoder_layers=3,
            n_decoder_layers=3,
            d_ff=1024,
            dropout=0.1,
            max_len=128,
            norm_first=True,
        ),
        valid="../shared/data/tatoeba-en-de/valid.tsv",  # its sources are also removed from the training data
        exclude=["bench/data/lecture_en_de.tsv"],  # the lecture test set: never trained on
        max_tokens=4096,
        lr=3e-3,  # the Tatoeba model's schedule, longer
        warmup=1000,
        max_steps=10000,  # ~1.4 s a step on 2 cores: about four hours, resumed across sessions
        cooldown_steps=3500,
        max_minutes=0.0,  # the step count decides; a session's limit stops it, the same command resumes
        eval_every=2000,
        bleu_sample=400,
        seed=1234,
        threads=2,
        bf16="auto",  # autocast where the CPU has native bf16 (1.6x faster there); fp32 elsewhere
        save_dtype="float16",
        # the time-lapse: log-spaced steps from the first hundred, and the final model as the last point
        snapshot_steps=[100, 150, 250, 400, 650, 1000, 1600, 2500, 4000, 6300],
    ),
)
