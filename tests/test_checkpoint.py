"""Checkpoints: exact save/load round trip, fp16 export, atomic replacement, and named loading errors."""

import json
import pickle

import pytest
import torch
from conftest import batch, tiny_config
from safetensors.torch import load_file, save_file

from explorer.model.checkpoint import FORMAT, CheckpointError, load_checkpoint, save_checkpoint, update_metadata
from explorer.model.transformer import Transformer

FILES = {"model.safetensors", "config.json", "tokenizer.model", "README.md"}


def make_model(vocab_size: int, seed: int = 0, **overrides) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(tiny_config(vocab_size=vocab_size, **overrides)).eval()


@pytest.fixture
def model(mini_tokenizer):
    return make_model(mini_tokenizer.vocab_size)


@pytest.fixture
def saved(tmp_path, model, mini_tokenizer):
    """A valid checkpoint directory of the tiny model."""
    return save_checkpoint(tmp_path / "ckpt", model, mini_tokenizer, {"steps": 7}, card="# tiny\n")


def tensor_bytes(path) -> int:
    """Size of a safetensors file without its 8-byte length prefix and JSON header."""
    data = path.read_bytes()
    return len(data) - 8 - int.from_bytes(data[:8], "little")


def rewrite_config(path, **model_overrides):
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    config["model"].update(model_overrides)
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")


# ----- round trips ------------------------------------------------------------------------------
def test_save_then_load_gives_identical_logits(saved, model, mini_tokenizer):
    ckpt = load_checkpoint(saved)
    assert ckpt.model.config == model.config
    assert not ckpt.model.training  # loaded in eval mode
    assert ckpt.metadata == {"steps": 7} and ckpt.path == saved
    assert ckpt.tokenizer.model_proto == mini_tokenizer.model_proto
    src, tgt = batch(model.config)
    with torch.no_grad():
        assert torch.equal(ckpt.model(src, tgt), model(src, tgt))
    for name, tensor in model.state_dict().items():
        assert torch.equal(ckpt.model.state_dict()[name], tensor), name


def test_directory_layout(saved):
    assert {p.name for p in saved.iterdir()} == FILES
    config = json.loads((saved / "config.json").read_text(encoding="utf-8"))
    assert config["format"] == FORMAT and config["training"] == {"steps": 7}
    assert (saved / "README.md").read_text(encoding="utf-8") == "# tiny\n"


def test_extra_files_are_written(tmp_path, model, mini_tokenizer):
    path = save_checkpoint(tmp_path / "ckpt", model, mini_tokenizer, extra_files={"loss_curve.png": b"\x89PNG"})
    assert {p.name for p in path.iterdir()} == FILES | {"loss_curve.png"}
    assert load_checkpoint(path).metadata == {}


def test_float16_halves_the_weights_and_loads_as_float32(tmp_path, saved, model, mini_tokenizer):
    half = save_checkpoint(tmp_path / "half", model, mini_tokenizer, dtype=torch.float16)
    ratio = (half / "model.safetensors").stat().st_size / (saved / "model.safetensors").stat().st_size
    assert 0.45 < ratio < 0.6  # the JSON header is the same size in both
    assert tensor_bytes(half / "model.safetensors") * 2 == tensor_bytes(saved / "model.safetensors")
    assert {t.dtype for t in load_file(str(half / "model.safetensors")).values()} == {torch.float16}
    ckpt = load_checkpoint(half)
    assert {p.dtype for p in ckpt.model.parameters()} == {torch.float32}
    for name, tensor in model.state_dict().items():
        torch.testing.assert_close(ckpt.model.state_dict()[name], tensor, atol=1e-3, rtol=1e-3)
    src, tgt = batch(model.config)
    with torch.no_grad():
        torch.testing.assert_close(ckpt.model(src, tgt), model(src, tgt), atol=2e-2, rtol=1e-2)


