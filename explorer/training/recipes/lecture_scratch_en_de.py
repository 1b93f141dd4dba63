"""A translator for lectures, from scratch on a GPU: a heavier mix, its own vocabulary, a wider model.

    python -m explorer.training.train --recipe lecture_scratch_en_de --out OUT

The held-out sets and validation of `lecture_en_de`, but the heavier mix that `lecture_en_de` had before it became
the light one (Tatoeba, the lecture corpus written for this project at 5, news, dictionary terms at 0.3, example
sentences and interface text) and no `init_from`: the vocabulary (10,000 pieces) is learnt over the weighted mix,
so the field's words (attention, encoder, network) get pieces of their own, and the time-lapse starts from uniform
attention. Continuing the Tatoeba model, that mix cost valid.tsv 1.9 BLEU against the light mix (46.24 against
48.07, `lecture_en_de`'s docstring): a from-scratch run should be read against that.

Sized for one GPU and the app's CPU budget: 4+4 layers, d_model 384, 6 heads (20.4M weights, a 41 MB float16
checkpoint; the long example's trace stays within 300 ms on a 2-core CPU). Sized in time for a short GPU lease:
7 minutes of training, the learning rate cooling to zero over the last 2 (`cooldown_minutes`), so the run ends
decayed whatever a step costs on the machine at hand. The first lease (session 18: 32k-token steps, batches
collated in the loop, the loss in 256-row chunks) took ~0.26 s a step with the GPU mostly idle; now worker
processes collate ahead of the loop, the loss is one chunk on a GPU, the loss is read only every `log_every`
steps. A step costs about the same at every size there (bound by the CPU's kernel launches, `bench/gpu_step.py`), so
a step holds 131k tokens: 64k-token steps ran ~240k target tokens/s (session 21), 131k-token steps ~300-325k (session
25: 1,295 steps in 6 minutes, valid BLEU 41.5; bench/RESULTS.md). The data, the vocabulary and the encoding take
~75 s there before the first step: a lease's wall limit must leave them that. On this project's 2-core CPU a step
would take over ten seconds: on a CPU use `lecture_en_de`.
SIGTERM (or Ctrl-C) finishes the step, validates, saves and exits; the same command resumes from OUT.work.
"""

from dataclasses import replace

from explorer.training.recipe import DataSource
from explorer.training.recipes.lecture_en_de import DING, EXTRA, LECTURE, TATOEBA
from explorer.training.recipes.lecture_en_de import RECIPE as CONTINUED

NEWS, UI = "WMT news test sets 2008-2018 (research use)", "LibreOffice and VLC German translations"

# `lecture_en_de`'s held-out sets and validation, from scratch with its own vocabulary and the heavier mix
RECIPE = replace(
    CONTINUED,
    data_credit=(
        f"{TATOEBA}; the Attention Explorer lecture corpus (written for this project, MIT); {DING}; {NEWS}; "
        f"{UI} (MPL-2.0 / GPL-2.0-or-later)"
    ),
    known_limits=(
        "Domain: everyday sentences (Tatoeba), the language of a Transformer lecture (our corpus), news, dictionary "
        "examples and software strings; long or literary sentences still lose words or repeat.",
        "Length: trained on pairs of up to 128 pieces; sentences beyond about 20 words degrade.",
        "Vocabulary: a joint BPE of 10,000 pieces learnt over the weighted mix; rare names are split or copied.",
        "Register: the data mixes du/Sie and gives several valid translations per source; the model picks one.",
    ),
    sources=(
        DataSource("../shared/data/tatoeba-en-de/train.tsv", 1.0, "Tatoeba: short everyday sentences", TATOEBA),
        DataSource(
            LECTURE,
            5.0,
            "Lecture corpus: the language of a Transformer and machine-translation lecture, written for this project",
            "MIT (this project)",
        ),
        DataSource(f"{EXTRA}/wmt-news.tsv", 1.0, "WMT news test sets: long news sentences", "research use"),
        DataSource(f"{EXTRA}/ding-sentences.tsv", 2.0, "Ding dictionary: idiomatic example sentences", DING),
        DataSource(f"{EXTRA}/ding-terms.tsv", 0.3, "Ding dictionary: words and short phrases, every field", DING),
        DataSource(f"{EXTRA}/ui-strings.tsv", 0.5, "LibreOffice and VLC interface strings", UI),
    ),
    config=replace(
        CONTINUED.config,
        model=replace(
            CONTINUED.config.model,
            vocab_size=10000,
            d_model=384,
            n_heads=6,
            n_encoder_layers=4,
            n_decoder_layers=4,
            d_ff=1536,
        ),
        init_from=None,  # learnt over the mix
        max_tokens=131072,  # one GPU: thirty-two of the CPU recipes' batches in one step
        lr=2e-3,  # session 21's 1.5e-3 for 64k-token steps, raised with the batch
        warmup=300,
        max_steps=0,  # time decides: what a step costs depends on the machine
        cooldown_steps=0,
        max_minutes=7.0,  # what a 15-minute lease holds beside the machine's start, the data and the time-lapse
        cooldown_minutes=2.0,
        eval_every=2000,
        log_every=100,
        loader_workers=6,  # the batches are collated by these processes, ahead of the GPU
        threads=0,  # torch's default CPU threads
        # the time-lapse: log-spaced steps from the first ones, and the final model as the last point
        snapshot_steps=[10, 25, 50, 100, 200, 400, 800, 1600, 3200],
    ),
)
