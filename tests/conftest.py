"""Shared fixtures: a tiny Marian-style config and a tokenizer trained on the bundled mini corpus."""

from __future__ import annotations

import os

import pytest
import torch

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from explorer.model.config import BOS_ID, PAD_ID, ModelConfig  # noqa: E402
from explorer.model.tokenizer import Tokenizer  # noqa: E402
from explorer.model.transformer import Transformer  # noqa: E402
from explorer.training.data import MINI_CORPUS, clean, read_tsv  # noqa: E402

# the training CLI's flags for a model whose step takes milliseconds on one CPU thread
TINY_MODEL_ARGS = (
    "--vocab-size 200 --d-model 16 --n-heads 4 --n-encoder-layers 1 --n-decoder-layers 1 --d-ff 32 --max-len 64"
)
TINY_MODEL_ARGS = TINY_MODEL_ARGS.split()


def tiny_config(**overrides) -> ModelConfig:
    """Vocab 99, hidden 16, 4 heads, 2+2 layers: small enough for exact numerics tests."""
    values = dict(
        vocab_size=99, d_model=16, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=64
    )
    values.update(overrides)
    return ModelConfig(**values)


@pytest.fixture
def tiny_model() -> Transformer:
    torch.manual_seed(0)
    return Transformer(tiny_config()).eval()


@pytest.fixture(scope="session")
def mini_pairs():
    return clean(read_tsv(MINI_CORPUS))


@pytest.fixture(scope="session")
def mini_tokenizer(mini_pairs) -> Tokenizer:
    return Tokenizer.train([s for pair in mini_pairs for s in pair], vocab_size=400)


@pytest.fixture
def mini_handle(mini_tokenizer):
    """A random 2+2-layer model on the mini vocabulary, as the app holds one (its default view: cross 1, head 2)."""
    from explorer.interpret.handle import ModelHandle

    torch.manual_seed(0)
    config = tiny_config(vocab_size=mini_tokenizer.vocab_size, d_model=32, d_ff=64, max_len=48)
    return ModelHandle("tiny", Transformer(config).eval(), mini_tokenizer, {}, ("cross", 1, "2"))


def batch(model_config: ModelConfig, seed: int = 0):
    """A padded source/target batch: row 1 has source and target padding."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, model_config.vocab_size, (2, 7), generator=g)
    tgt = torch.randint(4, model_config.vocab_size, (2, 6), generator=g)
    src[1, 5:] = PAD_ID
    tgt[:, 0] = BOS_ID
    tgt[1, 4:] = PAD_ID
    return src, tgt


# The real app in a subprocess and API users of it (test_app_api.py, test_browser.py). Imported
# here so one server is shared by every module that asks for `app_url`; nothing starts unless a test does.
from app_fixtures import (  # noqa: E402,F401
    READY,
    api,
    app_log,
    app_server,
    app_url,
    make_api,
    shipped_url,
    tiny_checkpoint,
    tiny_tokenizer,
)
from browser_fixtures import browser, page  # noqa: E402,F401


def pytest_terminal_summary(terminalreporter):
    if READY:
        terminalreporter.write_line(f"app server: ready {READY['seconds']:.1f} s after launch ({READY['url']})")
