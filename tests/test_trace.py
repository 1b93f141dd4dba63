"""The decode trace against the hooks, its wire form, the request validation and the shared cache."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
import torch

from explorer.config import ModelConfig
from explorer.decoding import beam_search, greedy_batch, prepare_source
from explorer.handle import ModelHandle
from explorer.hooks import AttentionRecorder
from explorer.inputs import LIMITS, TraceRequest, UserError, parse_link, parse_request
from explorer.model import Transformer
from explorer.tokenizer import BOS_ID, EOS_ID
from explorer.trace import build_trace
from explorer.trace_cache import TraceCache
from explorer.wire import WEIGHT_ERROR, to_wire, unpack

TEXT = "The dog sees the cat in the garden."


@pytest.fixture(scope="module")
def handle(mini_tokenizer):
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=mini_tokenizer.vocab_size, d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=3, d_ff=64,
        dropout=0.0, max_len=48,
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
        handle.model(src, tgt)
    maps = recorder.maps()
    return {kind: maps.stacked(kind).numpy() for kind in maps.kinds()}, maps.scores["decoder_self"]


def test_trace_equals_one_teacher_forced_pass_and_keeps_the_invariants(handle):
    trace = build_trace(handle, parse_request(TEXT))
    T, S = len(trace.steps), len(trace.source_ids)
    assert trace.finished == "length" and T == min(2 * S + 10, handle.config.max_len - 1)  # EOS never wins here
    assert trace.encoder_self.shape == (2, 4, S, S)
    assert trace.decoder_self.shape == (3, 4, T, T) and trace.cross.shape == (3, 4, T, S)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(trace.attention(kind).sum(-1), 1.0, atol=1e-5)  # rows are distributions
    future = np.triu(np.ones((T, T), bool), k=1)
    assert (trace.decoder_self[..., future] == 0.0).all()  # the future gets exactly zero weight
    reference, scores = teacher_forced(handle, trace)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(trace.attention(kind), reference[kind], atol=2e-5)  # stepwise rows = teacher-forced pass
    np.testing.assert_allclose(trace.decoder_self_scores, torch.stack([s[0] for s in scores]).numpy(), atol=1e-5)
    source = prepare_source(handle.tokenizer, TEXT, handle.config.max_len)
    assert trace.source_ids == source.ids and trace.source_tokens == source.pieces
    assert trace.target_ids == greedy_batch(handle.model, [source.ids], T)[0][:T]
    assert trace.outputs[0] == "" and trace.outputs[-1] == handle.tokenizer.decode(trace.target_ids)
    assert all(s.token_id == s.top_ids[0] and s.prob == pytest.approx(s.top_probs[0]) for s in trace.steps)  # greedy: argmax


def test_sampling_is_reproducible_by_seed_and_differs_between_seeds(handle):
    a = build_trace(handle, parse_request(TEXT, "sample", temperature=2.0, seed=1))
    b = build_trace(handle, parse_request(TEXT, "sample", temperature=2.0, seed=1))
    c = build_trace(handle, parse_request(TEXT, "sample", temperature=2.0, seed=2))
    assert a.target_ids == b.target_ids and a.target_ids != c.target_ids


def test_beam_trace_steps_through_the_best_beam(handle):
    trace = build_trace(handle, parse_request(TEXT, "beam", beam_size=3, alpha=0.6))
    source = prepare_source(handle.tokenizer, TEXT, handle.config.max_len)
    best = beam_search(handle.model, source.ids, 3, 0.6)[0]
    assert trace.beams[0].ids == best.ids and len(trace.beams) == 3
    assert trace.target_ids[: len(best.ids)] == best.ids and all(s.forced for s in trace.steps)
    assert any("Beam search" in n for n in trace.notes)


def test_forced_tokens_come_first_then_the_model_continues(handle):
    free = build_trace(handle, parse_request(TEXT))
    forced = [free.steps[0].top_ids[3], free.steps[0].top_ids[1]]
    trace = build_trace(handle, parse_request(TEXT, forced_ids=forced))
    assert trace.target_ids[:2] == forced and [s.forced for s in trace.steps[:3]] == [True, True, False]
    prefix = build_trace(handle, parse_request(TEXT, prefix="Der Hund"))
    assert prefix.target_ids[:2] == handle.tokenizer.encode("Der Hund")[:2] and prefix.steps[0].forced
    with pytest.raises(UserError, match="outside the vocabulary"):
        build_trace(handle, parse_request(TEXT, forced_ids=[10**6]))


def test_ablation_changes_the_trace_and_bad_heads_are_named(handle):
    plain = build_trace(handle, parse_request(TEXT))
    off = build_trace(handle, parse_request(TEXT, ablation=[["encoder_self", 0, h] for h in range(4)]))
    np.testing.assert_allclose(plain.encoder_self[0], off.encoder_self[0], atol=1e-6)  # layer 0's weights come before its heads are cut
    assert not np.allclose(plain.encoder_self[1], off.encoder_self[1])  # layer 1 sees the ablated output
    assert any("4 head(s) switched off" in n for n in off.notes)
    with pytest.raises(UserError, match="layer 7"):
        build_trace(handle, parse_request(TEXT, ablation=[["cross", 7, 0]]))


def test_wire_round_trip_is_within_its_stated_precision(handle):
    trace = build_trace(handle, parse_request(TEXT))
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


def test_requests_are_validated_with_messages_that_name_the_value():
    cases = [
        (dict(sentence=""), "empty"),
        (dict(sentence="x" * 5000), "5,000 characters"),
        (dict(sentence="x" * 50_000_000), "50,000,000 characters"),
        (dict(sentence=TEXT, strategy="bogus"), "'bogus'"),
        (dict(sentence=TEXT, strategy="sample", temperature="abc"), "'abc'"),
        (dict(sentence=TEXT, strategy="sample", temperature=float("inf")), "finite"),
        (dict(sentence=TEXT, strategy="sample", temperature=9), "9 is out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=2**80), "out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=-(2**70)), "out of range"),
        (dict(sentence=TEXT, strategy="sample", seed=1.5), "whole number"),
        (dict(sentence=TEXT, strategy="beam", beam_size=99), "Beam size 99 is out of range: choose 1 to 8"),
        (dict(sentence=TEXT, forced_ids=["x"]), "'x' is not a token id"),
        (dict(sentence=TEXT, ablation=[["bogus", 0, 0]]), "'bogus'"),
        (dict(sentence=TEXT, ablation=[["cross", -1, 0]]), "not a head"),
    ]
    for fields, needle in cases:
        with pytest.raises(UserError) as info:
            parse_request(**fields)
        assert needle in str(info.value), (fields if len(str(fields)) < 200 else "long", str(info.value))


def test_a_huge_sentence_is_refused_before_any_work():
    text = "x" * 50_000_000
    started = time.process_time()
    with pytest.raises(UserError):
        parse_request(text)
    assert time.process_time() - started < 0.05


def test_options_a_strategy_ignores_do_not_split_the_cache():
    assert parse_request(TEXT, "greedy", temperature=2, seed=5, beam_size=2) == parse_request(TEXT)
    assert parse_request(TEXT, "sample", seed=5) != parse_request(TEXT, "sample", seed=6)
    assert parse_request("  The dog\tsees the cat in the garden. ") == parse_request(TEXT)
    assert parse_request(TEXT, ablation=[["cross", 1, 0], ["cross", 0, 1]]).ablation == (("cross", 0, 1), ("cross", 1, 0))
    assert TraceRequest(TEXT).temperature == LIMITS["temperature"].default


def test_a_deep_link_names_the_same_request():
    params = {"s": TEXT, "strategy": "sample", "seed": "3", "forced": "5,6", "ablate": "cross.1.2,encoder_self.0.0"}
    request = parse_link(params)
    assert request == parse_request(TEXT, "sample", seed=3, forced_ids=[5, 6], ablation=[["cross", 1, 2], ["encoder_self", 0, 0]])
    assert parse_link({"step": "3"}) is None
    with pytest.raises(UserError, match="'x'"):
        parse_link({"s": TEXT, "forced": "x"})
    with pytest.raises(UserError, match="cross.1"):
        parse_link({"s": TEXT, "ablate": "cross.1"})


def test_cache_computes_each_key_once_and_never_more_than_its_workers_at_once():
    cache = TraceCache(workers=2)
    running, peak, calls = [0], [0], []
    lock = threading.Lock()

    def compute(key):
        def run():
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
                calls.append(key)
            time.sleep(0.05)
            with lock:
                running[0] -= 1
            return {"key": key}

        return run

    results = []
    threads = [threading.Thread(target=lambda i=i: results.append(cache.get(i % 5, compute(i % 5)))) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(calls) == [0, 1, 2, 3, 4]  # 40 requests, 5 keys: 5 computations
    assert peak[0] <= 2 and len(results) == 40 and all(r == {"key": r["key"]} for r in results)
    assert cache.get(3, compute(99)) == {"key": 3}  # a hit does not compute


def test_cache_is_bounded_and_does_not_keep_failures():
    cache = TraceCache(max_bytes=100)
    for i in range(10):
        cache.get(i, lambda i=i: {"v": "x" * 30})
    assert cache.nbytes <= 100 and len(cache) < 10 and 9 in cache._entries and 0 not in cache._entries

    def fail():
        raise UserError("no")

    with pytest.raises(UserError):
        cache.get("bad", fail)
    assert cache.get("bad", lambda: {"ok": 1}) == {"ok": 1}
