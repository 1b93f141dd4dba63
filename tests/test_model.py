"""Model numerics: masks, both attention paths, positional encoding, ablation, config validation."""

import math

import pytest
import torch
from conftest import batch, tiny_config

from explorer.interpret.hooks import AttentionRecorder
from explorer.model.config import ModelConfig
from explorer.model.masks import lookahead_mask, padding_mask
from explorer.model.transformer import Ablation, DecoderState, Transformer, sinusoid_table, state_shapes


def test_masks_shapes_and_values():
    m = lookahead_mask(4)
    assert m.shape == (1, 1, 4, 4)
    assert torch.equal(m[0, 0], torch.tril(torch.ones(4, 4, dtype=torch.bool)))
    # with two cached positions, the new query (position 2) sees keys 0..2
    assert lookahead_mask(1, offset=2)[0, 0].tolist() == [[True, True, True]]
    ids = torch.tensor([[5, 6, 0], [7, 0, 0]])
    assert padding_mask(ids, 0)[:, 0, 0].tolist() == [[True, True, False], [True, False, False]]


def test_attention_rows_sum_to_one_and_masked_positions_get_exactly_zero(tiny_model):
    src, tgt = batch(tiny_model.config)
    with AttentionRecorder(tiny_model) as rec:
        tiny_model(src, tgt, need_weights=True)
    maps = rec.maps()
    assert maps.kinds() == ["encoder_self", "decoder_self", "cross"]
    for kind in maps.kinds():
        for w in maps.weights[kind]:
            torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
    future = ~torch.tril(torch.ones(6, 6, dtype=torch.bool))
    for w in maps.weights["decoder_self"]:
        assert (w[:, :, future] == 0).all()  # look-ahead: exactly zero
        assert (w[1, :, :, 4:] == 0).all()  # target padding keys
    for kind in ("encoder_self", "cross"):
        for w in maps.weights[kind]:
            assert (w[1, ..., 5:] == 0).all()  # source padding keys
            assert (w[1, ..., :5] > 0).all()


def test_fast_and_explicit_paths_agree(tiny_model):
    src, tgt = batch(tiny_model.config)
    fast = tiny_model(src, tgt)
    with AttentionRecorder(tiny_model):
        recorded = tiny_model(src, tgt, need_weights=True)
    torch.testing.assert_close(fast, recorded, atol=1e-5, rtol=1e-5)
    # the explicit path reproduces the module's own output, not just the final logits
    attn = tiny_model.encoder.layers[0].self_attn
    x = torch.randn(2, 5, 16)
    mask = padding_mask(torch.tensor([[4, 4, 4, 4, 4], [4, 4, 4, 0, 0]]), 0)
    torch.testing.assert_close(attn(x, mask=mask).output, explicit(attn, x, mask=mask).output, atol=1e-6, rtol=1e-5)


def explicit(attn, *args, **kwargs):
    """Call an attention module on its explicit path: the call asks for the weights."""
    return attn(*args, need_weights=True, **kwargs)


def test_explicit_path_equals_textbook_formula(tiny_model):
    attn = tiny_model.decoder.layers[0].cross_attn
    q_in, kv_in = torch.randn(1, 3, 16), torch.randn(1, 4, 16)
    out = explicit(attn, q_in, key_value_input=kv_in)
    q = attn.q_proj(q_in).view(1, 3, 4, 4).transpose(1, 2)
    k = attn.k_proj(kv_in).view(1, 4, 4, 4).transpose(1, 2)
    expected = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(4), -1)
    torch.testing.assert_close(out.weights, expected)
    assert out.weights.shape == (1, 4, 3, 4)  # cross: queries are target positions, keys source positions


def test_incremental_decoding_equals_full_pass(tiny_model):
    src, tgt = batch(tiny_model.config)
    src, tgt = src[:1], tgt[:1]
    full = tiny_model(src, tgt)
    memory, src_mask = tiny_model.encode(src)
    state, steps = DecoderState(memory, src_mask), []
    for t in range(tgt.size(1)):
        logits, state = tiny_model.decode(tgt[:, t : t + 1], state)
        steps.append(logits)
    torch.testing.assert_close(torch.cat(steps, 1), full, atol=1e-5, rtol=1e-5)
    # stepping back by truncating the cache continues exactly as before
    back = state.truncated(3)
    logits, _ = tiny_model.decode(tgt[:, 3:4], back)
    torch.testing.assert_close(logits[0, 0], full[0, 3], atol=1e-5, rtol=1e-5)


def test_positional_encoding_buffer_matches_closed_form(tiny_model):
    pe = tiny_model.pos_encoding.pe
    assert pe.shape == (64, 16)
    for pos in (0, 1, 7, 63):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)
    assert torch.equal(sinusoid_table(64, 16), pe)
    assert "pos_encoding.pe" not in tiny_model.state_dict()  # deterministic: not stored in checkpoints


