"""The decode trace against the hooks, its wire form, the request validation and the shared cache."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
import torch

from explorer.app.schemas import trace_request, validate
from explorer.app.wire import WEIGHT_ERROR, to_wire, unpack
from explorer.errors import UserError
from explorer.interpret.decoding import Stepper, StepperOptions, beam_search, greedy_decode, prepare_source
from explorer.interpret.handle import ModelHandle
from explorer.interpret.hooks import AttentionRecorder
from explorer.interpret.request import LIMITS, TraceRequest
from explorer.interpret.rollout import cross_rollout, encoder_rollout
from explorer.interpret.trace import build_trace, build_traces, plan_trace
from explorer.model.config import BOS_ID, EOS_ID, PAD_ID, ModelConfig
from explorer.model.transformer import Ablation, Transformer

TEXT = "The dog sees the cat in the garden."


@pytest.fixture(scope="module")
def handle(mini_tokenizer):
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=mini_tokenizer.vocab_size,
        d_model=32,
        n_heads=4,
        n_encoder_layers=2,
        n_decoder_layers=3,
        d_ff=64,
        dropout=0.0,
        max_len=48,
    )
    model = Transformer(config).eval()
    with torch.no_grad():
        model.embed.weight[EOS_ID].zero_()  # never stops early: predictable lengths
    return ModelHandle("tiny", model, mini_tokenizer, {}, ("cross", 1, "2"))


def teacher_forced(handle, trace):
    """Every kind's weights and the decoder_self scores of one full pass over the trace's decoder inputs."""
    src = torch.tensor([trace.source_ids])
    tgt = torch.tensor([[BOS_ID] + trace.target_ids[:-1]])
    with torch.no_grad(), AttentionRecorder(handle.model) as recorder:
        handle.model(src, tgt, need_weights=True)
    maps = recorder.maps()
    return {kind: maps.stacked(kind).numpy() for kind in maps.kinds()}, maps.scores["decoder_self"]


def test_trace_equals_one_teacher_forced_pass_and_keeps_the_invariants(handle):
    trace = build_trace(handle, trace_request(TEXT))
    T, S = len(trace.steps), len(trace.source_ids)
    assert trace.finished == "length" and T == min(2 * S + 10, handle.config.max_len - 1)  # EOS never wins here
    assert any(f"stopped at the length limit of {T} tokens" in note for note in trace.notes)  # and it says so
    assert trace.encoder_self.shape == (2, 4, S, S)
    assert trace.decoder_self.shape == (3, 4, T, T) and trace.cross.shape == (3, 4, T, S)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(trace.attention(kind).sum(-1), 1.0, atol=1e-5)  # rows are distributions
    future = np.triu(np.ones((T, T), bool), k=1)
    assert (trace.decoder_self[..., future] == 0.0).all()  # the future gets exactly zero weight
    reference, scores = teacher_forced(handle, trace)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(
            trace.attention(kind), reference[kind], atol=2e-5
        )  # stepwise rows = teacher-forced pass
    np.testing.assert_allclose(trace.decoder_self_scores, torch.stack([s[0] for s in scores]).numpy(), atol=1e-5)
    source = prepare_source(handle.tokenizer, TEXT, handle.config.max_len)
    assert trace.source_ids == source.ids and trace.source_tokens == source.pieces
    assert trace.target_ids == greedy_decode(handle.model, [source.ids], T)[0]
    assert trace.outputs[0] == "" and trace.outputs[-1] == handle.tokenizer.decode(trace.target_ids)
    assert all(
        s.token_id == s.top_ids[0] and s.prob == pytest.approx(s.top_probs[0]) for s in trace.steps
    )  # greedy: argmax


STEPWISE = {
    "greedy": {},
    "sample": {"strategy": "sample", "temperature": 2.0, "top_k": 5, "seed": 3},
    "forced": {"forced_ids": [7, 9, 11]},
    "ablation": {"ablation": [["cross", 1, 0], ["decoder_self", 2, 3], ["encoder_self", 0, 1]]},
}


@pytest.mark.parametrize("name", STEPWISE)
def test_trace_rows_and_probabilities_equal_the_stepwise_decode(handle, name):
    """The trace (batched decode + one teacher-forced pass) against the KV-cached Stepper, step by step."""
    request = trace_request(TEXT, **STEPWISE[name])
    trace = build_trace(handle, request)
    options = StepperOptions(request.strategy, request.temperature, request.top_k, request.seed, 10)
    ablation = Ablation(handle.config, request.ablation) if request.ablation else None
    stepper = Stepper(
        handle.model,
        handle.tokenizer,
        prepare_source(handle.tokenizer, TEXT, 48),
        options,
        list(request.forced_ids),
        ablation,
    )
    stepper.run()
    assert trace.target_ids == [s.token_id for s in stepper.steps]
    np.testing.assert_allclose(trace.encoder_self, stepper.encoder_self.numpy(), atol=2e-5)
    for i, (mine, ref) in enumerate(zip(trace.steps, stepper.steps)):
        np.testing.assert_allclose(trace.decoder_self[:, :, i, : i + 1], ref.decoder_self.numpy(), atol=2e-5)
        np.testing.assert_allclose(trace.cross[:, :, i], ref.cross.numpy(), atol=2e-5)
        np.testing.assert_allclose(
            trace.decoder_self_scores[:, :, i, : i + 1], ref.decoder_self_scores.numpy(), atol=5e-5
        )
        assert mine.prob == pytest.approx(ref.prob, abs=1e-5) and mine.forced == ref.forced
        assert mine.top_ids == ref.top_ids and np.allclose(mine.top_probs, ref.top_probs, atol=1e-5)


def test_a_batch_of_mixed_plans_equals_each_plan_alone(handle):
    """A class's requests decode together: padding, other rows, strategies and ablations change nothing."""
    requests = [
        trace_request("A dog."),
        trace_request(TEXT + " The cat sleeps on the warm red sofa all day long."),
        trace_request(TEXT, forced_ids=[7, EOS_ID]),  # stops after two tokens while the others go on
        trace_request(TEXT, "sample", temperature=1.5, seed=4),
        trace_request("The cat.", "beam", beam_size=3),
        trace_request(TEXT, ablation=[["cross", 0, 2]]),
        trace_request("A dog.", ablation=[["cross", 0, 2]]),
    ]
    batched = build_traces(handle, [plan_trace(handle, r) for r in requests])
    assert batched[2].target_ids == [7, EOS_ID] and batched[2].finished == "eos"
    for request, trace in zip(requests, batched):
        alone = build_trace(handle, request)
        assert trace.request == request and trace.target_ids == alone.target_ids and trace.notes == alone.notes
        for kind in ("encoder_self", "decoder_self", "cross"):
            np.testing.assert_allclose(trace.attention(kind), alone.attention(kind), atol=2e-5)
        np.testing.assert_allclose(trace.decoder_self_scores, alone.decoder_self_scores, atol=5e-5)
        np.testing.assert_allclose([s.prob for s in trace.steps], [s.prob for s in alone.steps], atol=1e-5)


