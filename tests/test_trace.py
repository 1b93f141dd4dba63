"""The decode trace against the hooks, its wire form, the request validation and the shared cache."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
import torch

from explorer.app.schemas import trace_request, validate
from explorer.app.trace_cache import Slots, TraceCache
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


class Model:
    """A stand-in for the model: records its batches and how many run at once."""

    def __init__(self, seconds=0.05):
        self.seconds, self.running, self.peak, self.batches = seconds, 0, 0, []
        self.lock = threading.Lock()

    def run_batch(self, jobs):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.batches.append(list(jobs))
        time.sleep(self.seconds)
        with self.lock:
            self.running -= 1
        if "bad" in jobs:
            raise UserError("bad job")
        return [{"key": job} for job in jobs]


def ask_at_once(cache, model, keys):
    results, errors = {}, {}

    def ask(i, key):
        try:
            results[i] = cache.get(key, key, model.run_batch, group="m")
        except UserError as exc:
            errors[i] = str(exc)

    threads = [threading.Thread(target=ask, args=(i, key)) for i, key in enumerate(keys)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_cache_computes_each_key_once_batches_what_waits_and_runs_at_most_its_workers():
    cache, model = TraceCache(workers=2, max_batch=16), Model()
    keys = [i % 25 for i in range(60)]  # 60 students, 25 different sentences
    results, errors = ask_at_once(cache, model, keys)
    assert not errors and all(results[i] == {"key": key} for i, key in enumerate(keys))
    computed = [job for batch in model.batches for job in batch]
    assert sorted(computed) == list(range(25))  # each key once
    assert model.peak <= 2 and all(len(b) <= 16 for b in model.batches)
    assert len(model.batches) < 25  # what waited for a slot was decoded together
    assert cache.get(3, 3, Model(0).run_batch) == {"key": 3} and cache.hits >= 1  # a hit computes nothing


def test_a_request_whose_job_another_slot_is_computing_waits_for_that_answer():
    """Two requests wait for slots while both are busy; the first to get one takes both jobs into its batch, the other
    gets the second slot, finds nothing left to do, and waits for the answer the first is computing."""
    cache, slow, gate = TraceCache(workers=2, max_batch=16), Model(0.3), threading.Event()
    results = {}

    def blocked(jobs):
        gate.wait(10)
        return [{"key": job} for job in jobs]

    def ask(key, run_batch, group):
        results[key] = cache.get(key, key, run_batch, group=group)

    busy = [threading.Thread(target=ask, args=(k, blocked, "other")) for k in ("x", "y")]
    asking = [threading.Thread(target=ask, args=(k, slow.run_batch, "m")) for k in ("a", "b")]
    for t in busy:
        t.start()
    time.sleep(0.1)  # both slots held
    for t in asking:
        t.start()
    time.sleep(0.1)  # both jobs wait for a slot
    gate.set()
    for t in busy + asking:
        t.join(10)
    assert results == {k: {"key": k} for k in "xyab"} and slow.batches == [["a", "b"]]


def test_an_answer_reaches_its_asker_while_the_rest_of_its_batch_is_computed():
    """Questions are computed one after another inside their batch. Three wait for the one slot; the first to get it
    takes all three: the second's asker has its answer while the third is still being computed, without waiting
    for the slot (that would make it wait for the whole batch, or compute the next one before answering)."""
    cache, gate, second_back = TraceCache(workers=1), threading.Event(), threading.Event()
    results, computed = {}, []

    def held(jobs):
        gate.wait(10)
        return [{"key": job} for job in jobs]

    def one_by_one(jobs):
        for job in jobs:
            if job == "third":  # computed once the second's asker has its answer (or after 5 s)
                second_back.wait(5)
            computed.append((job, second_back.is_set()))
            yield {"key": job}

    def ask(key, run_batch, group):
        results[key] = cache.get(key, key, run_batch, group=group)
        if key == "second":
            second_back.set()

    threads = [threading.Thread(target=ask, args=("held", held, "other"))]
    threads[0].start()
    time.sleep(0.1)  # the slot is held
    for key in ("first", "second", "third"):
        threads.append(threading.Thread(target=ask, args=(key, one_by_one, "questions")))
        threads[-1].start()
        time.sleep(0.05)  # each waits, in this order, for the one slot
    gate.set()
    for t in threads:
        t.join(10)
    assert results == {k: {"key": k} for k in ("held", "first", "second", "third")} and cache.batches == 2
    assert computed == [("first", False), ("second", False), ("third", True)]


def test_a_free_model_slot_goes_to_a_waiting_trace_before_a_waiting_question():
    """One slot, held; a question (priority 1) starts waiting, then two traces (priority 0): when the slot frees, the
    traces go first, in the order they came, then the question."""
    cache, gate, order = TraceCache(workers=1), threading.Event(), []

    def held(jobs):
        gate.wait(10)
        return [{"key": job} for job in jobs]

    def noting(jobs):
        order.extend(jobs)
        return [{"key": job} for job in jobs]

    def ask(key, run_batch, priority=0):  # each key its own group: no two are batched together
        cache.entry(key, key, run_batch, group=key, priority=priority)

    threads = [threading.Thread(target=ask, args=("held", held))]
    threads[0].start()
    time.sleep(0.1)  # the slot is held
    for key, priority in (("question", 1), ("trace 1", 0), ("trace 2", 0)):
        threads.append(threading.Thread(target=ask, args=(key, noting, priority)))
        threads[-1].start()
        time.sleep(0.05)  # each waits before the next comes
    gate.set()
    for t in threads:
        t.join(10)
    assert order == ["trace 1", "trace 2", "question"]


def test_a_question_that_has_waited_its_patience_goes_before_traces_that_came_later():
    """Traces first only for `patience_s`: a steady stream of traces must not keep a question waiting for good. One
    slot, held; a question waits from t=0, a trace from t=1 (within the question's 5 s) and one from t=6 (after it)."""
    now, read = [0.0], []

    def clock():  # read once by each waiter as it joins the line
        read.append(now[0])
        return now[0]

    slots, order = Slots(1, patience_s=5.0, clock=clock), []
    holder = slots.join()  # the slot, held while three wait
    assert slots.wait(holder)

    def wait(name, priority):
        waiter = slots.join(priority)
        assert slots.wait(waiter)
        order.append(name)
        slots.give()

    threads = []
    for name, priority, at in (("question", 1, 0.0), ("early trace", 0, 1.0), ("late trace", 0, 6.0)):
        now[0] = at
        threads.append(threading.Thread(target=wait, args=(name, priority)))
        threads[-1].start()
        deadline = time.monotonic() + 5
        while len(read) < len(threads) + 1 and time.monotonic() < deadline:
            time.sleep(0.005)  # in line before the clock moves on
    slots.give()
    for t in threads:
        t.join(10)
    assert read == [0.0, 0.0, 1.0, 6.0] and order == ["early trace", "question", "late trace"]


class HeldLine:
    """A cache with one slot, held by a job from 10.0.0.1 until `release`; jobs asked from addresses, each in a thread
    (`ASKING` as the API sets it); `batches`: the batches as they ran. Places `job_s` apart per address."""

    def __init__(self, max_batch: int, job_s: float):
        self.cache = TraceCache(workers=1, max_batch=max_batch)
        self.cache._slots.job_s = job_s  # the order does not depend on how fast threads start
        self.gate, self.batches, self.threads = threading.Event(), [], []
        self.ask("held", "10.0.0.1")
        time.sleep(0.1)  # the one slot is held

    def run(self, jobs):
        if jobs == ["held"]:
            self.gate.wait(10)
        self.batches.append(list(jobs))
        return [{"key": job} for job in jobs]

    def ask(self, key: str, address: str) -> None:
        from explorer.app.callers import ASKING

        def asking():
            ASKING.set(address)
            self.cache.entry(key, key, self.run, group="model")

        self.threads.append(threading.Thread(target=asking))
        self.threads[-1].start()

    def release(self) -> None:
        self.gate.set()
        for t in self.threads:
            t.join(10)


def test_the_line_is_fair_between_addresses_a_flood_waits_behind_itself():
    """Issue 51: first come first served let one script's hundred jobs go before a student who asked just after them.
    Each address's jobs take places JOB_S apart, so the student on another address goes after the script's first
    few, and a batch takes the jobs first in line (the student's among them) rather than the oldest."""
    line = HeldLine(max_batch=4, job_s=1.0)
    for n in range(12):  # a script's flood
        line.ask(f"flood {n}", "10.0.0.66")
    time.sleep(0.2)
    line.ask("student", "10.0.0.7")
    time.sleep(0.1)
    line.release()
    first = line.batches[1]  # the first batch after the held one: the flood's first jobs and the student
    assert "student" in first and len(first) == 4, line.batches
    assert sum(len(b) for b in line.batches) == 14 and not line.cache._inflight


def test_a_slot_holders_own_job_is_always_in_its_batch():
    """From a review of issue 51's line: a holder's batch was filled in place order with other addresses' first jobs,
    and a holder whose own job came later gave its slot back with its job left waiting (its request hung)."""
    line = HeldLine(max_batch=2, job_s=10.0)
    for key, address in (("flood 0", "10.0.0.66"), ("flood 1", "10.0.0.66"), ("a", "10.0.0.7"), ("b", "10.0.0.8")):
        line.ask(key, address)
        time.sleep(0.05)
    line.release()
    assert not any(t.is_alive() for t in line.threads) and not line.cache._inflight, line.batches
    assert sorted(sum(line.batches, [])) == sorted(["held", "flood 0", "flood 1", "a", "b"])


def test_one_bad_job_fails_alone_and_failures_are_not_cached():
    cache, model = TraceCache(workers=1), Model(0.02)
    results, errors = ask_at_once(cache, model, ["a", "b", "bad", "c", "d", "e"])
    assert set(errors) == {2} and errors[2] == "bad job" and len(results) == 5
    assert "bad" not in cache._entries and not cache._inflight
    assert cache.get("bad", "fine", Model(0).run_batch) == {"key": "fine"}  # asked again: computed again


def test_cache_is_bounded():
    cache = TraceCache(max_bytes=100)
    for i in range(10):
        cache.get(i, i, lambda jobs: [{"v": "x" * 30} for _ in jobs])
    assert cache.nbytes <= 100 and len(cache) < 10 and 9 in cache._entries and 0 not in cache._entries


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
