"""A deeper lecture translator: the shipped lecture model grown from 3+3 to 6+6 layers and trained on its own light
mix, with the lecture corpus's grammar drills weighted up (issue 68).

    python -m explorer.training.train --recipe deep_lecture_en_de --out OUT            # resumes from OUT.work
    python -m explorer.training.train --recipe deep_lecture_en_de --grow 4 4 --out OUT  # the 4+4 variant

Why deeper: the lecture model has the field's words and misses grammar a bigger model holds (case after verbs and
prepositions, agreement, a second clause's verb; `bench/RESULTS.md` "The lecture translator"). Why grown rather than
restarted: `grow.py` puts the shipped layers at every other position and starts each new layer as the identity (its
attention and feed-forward outputs zero), so step 0 writes exactly the shipped model's translations
(tests/test_grow.py), and training can only spend its tokens on what the shipped model lacks.

The data are the shipped model's light mix (Tatoeba 1, the lecture corpus 2, Ding sentences 0.5), which kept
valid.tsv where the heavier mixes lost it, with the corpus's four grammar files (`09_objects` … `12_agreement`: the
dative of two objects, dative verbs and prepositions, possessives that follow the owner, adjective endings,
compounds, a second clause's own verb) taken 4 times an epoch instead of 2: 4,000 steps of the light mix alone
taught none of that grammar (`bench/RESULTS.md`, sessions 38 and 39). The held-out lecture sets are never trained on.

The run that made the checkpoint went in two legs: steps 0-4,000 on the light mix alone (`max_steps` 4000, a
cooldown over the last 1,500), then resumed from its work folder with this recipe to step 5,500 (the learning rate
back at the inverse-square-root value of step 4,000, about 1.1e-4, and cooling linearly to zero over the last
1,500 steps). One run of this recipe from the start trains all 5,500 steps on the drill-weighted mix.

On this project's 2-core CPU (native bf16) a step of 6,144 tokens costs about the time `bench/RESULTS.md` "Session
38" gives; the run saves its resume state every 10 minutes, and SIGTERM finishes the step, validates, saves and exits,
so it goes on across sittings. On a GPU, `bench/gpu_lease.sh` runs it with the lease's batch.
"""

from dataclasses import replace

from explorer.training.recipe import DataSource
from explorer.training.recipes.lecture_en_de import LECTURE
from explorer.training.recipes.lecture_en_de import RECIPE as LECTURE_MODEL

DRILLS = ("09_objects", "10_people", "11_cases", "12_agreement")  # the lecture corpus's grammar files

RECIPE = replace(
    LECTURE_MODEL,
    name="English→German for lectures, 6+6 layers",
    known_limits=(
        "Domain: everyday sentences (Tatoeba), the language of a Transformer lecture (our corpus) and dictionary "
        "example sentences; a small model (13M weights), so long sentences still lose words or repeat.",
        *LECTURE_MODEL.known_limits[2:],
    ),
    # each drill file first, at 4: a pair is taken from its first source only, so the folder's 2 leaves them out
    sources=(
        LECTURE_MODEL.sources[0],
        *(
            DataSource(
                f"{LECTURE}/{drill}.tsv",
                4.0,
                f"Lecture corpus, {drill}.tsv: grammar drills, taken twice as often",
                LECTURE_MODEL.sources[1].licence,
            )
            for drill in DRILLS
        ),
        *LECTURE_MODEL.sources[1:],
    ),
    config=replace(
        LECTURE_MODEL.config,
        init_from="checkpoints/lecture-en-de",
        grow=[6, 6],
        max_tokens=6144,  # a CPU step; the GPU lease passes its own
        lr=4e-4,  # the shipped model's 8e-4 was for 24,576-token steps; a quarter of its tokens, half its rate
        warmup=300,
        max_steps=5500,
        cooldown_steps=1500,  # linear to zero over the last 1,500 steps: a run ends decayed
        max_minutes=0.0,
        cooldown_minutes=0.0,
        eval_every=1000,
        loader_workers=0,  # two cores: collating in the loop
        snapshot_steps=[25, 50, 100, 200, 400, 800, 1600, 3200, 4000, 4500, 5000],
    ),
)
