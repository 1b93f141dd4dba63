"""Hooks and step-by-step decoding: capture, cleanup, stepper invariants, beam search, sampling."""

import threading

import pytest
import torch
from conftest import batch, tiny_config

from explorer.interpret.decoding import Source, Stepper, StepperOptions, beam_search, greedy_decode, prepare_source
from explorer.interpret.hooks import AttentionRecorder
from explorer.model.config import BOS_ID, EOS_ID
from explorer.model.transformer import Ablation, Transformer


class FakeTokenizer:
    """Ids as text; enough for the stepper on a random-weight model."""

    def piece(self, i):
        return f"t{i}"

    def pieces(self, ids):
        return [self.piece(i) for i in ids]

    def decode(self, ids):
        return " ".join(self.piece(i) for i in ids if i not in (BOS_ID, EOS_ID))


def make_stepper(model, source_ids=(11, 12, 13, 14, EOS_ID), **kwargs):
    src = Source("x", list(source_ids), [f"t{i}" for i in source_ids])
    return Stepper(model, FakeTokenizer(), src, **kwargs)


def hook_count(model):
    return sum(len(m._forward_hooks) for _, _, m in model.attention_modules())


def test_hooks_are_removed_after_the_context_and_on_error(tiny_model):
    src, tgt = batch(tiny_model.config)
    with AttentionRecorder(tiny_model):
        assert hook_count(tiny_model) == 6
    assert hook_count(tiny_model) == 0
    with pytest.raises(RuntimeError, match="boom"):
        with AttentionRecorder(tiny_model):
            tiny_model(src, tgt, need_weights=True)
            raise RuntimeError("boom")
    assert hook_count(tiny_model) == 0