def test_saving_over_a_checkpoint_replaces_it_and_leaves_no_temporaries(saved, mini_tokenizer):
    (saved / "stale.txt").write_text("from the old checkpoint")
    other = make_model(mini_tokenizer.vocab_size, seed=1, d_ff=48)
    assert save_checkpoint(saved, other, mini_tokenizer, {"steps": 8}) == saved
    assert {p.name for p in saved.parent.iterdir()} == {"ckpt"}  # no .ckpt.* temporary or .old directory
    assert {p.name for p in saved.iterdir()} == FILES  # the old directory's files are gone
    ckpt = load_checkpoint(saved)
    assert ckpt.model.config.d_ff == 48 and ckpt.metadata == {"steps": 8}
    assert torch.equal(ckpt.model.embed.weight, other.embed.weight)


def test_a_failed_save_leaves_the_old_checkpoint_and_no_temporaries(saved, model, mini_tokenizer, monkeypatch):
    import explorer.model.checkpoint as checkpoint_module

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint_module, "save_file", boom)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(saved, make_model(mini_tokenizer.vocab_size, seed=1), mini_tokenizer)
    assert {p.name for p in saved.parent.iterdir()} == {"ckpt"}
    assert torch.equal(load_checkpoint(saved).model.embed.weight, model.embed.weight)


# ----- errors that name the problem -------------------------------------------------------------
def test_path_is_not_a_directory(tmp_path, saved):
    with pytest.raises(CheckpointError, match="is not a directory"):
        load_checkpoint(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match="is not a directory"):
        load_checkpoint(saved / "config.json")


@pytest.mark.parametrize("name", ["model.safetensors", "config.json", "tokenizer.model"])
def test_missing_file_is_named(saved, name):
    (saved / name).unlink()
    with pytest.raises(CheckpointError, match=f"is missing {name}"):
        load_checkpoint(saved)


def test_config_not_json(saved):
    (saved / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CheckpointError, match=r"config\.json is not valid JSON"):
        load_checkpoint(saved)
    (saved / "config.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CheckpointError, match=r"config\.json is not valid JSON"):
        load_checkpoint(saved)


def test_wrong_format(saved):
    config = json.loads((saved / "config.json").read_text(encoding="utf-8"))
    (saved / "config.json").write_text(json.dumps(config | {"format": "someone-else/2"}), encoding="utf-8")
    with pytest.raises(CheckpointError, match=f"has format 'someone-else/2', expected '{FORMAT}'"):
        load_checkpoint(saved)
    (saved / "config.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CheckpointError, match="has format 'list'"):
        load_checkpoint(saved)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(d_model=30), "invalid model config: d_model=30 is not divisible by n_heads=4"),
        (dict(n_encoder_layers=0), "invalid model config: n_encoder_layers=0 must be a positive integer"),
        (dict(colour="red"), "invalid model config: unknown model config keys: colour"),
    ],
)
def test_invalid_model_config(saved, overrides, message):
    rewrite_config(saved, **overrides)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(saved)


