"""The logit lens (explorer/interpret/lens.py): asked for, not part of every trace; its last layer is the model's own
next-token distribution, its earlier layers are read through the same final LayerNorm and output projection, and it
is the answer to /ask/lens and part of the .npz."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from explorer.app.export import attention_arrays
from explorer.app.questions import ANSWERS, answer
from explorer.app.questions.lens import LensQuestion, trace_lens
from explorer.app.schemas import Wire, trace_request
from explorer.app.wire import to_wire
from explorer.interpret.hooks import record
from explorer.interpret.lens import LENS_TOP, LayerOutputs
from explorer.interpret.trace import build_trace
from explorer.model.config import BOS_ID

TEXT = "The dog sees the cat."


def test_the_last_layers_lens_is_the_models_own_next_token_distribution(mini_handle):
    trace = build_trace(mini_handle, trace_request(TEXT))
    lens, T = trace_lens(mini_handle, trace), len(trace.steps)
    assert lens.top_ids.shape == (2, T, LENS_TOP) and lens.chosen.shape == (2, T)
    for i, step in enumerate(trace.steps):  # greedy at temperature 1: the distribution the token was chosen from
        np.testing.assert_allclose(lens.top_probs[-1, i], step.top_probs[:LENS_TOP], atol=1e-6)
        assert lens.top_ids[-1, i].tolist() == step.top_ids[:LENS_TOP]
        assert abs(lens.chosen[-1, i] - step.prob) < 1e-6
        assert lens.top_ids[-1, i, 0] == step.token_id  # greedy: the last layer's first token is the one chosen


def test_an_earlier_layer_is_read_through_the_final_norm_and_the_tied_projection(mini_handle):
    model = mini_handle.model
    trace = build_trace(mini_handle, trace_request(TEXT))
    inputs = [BOS_ID] + trace.target_ids[:-1]
    with LayerOutputs(model) as layers:
        record(model, [trace.source_ids], [inputs])
    with torch.no_grad():
        probs = torch.softmax(F.linear(model.decoder.norm(layers.outputs[0][0]), model.embed.weight), -1)
    expected = probs.gather(1, torch.tensor(trace.target_ids)[:, None])[:, 0].numpy()
    lens = trace_lens(mini_handle, trace)
    np.testing.assert_allclose(lens.chosen[0], expected, atol=1e-6)
    assert not np.allclose(lens.chosen[0], lens.chosen[1])  # layer 0 reads differently from the output


def test_the_lens_is_an_answer_not_part_of_the_trace_and_is_in_the_npz(mini_handle):
    trace = build_trace(mini_handle, trace_request(TEXT))
    wire = to_wire(trace, mini_handle) | {"model_key": "shipped"}
    assert Wire.model_validate(wire).lens is None  # the trace no longer carries it
    got = ANSWERS["lens"].model_validate(answer(mini_handle, trace, LensQuestion()))
    T = len(trace.steps)
    assert np.array(got.top_ids).shape == (2, T, LENS_TOP) and got.top_tokens[1][0][0] == trace.steps[0].token
    arrays = attention_arrays(trace, 3, trace_lens(mini_handle, trace))
    assert arrays["lens_top_ids"].shape == (2, 3, LENS_TOP) and arrays["lens_chosen_prob"].shape == (2, 3)
    np.testing.assert_allclose(arrays["lens_chosen_prob"][-1], [s.prob for s in trace.steps[:3]], atol=1e-6)
