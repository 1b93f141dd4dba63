"""A translator for lectures, from scratch on a GPU: `lecture_en_de`'s mix, its own vocabulary, a wider model.

    python -m explorer.training.train --recipe lecture_scratch_en_de --out OUT

The same corpora, weights, held-out sets and validation as `lecture_en_de` (Tatoeba, the lecture corpus written
for this project, news, dictionary and interface text), but no `init_from`: the vocabulary (10,000 pieces) is
learnt over the weighted mix, so the field's words (attention, encoder, network) get pieces of their own, and
the time-lapse starts from uniform attention. The terms weigh more here (0.3), the lecture corpus less (5).

Sized for one GPU and the app's CPU budget: 4+4 layers, d_model 384, 6 heads (20.4M weights, a 41 MB float16
checkpoint; the long example's trace stays within 300 ms on a 2-core CPU). On an H100 a 32k-token step of the mix
took ~0.26 s, fed by the CPU (the GPU mostly idle), so 2,100 steps are about ten minutes; on this project's 2-core
CPU a step would take over ten seconds, so on a CPU use `lecture_en_de`. Ten minutes are not enough: 2,100 steps
(~69M tokens, 11 epochs of the mix) left it short of the continued model on everyday sentences (bench/RESULTS.md).
SIGTERM (or Ctrl-C) finishes the step, validates, saves and exits; the same command resumes from OUT.work.
"""

from dataclasses import replace

from explorer.training.recipes.lecture_en_de import EXTRA, LECTURE
from explorer.training.recipes.lecture_en_de import RECIPE as CONTINUED

MIX = {f"{EXTRA}/ding-terms.tsv": 0.3, LECTURE: 5.0}  # weights that differ from `lecture_en_de`'s

# `lecture_en_de` (its sources, licences and held-out sets), from scratch with its own vocabulary and more terms
RECIPE = replace(
    CONTINUED,
    known_limits=tuple(
        "Vocabulary: a joint BPE of 10,000 pieces learnt over the weighted mix; rare names are split or copied."
        if limit.startswith("Vocabulary:")
        else limit
        for limit in CONTINUED.known_limits
    ),
    # ~16 epochs instead of ~4: the lecture corpus at 5 (not 8) still puts each pair in every epoch five times
    sources=tuple(replace(s, weight=MIX.get(s.spec, s.weight)) for s in CONTINUED.sources),
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
        max_tokens=32768,  # one GPU: eight of the CPU recipes' batches in one step
        lr=1.2e-3,
        warmup=300,
        max_steps=2100,  # what a ten-minute GPU lease held (the run: 3,000 planned, resumed at 1,569 with these two)
        cooldown_steps=600,
        max_minutes=0.0,  # the step count decides
        eval_every=1000,
        threads=0,  # the GPU does the work; torch's default CPU threads feed it
        # the time-lapse: log-spaced steps from the first ones, and the final model as the last point
        snapshot_steps=[10, 25, 50, 100, 200, 400, 700, 1200, 2000],
    ),
)
