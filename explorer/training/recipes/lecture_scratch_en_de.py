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

from dataclasses import replace

from explorer.training.recipes.lecture_en_de import RECIPE as CONTINUED

# `lecture_en_de` (its sources, licences and architecture), from scratch with its own vocabulary and more terms
RECIPE = replace(
    CONTINUED,
    known_limits=tuple(
        "Vocabulary: a joint BPE of 10,000 pieces learnt over the weighted mix; rare names are split or copied."
        if limit.startswith("Vocabulary:")
        else limit
        for limit in CONTINUED.known_limits
    ),
    sources=tuple(replace(s, weight=0.3) if s.spec.endswith("ding-terms.tsv") else s for s in CONTINUED.sources),
    config=replace(
        CONTINUED.config,
        model=replace(CONTINUED.config.model, vocab_size=10000),  # learnt over the mix: no init_from
        init_from=None,
        lr=3e-3,  # the Tatoeba model's schedule, longer
        warmup=1000,
        max_steps=10000,  # ~1.4 s a step on 2 cores: about four hours, resumed across sessions
        cooldown_steps=3500,
        max_minutes=0.0,  # the step count decides; a session's limit stops it, the same command resumes
        eval_every=2000,
        # the time-lapse: log-spaced steps from the first hundred, and the final model as the last point
        snapshot_steps=[100, 150, 250, 400, 650, 1000, 1600, 2500, 4000, 6300],
    ),
)
