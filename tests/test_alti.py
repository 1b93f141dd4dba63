"""ALTI+ (explorer/interpret/alti.py) held to its definitions: the parts of every attention block add up to the block's
real output, contributions are non-negative and each row sums to 1, and a decoder that cannot read the source takes
nothing from it; on pre-LN and post-LN models, with heads switched off too."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_config

from explorer.interpret.alti import blocks, source_prefix
from explorer.interpret.explain import hooked_pass
from explorer.model.config import EOS_ID
from explorer.model.transformer import Ablation, Transformer

SOURCE = [5, 17, 42, 8, 30, EOS_ID]
TARGET = [11, 23, 7, 64, EOS_ID]
CONFIGS = {
    "pre-LN": tiny_config(),
    "post-LN, swish, unscaled, halves": tiny_config(
        norm_first=False, activation="swish", scale_embedding=False, positional_layout="halves", final_logits_bias=True
    ),
}


@pytest.fixture(params=list(CONFIGS))
def model(request):
    torch.manual_seed(3)
    model = Transformer(CONFIGS[request.param]).eval()
    with torch.no_grad():  # LayerNorms that are not the identity, so that post-LN's map through them counts
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(torch.randn_like(p) * 0.2)
    return model


def real_outputs(model, ablation) -> dict:
    """Each attention block's output as the model computed it, taken where the next step reads it (not from what the
    decomposition captured): pre-LN, the input of the next sublayer's LayerNorm; post-LN, this sublayer's LayerNorm's
    output. {(kind, layer): (Q, D)}."""
    seen, handles = {}, []

    def keep(key, pre):
        def hook(norm, args, output=None):
            seen.setdefault(key, (args[0] if pre else output)[0].double())

        return hook

    stacks = [
        ("encoder_self", model.encoder.layers, [("encoder_self", 0)]),
        ("decoder", model.decoder.layers, [("decoder_self", 0), ("cross", 1)]),
    ]
    for _, layers, sites in stacks:
        for i, layer in enumerate(layers):
            for kind, n in sites:
                if model.config.norm_first:  # the sublayer after this one normalizes this block's output first
                    handles.append(layer.sublayers[n + 1].norm.register_forward_pre_hook(keep((kind, i), True)))
                else:
                    handles.append(layer.sublayers[n].norm.register_forward_hook(keep((kind, i), False)))
    hooked_pass(model, SOURCE, TARGET, ablation, handles)
    return seen


@pytest.mark.parametrize("ablation", [None, [("cross", 1, 2), ("encoder_self", 0, 1)]])
def test_every_blocks_parts_add_up_to_its_real_output(model, ablation):
    ablation = Ablation(model.config, ablation) if ablation else None
    decomposed = blocks(model, SOURCE, TARGET, ablation)
    real = real_outputs(model, ablation)
    assert len(decomposed) == model.config.n_encoder_layers + 2 * model.config.n_decoder_layers == len(real)
    for (kind, layer), block in decomposed.items():
        queries = len(SOURCE) if kind == "encoder_self" else len(TARGET)
        keys = {"encoder_self": len(SOURCE), "decoder_self": len(TARGET), "cross": 1 + len(SOURCE)}[kind]
        parts, bias = block.parts()
        assert parts.shape == (queries, keys, model.config.d_model), kind
        torch.testing.assert_close(parts.sum(1) + bias, real[(kind, layer)], atol=1e-5, rtol=1e-5)
        for rows in (slice(0, 2), slice(2, None)):  # a few queries at a time, as contributions() takes them
            some, some_bias = block.parts(rows)
            torch.testing.assert_close(some, parts[rows])


def test_an_empty_translation_has_nothing_to_attribute(model):
    found = source_prefix(model, SOURCE, [])
    assert found.source.shape == (0, len(SOURCE)) and found.source_share.shape == (0,)


def test_contributions_are_non_negative_and_each_row_sums_to_one(model):
    for (kind, _), block in blocks(model, SOURCE, TARGET).items():
        c = block.contributions()
        assert (c >= 0).all(), kind
        torch.testing.assert_close(c.sum(-1), torch.ones(c.size(0), dtype=c.dtype))
        if kind == "decoder_self":  # the look-ahead mask: nothing from a later position
            assert torch.all(torch.triu(c, diagonal=1) == 0)
    found = source_prefix(model, SOURCE, TARGET)
    assert found.source.shape == (len(TARGET), len(SOURCE)) and found.prefix.shape == (len(TARGET), len(TARGET))
    np.testing.assert_allclose(found.source.sum(-1) + found.prefix.sum(-1), 1.0, atol=1e-9)
    assert (found.source >= 0).all() and (found.prefix >= 0).all()
    assert np.all(np.triu(found.prefix, k=1) == 0)  # position t holds nothing of a decoder input after it
    np.testing.assert_allclose(found.encoder.sum(-1), 1.0, atol=1e-9)


def test_a_decoder_that_cannot_read_the_source_takes_nothing_from_it(model):
    with torch.no_grad():
        for layer in model.decoder.layers:  # every cross-attention's output zero: the source never reaches the decoder
            layer.cross_attn.out_proj.weight.zero_()
            layer.cross_attn.out_proj.bias.zero_()
    found = source_prefix(model, SOURCE, TARGET)
    np.testing.assert_allclose(found.source_share, 0.0, atol=1e-12)


def test_switching_every_cross_attention_head_off_is_the_same():
    torch.manual_seed(3)
    model = Transformer(tiny_config()).eval()
    off = [("cross", layer, head) for layer in range(2) for head in range(model.config.n_heads)]
    found = source_prefix(model, SOURCE, TARGET, Ablation(model.config, off))
    np.testing.assert_allclose(found.source_share, 0.0, atol=1e-12)
    assert source_prefix(model, SOURCE, TARGET).source_share.min() > 0.01
