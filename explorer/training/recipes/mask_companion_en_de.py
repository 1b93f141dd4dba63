"""The look-ahead mask's companions: one small model trained twice, with the mask and without it (the lesson's
"why the mask" view, explorer/app/maskless.py), on the same data, steps and seed:

    python -m explorer.training.train --recipe mask_companion_en_de --out OUT/with-mask
    python -m explorer.training.train --recipe mask_companion_en_de --lookahead-mask false --out OUT/without-mask

bench/maskless.py runs both and writes checkpoints/mask-companions/. Small on purpose (1.5M weights, fp16: about
3 MB each): the point is the contrast, not the translation quality. They train on the shipped lecture model's light
mix (`lecture_en_de`: Tatoeba, the lecture corpus, Ding's example sentences), so beside it the only difference a
student sees is the mask, not the vocabulary of a lecture.
"""

from explorer.model.config import ModelConfig
from explorer.training.recipe import Recipe
from explorer.training.recipes.lecture_en_de import HELD_OUT
from explorer.training.recipes.lecture_en_de import RECIPE as LECTURE_MODEL
from explorer.training.trainer import TrainConfig

RECIPE = Recipe(
    name="Look-ahead mask companion",
    data_credit=LECTURE_MODEL.data_credit,
    sources=LECTURE_MODEL.sources,  # the lecture model's corpora and weights
    known_limits=(
        "A teaching companion: 1.5M weights trained for 20 minutes on a CPU. It shows what the look-ahead mask "
        "changes; its translations are rough even with the mask.",
    ),
    config=TrainConfig(
        model=ModelConfig(
            vocab_size=4000,
            d_model=128,
            n_heads=4,
            n_encoder_layers=2,
            n_decoder_layers=2,
            d_ff=512,
            dropout=0.1,
            max_len=64,
            norm_first=True,
        ),
        exclude=HELD_OUT,
        valid="../shared/data/tatoeba-en-de/valid.tsv",
        max_tokens=3072,
        lr=3e-3,
        warmup=400,
        max_steps=4000,
        cooldown_steps=1300,
        eval_every=1000,
        bleu_sample=200,
        seed=1234,
        threads=2,
        bf16="false",  # the two runs must differ only by the mask
        save_dtype="float16",
        log_every=25,
    ),
)