def test_ablating_a_head_changes_only_that_heads_contribution(tiny_model):
    attn = tiny_model.encoder.layers[1].self_attn
    x = torch.randn(1, 5, 16)
    full = explicit(attn, x)
    ablated = explicit(attn, x, head_mask=torch.tensor([1.0, 0.0, 1.0, 1.0]))
    # weights are untouched; the output changes by exactly head 1's share of the output projection
    torch.testing.assert_close(full.weights, ablated.weights)
    v = attn.v_proj(x).view(1, 5, 4, 4).transpose(1, 2)
    head1 = full.weights[:, 1] @ v[:, 1]  # (1, 5, 4)
    contribution = head1 @ attn.out_proj.weight[:, 4:8].T
    torch.testing.assert_close(full.output - ablated.output, contribution, atol=1e-6, rtol=1e-5)
    # through the model: ablating changes the logits, and only where that site is reached
    src, tgt = batch(tiny_model.config)
    ablation = Ablation(tiny_model.config, [("cross", 1, 2)])
    base, off = tiny_model(src, tgt), tiny_model(src, tgt, ablation)
    assert not torch.allclose(base, off)
    memory_base, _ = tiny_model.encode(src)
    memory_off, _ = tiny_model.encode(src, ablation)
    torch.testing.assert_close(memory_base, memory_off)  # a decoder head does not touch the encoder


@pytest.mark.parametrize("norm_first", [True, False])
def test_state_shapes_are_the_built_models_without_building_it(norm_first):
    config = tiny_config(n_encoder_layers=1, n_decoder_layers=3, d_ff=24, norm_first=norm_first)
    model = Transformer(config)
    assert state_shapes(config) == {name: tuple(t.shape) for name, t in model.state_dict().items()}
    assert list(state_shapes(config)) == list(model.state_dict())  # the same order: errors list tensors alike
    assert sum(math.prod(shape) for shape in state_shapes(config).values()) == model.num_parameters()


def test_ablation_validates_heads():
    config = tiny_config()
    with pytest.raises(ValueError, match="head 4 out of range"):
        Ablation(config, [("cross", 0, 4)])
    with pytest.raises(ValueError, match="layer 2 out of range for encoder_self"):
        Ablation(config, [("encoder_self", 2, 0)])
    with pytest.raises(ValueError, match="unknown attention kind"):
        Ablation(config, [("decoder", 0, 0)])


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(d_model=250, n_heads=4), "d_model=250 is not divisible by n_heads=4"),
        (dict(d_model=15, n_heads=5), "must be even"),
        (dict(dropout=1.0), "dropout=1.0"),
        (dict(n_heads=0), "n_heads=0"),
        (dict(d_ff=16_385), "d_ff=16385 is larger than the supported maximum 16,384"),
        (dict(dropout=float("nan")), "dropout=nan must be a finite number"),
        (dict(norm_first=1), "norm_first=1 must be true or false"),
        (dict(vocab_size=3), "vocab_size=3 leaves no room beside the special tokens"),
    ],
)
def test_config_validation_names_the_values(overrides, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**overrides)


def test_config_reads_the_special_ids_older_checkpoints_stored_and_refuses_others():
    data = tiny_config().to_dict()
    assert "pad_id" not in data  # the ids are fixed in explorer.model.config, not per model
    assert ModelConfig.from_dict(data | {"pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3}) == tiny_config()
    with pytest.raises(ValueError, match="eos_id=7 differs from this project's fixed eos_id=3"):
        ModelConfig.from_dict(data | {"eos_id": 7})


def test_post_ln_and_pre_ln_both_work():
    for norm_first in (True, False):
        torch.manual_seed(0)
        model = Transformer(tiny_config(norm_first=norm_first)).eval()
        src, tgt = batch(model.config)
        logits = model(src, tgt)
        assert logits.shape == (2, 6, 99) and torch.isfinite(logits).all()
        assert isinstance(model.encoder.norm, torch.nn.LayerNorm) == norm_first


def test_output_embedding_is_tied(tiny_model):
    names = [n for n, _ in tiny_model.named_parameters()]
    assert "embed.weight" in names and not any("generator" in n or "lm_head" in n for n in names)


def test_too_long_sequence_is_refused(tiny_model):
    with pytest.raises(ValueError, match="exceeds max_len=64"):
        tiny_model(torch.full((1, 65), 5), torch.full((1, 3), 5))


def test_config_round_trip():
    config = tiny_config()
    assert ModelConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown model config keys: colour"):
        ModelConfig.from_dict(config.to_dict() | {"colour": 1})