def test_missing_model_config(saved):
    config = json.loads((saved / "config.json").read_text(encoding="utf-8"))
    del config["model"]
    (saved / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(CheckpointError, match="invalid model config: model config must be a JSON object"):
        load_checkpoint(saved)


def test_tokenizer_vocab_size_mismatch(saved):
    rewrite_config(saved, vocab_size=500)
    with pytest.raises(CheckpointError, match="tokenizer.model has 400 pieces but the config says vocab_size=500"):
        load_checkpoint(saved)


def test_corrupt_tokenizer(saved):
    (saved / "tokenizer.model").write_bytes(b"not a tokenizer")
    with pytest.raises(CheckpointError, match=r"tokenizer\.model: not a valid SentencePiece model"):
        load_checkpoint(saved)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_corrupt_safetensors(saved, damage):
    weights = saved / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes({"truncated": data[: len(data) // 2], "garbage": b"\x07garbage" * 100, "empty": b""}[damage])
    with pytest.raises(CheckpointError, match=r"model\.safetensors is not a readable safetensors file"):
        load_checkpoint(saved)


def test_a_pickle_is_rejected_and_never_unpickled(saved, model, tmp_path, monkeypatch):
    marker = tmp_path / "unpickled"

    class Trap:
        def __reduce__(self):
            return (open, (str(marker), "w"))  # unpickling would create the marker file

    torch.save({"trap": Trap(), **model.state_dict()}, saved / "model.safetensors")
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("torch.load called"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("pickle.load called"))
    with pytest.raises(CheckpointError, match=r"model\.safetensors is not a readable safetensors file"):
        load_checkpoint(saved)
    assert not marker.exists()


def test_tensor_with_the_wrong_shape(tmp_path, mini_tokenizer):
    wider = make_model(mini_tokenizer.vocab_size, d_ff=64)
    path = save_checkpoint(tmp_path / "ckpt", wider, mini_tokenizer)
    rewrite_config(path, d_ff=32)  # the config claims the original tiny model
    message = r"tensor encoder\.layers\.0\.feed_forward\.fc1\.weight has shape \(64, 16\), expected \(32, 16\)"
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)


def test_missing_and_unexpected_tensors(saved, model):
    tensors = {k: v.contiguous() for k, v in model.state_dict().items()}
    del tensors["decoder.norm.bias"]
    tensors["decoder.lm_head.weight"] = torch.zeros(3, 3)
    save_file(tensors, str(saved / "model.safetensors"))
    with pytest.raises(CheckpointError, match="does not match its config") as info:
        load_checkpoint(saved)
    assert "missing tensor decoder.norm.bias" in str(info.value)
    assert "unexpected tensor decoder.lm_head.weight" in str(info.value)


def test_many_problems_are_summarized(saved, model):
    tensors = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file({k: v for k, v in list(tensors.items())[8:]}, str(saved / "model.safetensors"))
    with pytest.raises(CheckpointError, match=r"missing tensor .*; and 3 more$"):
        load_checkpoint(saved)


def test_integer_tensor_is_rejected(saved, model):
    tensors = {k: v.contiguous() for k, v in model.state_dict().items()}
    tensors["embed.weight"] = tensors["embed.weight"].to(torch.int32)
    save_file(tensors, str(saved / "model.safetensors"))
    with pytest.raises(CheckpointError, match="tensor embed.weight has dtype I32, expected a float type"):
        load_checkpoint(saved)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_values(saved, model, value):
    tensors = {k: v.clone().contiguous() for k, v in model.state_dict().items()}
    tensors["decoder.layers.1.cross_attn.q_proj.weight"][3, 4] = value
    save_file(tensors, str(saved / "model.safetensors"))
    with pytest.raises(CheckpointError, match=r"non-finite values in decoder\.layers\.1\.cross_attn\.q_proj\.weight"):
        load_checkpoint(saved)


# ----- metadata: validated when read and before it is written -----------------------------------
def test_null_training_metadata_loads_as_empty(saved):
    config = json.loads((saved / "config.json").read_text(encoding="utf-8"))
    (saved / "config.json").write_text(json.dumps(config | {"training": None}), encoding="utf-8")
    assert load_checkpoint(saved).metadata == {}


def test_saving_metadata_that_loading_would_refuse_writes_nothing(tmp_path, model, mini_tokenizer):
    bad = {"alignment": {"pairs": 3, "best": {"layer": 2, "head": 0, "aer": 0.1}}}  # the tiny model has layers 0 and 1
    with pytest.raises(
        CheckpointError, match=r"invalid training metadata: alignment\.best\.layer=2 is not a decoder layer"
    ):
        save_checkpoint(tmp_path / "ckpt", model, mini_tokenizer, bad)
    assert not list(tmp_path.iterdir())


def test_updating_metadata_with_values_loading_would_refuse_leaves_the_file(saved):
    before = (saved / "config.json").read_bytes()
    with pytest.raises(CheckpointError, match=r"evaluation name='<b>test</b>' must be plain text"):
        update_metadata(
            saved, {"evaluation": {"<b>test</b>": {"bleu": 1.0, "chrf": 2.0, "sentences": 3}}}, card="# new\n"
        )
    assert (saved / "config.json").read_bytes() == before and (saved / "README.md").read_text(
        encoding="utf-8"
    ) == "# tiny\n"
    update_metadata(saved, {"name": "Tiny"})
    assert load_checkpoint(saved).metadata == {"steps": 7, "name": "Tiny"}