def test_sampling_is_reproducible_by_seed_and_differs_between_seeds(handle):
    a = build_trace(handle, trace_request(TEXT, "sample", temperature=2.0, seed=1))
    b = build_trace(handle, trace_request(TEXT, "sample", temperature=2.0, seed=1))
    c = build_trace(handle, trace_request(TEXT, "sample", temperature=2.0, seed=2))
    assert a.target_ids == b.target_ids and a.target_ids != c.target_ids


def test_beam_trace_steps_through_the_best_beam(handle):
    trace = build_trace(handle, trace_request(TEXT, "beam", beam_size=3, alpha=0.6))
    source = prepare_source(handle.tokenizer, TEXT, handle.config.max_len)
    best = beam_search(handle.model, source.ids, 3, 0.6)[0]
    assert trace.beams[0].ids == best.ids and len(trace.beams) == 3
    assert trace.target_ids[: len(best.ids)] == best.ids
    assert not any(s.forced for s in trace.steps)  # the model chose every token of its best beam: none is "forced"
    assert any("Beam search" in n for n in trace.notes)


def test_forced_tokens_come_first_then_the_model_continues(handle):
    free = build_trace(handle, trace_request(TEXT))
    forced = [free.steps[0].top_ids[3], free.steps[0].top_ids[1]]
    trace = build_trace(handle, trace_request(TEXT, forced_ids=forced))
    assert trace.target_ids[:2] == forced and [s.forced for s in trace.steps[:3]] == [True, True, False]
    prefix = build_trace(handle, trace_request(TEXT, prefix="Der Hund"))
    assert prefix.target_ids[:2] == handle.tokenizer.encode("Der Hund")[:2] and prefix.steps[0].forced
    with pytest.raises(UserError, match="outside the vocabulary"):
        build_trace(handle, trace_request(TEXT, forced_ids=[10**6]))
    with pytest.raises(UserError, match=f"id {PAD_ID} is the padding token"):
        build_trace(handle, trace_request(TEXT, forced_ids=[PAD_ID]))


