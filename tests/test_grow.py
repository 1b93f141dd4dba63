"""Growing a model deeper (explorer/training/grow.py): the deepened shipped model translates exactly as the shipped
one at step 0, and training through `init_from` + `grow` starts from it and then moves the new layers."""

from pathlib import Path

import pytest
import torch
from test_train import run, tiny_train_config

from explorer.interpret.decoding import greedy_decode
from explorer.model.checkpoint import load_checkpoint
from explorer.model.config import BOS_ID, EOS_ID, ModelConfig
from explorer.model.transformer import Transformer, pad_batch
from explorer.training.grow import ZERO_OUTPUTS, deepened, shipped_positions
from explorer.training.train import build_trainer, parse_args
from explorer.training.trainer import TrainConfig

pytestmark = pytest.mark.slow  # a second or more each: CI runs them, `tests/run.py --fast` leaves them out

ROOT = Path(__file__).resolve().parents[1]
LECTURE = ROOT / "checkpoints" / "lecture-en-de"


def lecture_pairs(count: int) -> list[tuple[str, str]]:
    rows = (ROOT / "bench" / "data" / "lecture_en_de.tsv").read_text(encoding="utf-8").splitlines()
    return [tuple(row.split("\t")[:2]) for row in rows[:count]]


def teacher_forced_log_probs(model: Transformer, sources: list[list[int]], targets: list[list[int]]) -> torch.Tensor:
    with torch.no_grad():
        src = pad_batch(sources)
        tgt = pad_batch([[BOS_ID] + t for t in targets])
        return model(src, tgt).log_softmax(-1)


@pytest.fixture(scope="module")
def lecture():
    checkpoint = load_checkpoint(LECTURE)
    return checkpoint.model.float().eval(), checkpoint.tokenizer


@pytest.mark.parametrize("layers", [(6, 6), (4, 4), (3, 6)])
def test_the_deepened_lecture_model_writes_the_shipped_log_probabilities_and_translations(lecture, layers):
    shipped, tokenizer = lecture
    grown = deepened(shipped, *layers).eval()
    assert (grown.config.n_encoder_layers, grown.config.n_decoder_layers) == layers
    assert grown.num_parameters() > shipped.num_parameters()
    pairs = lecture_pairs(12)
    sources = [tokenizer.encode(s) for s, _ in pairs]
    targets = [tokenizer.encode(t) + [EOS_ID] for _, t in pairs]
    expected = teacher_forced_log_probs(shipped, sources, targets)
    got = teacher_forced_log_probs(grown, sources, targets)
    assert torch.isfinite(expected).all()
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=0)
    assert greedy_decode(grown, sources) == greedy_decode(shipped, sources)


def test_new_layers_are_the_identity_and_shipped_layers_are_copied_in_order(lecture):
    shipped, _ = lecture
    grown = deepened(shipped, 6, 6)
    old, new = shipped.state_dict(), grown.state_dict()
    for stack in ("encoder", "decoder"):
        for old_index, new_index in enumerate(shipped_positions(3, 6)):
            for name, tensor in old.items():
                prefix = f"{stack}.layers.{old_index}."
                if name.startswith(prefix):
                    assert torch.equal(new[f"{stack}.layers.{new_index}." + name[len(prefix) :]], tensor), name
        for new_index in (1, 3, 5):
            layer = getattr(grown, stack).layers[new_index]
            zeroed = [n for n, p in layer.named_parameters() if any(n.startswith(z + ".") for z in ZERO_OUTPUTS)]
            assert len(zeroed) == (6 if stack == "decoder" else 4)  # weight and bias of each output
            for n, p in layer.named_parameters():
                if n in zeroed:
                    assert p.abs().sum() == 0, n
                elif n.endswith("weight") and "norm" not in n:  # the rest keeps its random initialization
                    assert p.abs().sum() > 0, n
    for name in ("embed.weight", "encoder.norm.weight", "decoder.norm.bias"):
        assert torch.equal(new[name], old[name])


def test_positions_spread_the_shipped_layers_and_impossible_growth_is_refused_by_value():
    assert shipped_positions(3, 6) == [0, 2, 4]
    assert shipped_positions(3, 4) == [0, 1, 2]
    assert shipped_positions(2, 6) == [0, 3]
    assert shipped_positions(3, 3) == [0, 1, 2]
    with pytest.raises(ValueError, match="cannot grow 3 layers into 2"):
        shipped_positions(3, 2)
    post_ln = Transformer(ModelConfig(vocab_size=50, d_model=16, n_heads=2, d_ff=32, norm_first=False))
    with pytest.raises(ValueError, match="pre-LN"):
        deepened(post_ln, 4, 4)


def test_grow_is_a_flag_and_needs_init_from():
    config = parse_args(["--init-from", "checkpoints/lecture-en-de", "--grow", "6", "6"])
    assert config.grow == [6, 6]
    with pytest.raises(ValueError, match="needs two layer counts"):
        TrainConfig(grow=[6, 6])
    with pytest.raises(ValueError, match="needs two layer counts"):
        TrainConfig(grow=[6], init_from="x")


def test_training_from_a_grown_checkpoint_starts_at_its_translations_and_then_moves_the_new_layers(tmp_path):
    first = build_trainer(tiny_train_config(tmp_path / "a", max_steps=20), log=lambda _: None)
    run(first)
    start = load_checkpoint(tmp_path / "a" / "model")
    config = tiny_train_config(tmp_path / "b", max_steps=3, init_from=str(tmp_path / "a" / "model"), grow=[2, 3])
    logs = []
    grown = build_trainer(config, log=logs.append)
    assert any("grown to 2+3 layers" in line for line in logs)
    assert (grown.model.config.n_encoder_layers, grown.model.config.n_decoder_layers) == (2, 3)
    sources = [start.tokenizer.encode(s) for s in ("I like cats.", "The house is big.")]
    grown.model.eval()
    assert greedy_decode(grown.model, sources) == greedy_decode(start.model.eval(), sources)
    new_output = grown.model.decoder.layers[1].feed_forward.fc2.weight
    assert new_output.abs().sum() == 0
    run(grown)
    assert new_output.abs().sum() > 0  # the new layer learns from the first steps
    assert load_checkpoint(tmp_path / "b" / "model").model.config.n_decoder_layers == 3