def test_the_path_is_the_calls_own_choice_and_nothing_is_kept(tiny_model, monkeypatch):
    calls = []
    original = torch.nn.functional.scaled_dot_product_attention
    monkeypatch.setattr(
        torch.nn.functional, "scaled_dot_product_attention", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    src, tgt = batch(tiny_model.config)
    tiny_model(src, tgt)
    assert len(calls) == 6  # every site used the fused kernel
    calls.clear()
    with AttentionRecorder(tiny_model, ("cross",)) as rec:
        tiny_model(src, tgt, need_weights=True)
    assert len(calls) == 0  # the call asked for the weights: every site computed them
    assert list(rec.maps().weights) == ["cross"]  # the recorder kept the kinds it was asked for
    assert not any(hasattr(m, "watchers") for _, _, m in tiny_model.attention_modules())  # no shared switch
    with pytest.raises(RuntimeError, match="without need_weights=True"), AttentionRecorder(tiny_model, ("cross",)):
        tiny_model(src, tgt)  # recording a call that did not ask for the weights is a mistake, said in words
    for module in tiny_model.modules():
        assert not any(isinstance(v, torch.Tensor) and v.dim() == 4 for v in vars(module).values())


def test_recorder_ignores_other_threads(tiny_model):
    src, tgt = batch(tiny_model.config)
    with AttentionRecorder(tiny_model) as rec:
        worker = threading.Thread(target=lambda: tiny_model(src, tgt))
        worker.start()
        worker.join()
    assert rec.maps().kinds() == []


def test_stepwise_rows_equal_teacher_forced_maps():
    torch.manual_seed(3)
    model = Transformer(tiny_config()).eval()
    stepper = make_stepper(model)
    stepper.run()
    assert stepper.finished
    target = torch.tensor([stepper.target_ids()[:-1]])  # BOS + outputs, the last output is never fed
    with AttentionRecorder(model) as rec:
        model(torch.tensor([stepper.source.ids]), target, need_weights=True)
    full = rec.maps()
    T = target.size(1)
    assert len(stepper.steps) == T
    for kind in ("decoder_self", "cross"):
        stepped = stepper.maps_at(kind)  # (L, H, T, K)
        torch.testing.assert_close(stepped, full.stacked(kind), atol=1e-5, rtol=0)
    torch.testing.assert_close(stepper.encoder_self, full.stacked("encoder_self"), atol=1e-5, rtol=0)
    # the raw scores too, at every position a step computed
    for t, step in enumerate(stepper.steps):
        torch.testing.assert_close(
            step.cross_scores, torch.stack([s[0, :, t] for s in full.scores["cross"]]), atol=1e-5, rtol=0
        )
        torch.testing.assert_close(
            step.decoder_self_scores,
            torch.stack([s[0, :, t, : t + 1] for s in full.scores["decoder_self"]]),
            atol=1e-5,
            rtol=0,
        )


def test_stepper_reports_top_k_and_probabilities(tiny_model):
    stepper = make_stepper(tiny_model, options=StepperOptions(show_top=5, max_new_tokens=3))
    step = stepper.step()
    assert len(step.top_ids) == 5 and step.top_ids[0] == step.token_id
    assert step.top_probs == sorted(step.top_probs, reverse=True)
    assert 0 < step.prob <= 1 and step.prob == pytest.approx(step.top_probs[0])
    assert step.decoder_self.shape == (2, 4, 1) and step.cross.shape == (2, 4, 5)
    stepper.run()
    assert len(stepper.steps) == 3 and stepper.step() is None  # stops at the length limit


def test_forced_prefix_is_followed_then_model_continues(tiny_model):
    greedy = make_stepper(tiny_model, options=StepperOptions(max_new_tokens=5))
    greedy.run()
    prefix = [40, 41]
    forced = make_stepper(tiny_model, options=StepperOptions(max_new_tokens=5), forced_prefix=prefix)
    forced.run()
    assert [s.token_id for s in forced.steps[:2]] == prefix
    assert [s.forced for s in forced.steps] == [True, True, False, False, False]
    # after the prefix, the model's choice is the argmax of its distribution
    assert all(s.token_id == s.top_ids[0] for s in forced.steps[2:])


def test_sampling_is_reproducible_with_a_seed(tiny_model):
    def sample(seed):
        s = make_stepper(
            tiny_model, options=StepperOptions("sample", temperature=1.5, top_k=20, seed=seed, max_new_tokens=8)
        )
        s.run()
        return s.target_ids()

    assert sample(1) == sample(1)
    assert len({tuple(sample(seed)) for seed in range(5)}) > 1
    s = make_stepper(tiny_model, options=StepperOptions("sample", top_k=3, seed=0, max_new_tokens=4))
    step = s.step()
    assert step.token_id in step.top_ids[:3] and sum(p > 0 for p in step.top_probs) == 3


def test_options_validation():
    with pytest.raises(ValueError, match="strategy='beam'"):
        StepperOptions("beam")
    with pytest.raises(ValueError, match="temperature=0"):
        StepperOptions("sample", temperature=0)


def test_beam_one_equals_greedy_and_beams_are_ranked(tiny_model):
    sources = [[11, 12, 13, EOS_ID], [20, 21, 22, 23, 24, EOS_ID]]
    greedy = [ids[:-1] if ids[-1:] == [EOS_ID] else ids for ids in greedy_decode(tiny_model, sources, 12)]
    for src, g in zip(sources, greedy):
        beams = beam_search(tiny_model, src, beam_size=1, max_new_tokens=12)
        assert beams[0].ids == g
        beams = beam_search(tiny_model, src, beam_size=4, alpha=0.6, max_new_tokens=12)
        assert 1 <= len(beams) <= 4
        assert [b.score for b in beams] == sorted((b.score for b in beams), reverse=True)
    assert len(beam_search(tiny_model, sources[0], beam_size=9, max_new_tokens=3)) >= 1  # more than the UI offers
    with pytest.raises(ValueError, match="beam_size=0 must be at least 1"):
        beam_search(tiny_model, sources[0], beam_size=0)


def test_batched_greedy_equals_one_by_one(tiny_model):
    sources = [[11, 12, EOS_ID], [20, 21, 22, 23, 24, EOS_ID], [30, EOS_ID]]
    together = greedy_decode(tiny_model, sources, 10)
    alone = [greedy_decode(tiny_model, [s], 10)[0] for s in sources]
    assert together == alone


def test_ablation_changes_the_stepper_maps_downstream_only(tiny_model):
    plain = make_stepper(tiny_model, options=StepperOptions(max_new_tokens=3))
    off = make_stepper(
        tiny_model,
        options=StepperOptions(max_new_tokens=3),
        ablation=Ablation(tiny_model.config, [("encoder_self", 1, 0)]),
    )
    torch.testing.assert_close(plain.encoder_self, off.encoder_self)  # layer 1's own maps are unchanged
    plain.step(), off.step()
    assert not torch.allclose(plain.steps[0].cross, off.steps[0].cross)  # the encoder output changed


def test_prepare_source_truncates_and_says_so(mini_tokenizer):
    long = " ".join(["the dog sees the cat"] * 40)
    src = prepare_source(mini_tokenizer, long, max_len=32)
    assert src.truncated and len(src.ids) == 32 and src.ids[-1] == EOS_ID
    short = prepare_source(mini_tokenizer, "The dog sees the cat.", max_len=32)
    assert not short.truncated and short.pieces[-1] == "</s>"


@pytest.mark.slow
def test_a_recorded_and_an_unrecorded_decode_share_one_model_from_two_threads_exactly():
    """Issue 37: the attention path was a counter on the module, changed with += from several threads; while one
    thread recorded, every other thread's forward took the explicit path (different bits), and a lost update could
    leave a hook receiving weights=None. Now each call chooses its own path: both threads' results are exact."""
    torch.manual_seed(5)
    model = Transformer(tiny_config()).eval()
    src, tgt = batch(model.config)
    with torch.no_grad():
        fast = model(src, tgt)  # the unrecorded reference: the fused kernel
    reference = make_stepper(model)
    reference.run()
    ids = [s.token_id for s in reference.steps]
    cross = reference.maps_at("cross")
    failures, rounds = [], 40

    def unrecorded():
        for _ in range(rounds):
            with torch.no_grad():
                if not torch.equal(model(src, tgt), fast):
                    failures.append("the unrecorded pass changed while another thread recorded")

    def recorded():
        for _ in range(rounds):
            stepper = make_stepper(model)
            stepper.run()
            if [s.token_id for s in stepper.steps] != ids or not torch.equal(stepper.maps_at("cross"), cross):
                failures.append("the recorded decode changed while another thread ran unrecorded")

    threads = [threading.Thread(target=unrecorded), threading.Thread(target=recorded)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert failures == [], failures[:3]