def test_ablation_changes_the_trace_and_bad_heads_are_named(handle):
    plain = build_trace(handle, trace_request(TEXT))
    off = build_trace(handle, trace_request(TEXT, ablation=[["encoder_self", 0, h] for h in range(4)]))
    np.testing.assert_allclose(
        plain.encoder_self[0], off.encoder_self[0], atol=1e-6
    )  # layer 0's weights come before its heads are cut
    assert not np.allclose(plain.encoder_self[1], off.encoder_self[1])  # layer 1 sees the ablated output
    assert any("4 head(s) switched off" in n for n in off.notes)
    with pytest.raises(UserError, match="layer 7"):
        build_trace(handle, trace_request(TEXT, ablation=[["cross", 7, 0]]))


def test_wire_round_trip_is_within_its_stated_precision(handle):
    trace = build_trace(handle, trace_request(TEXT))
    wire = json.loads(json.dumps(to_wire(trace, handle)))  # what a client receives
    for kind in ("encoder_self", "decoder_self", "cross"):
        back = unpack(wire["attention"][kind])
        assert back.shape == trace.attention(kind).shape
        assert np.abs(back - trace.attention(kind)).max() <= WEIGHT_ERROR + 1e-7
    T = len(trace.steps)
    assert (unpack(wire["attention"]["decoder_self"])[..., np.triu(np.ones((T, T), bool), k=1)] == 0).all()
    scores = wire["scores"]["decoder_self"]
    assert np.abs(unpack(scores) - trace.decoder_self_scores).max() <= scores["scale"] / 2 + 1e-6
    assert wire["source_tokens"] == trace.source_tokens and wire["target_tokens"] == trace.target_tokens
    assert [s["id"] for s in wire["steps"]] == trace.target_ids and len(wire["steps"][0]["top"]) == 10
    assert wire["model"]["best_head"] == {"kind": "cross", "layer": 1, "head": 2}
    assert wire["decoder_input_tokens"] == ["<s>"] + trace.target_tokens[:-1]
    rollout = cross_rollout(trace.cross, trace.encoder_self)  # the rollout travels with the trace
    assert np.abs(unpack(wire["rollout"]["cross"]) - rollout).max() <= WEIGHT_ERROR + 1e-7
    assert (
        np.abs(unpack(wire["rollout"]["encoder_self"]) - encoder_rollout(trace.encoder_self)).max()
        <= WEIGHT_ERROR + 1e-7
    )


def test_requests_are_validated_with_messages_that_name_the_value():
    cases = [
        (dict(sentence=""), "empty"),
        (dict(sentence="x" * 5000), "5,000 characters"),
        (dict(sentence="x" * 50_000_000), "50,000,000 characters"),
        (dict(sentence=TEXT, strategy="bogus"), "'bogus'"),
        (dict(sentence=TEXT, strategy="sample", temperature="abc"), "'abc'"),
        (dict(sentence=TEXT, strategy="sample", temperature=float("inf")), "inf is out of range"),
        (dict(sentence=TEXT, strategy="sample", temperature=9), "9 is out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=2**80), "out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=-(2**70)), "out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=1.5), "whole number"),
        (dict(sentence=TEXT, strategy="beam", beam_size=99), "Beam size 99 is out of range: choose 1 to 8"),
        (dict(sentence=TEXT, forced_ids=["x"]), "Forced token ids must be a whole number (got 'x')"),
        (dict(sentence=TEXT, ablation=[["cross", 1]]), "['cross', 1] is not a head"),
        (dict(sentence=None), "Type an English sentence first"),
        (dict(sentence=TEXT, ablation=[["bogus", 0, 0]]), "'bogus'"),
        (dict(sentence=TEXT, ablation=[["cross", -1, 0]]), "Switched-off heads -1 is out of range"),
    ]
    for fields, needle in cases:
        with pytest.raises(UserError) as info:
            trace_request(**fields)
        assert needle in str(info.value), (fields if len(str(fields)) < 200 else "long", str(info.value))


def test_a_huge_sentence_is_refused_before_any_work():
    text = "x" * 50_000_000
    started = time.process_time()
    with pytest.raises(UserError):
        trace_request(text)
    assert time.process_time() - started < 0.05


def test_options_a_strategy_ignores_do_not_split_the_cache():
    assert trace_request(TEXT, "greedy", temperature=2, seed=5, beam_size=2) == trace_request(TEXT)
    assert trace_request(TEXT, "sample", seed=5) != trace_request(TEXT, "sample", seed=6)
    assert trace_request("  The dog\tsees the cat in the garden. ") == trace_request(TEXT)
    assert trace_request(TEXT, ablation=[["cross", 1, 0], ["cross", 0, 1]]).ablation == (
        ("cross", 0, 1),
        ("cross", 1, 0),
    )
    assert TraceRequest(sentence=TEXT).temperature == LIMITS["temperature"].default


def test_a_deep_link_names_the_same_request_as_a_json_body():
    """The API's query string (a deep link's too) and a JSON body are one model, with the same names."""
    from urllib.parse import quote_plus

    from starlette.datastructures import QueryParams

    link = QueryParams(
        f"sentence={quote_plus(TEXT)}&strategy=sample&seed=3&forced_ids=5&forced_ids=6"
        "&ablation=cross.1.2&ablation=encoder_self.0.0"
    )
    values = {name: link.getlist(name) if name in ("forced_ids", "ablation") else link[name] for name in link}
    from_link = validate(TraceRequest, values)
    assert from_link == trace_request(
        TEXT, "sample", seed=3, forced_ids=[5, 6], ablation=[["cross", 1, 2], ["encoder_self", 0, 0]]
    )
    with pytest.raises(UserError, match="'x'"):
        trace_request(TEXT, forced_ids=["x"])
    with pytest.raises(UserError, match="cross.1"):
        trace_request(TEXT, ablation=["cross.1"])


@pytest.mark.parametrize(
    "sentence, german",
    [
        ("Ich weiß, dass er jeden Tag ein Buch liest.", True),
        ("Das Modell übersetzt den Satz.", True),
        ("Schön, dass du da bist!", True),
        ("Was machst du heute?", True),
        ("Müller scored twice.", False),  # a German name alone
        ("Björk sings.", False),
        ("I know that he reads a book every day.", False),
        ("The Müller family lives in Köln.", False),  # German names in an English sentence
        ("Die hard.", False),  # "die" is English too
    ],
)
def test_input_that_looks_german_is_told_the_model_reads_english(mini_handle, sentence, german):
    """Issue 50 #5: German input was translated as if it were English, with no hint."""
    notes = plan_trace(mini_handle, trace_request(sentence)).notes
    assert any("This looks like German. The model reads English" in n for n in notes) is german
