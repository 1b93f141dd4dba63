"""The chunked label-smoothed cross-entropy against torch's F.cross_entropy: loss and gradient."""

import pytest
import torch
import torch.nn.functional as F

from explorer.training import loss as loss_module
from explorer.training.loss import label_smoothed_cross_entropy

PAD = 0


def _case(rows=700, vocab=53, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(rows, vocab, generator=g) * 3).to(dtype)
    target = torch.randint(1, vocab, (rows,), generator=g)
    target[::7] = PAD  # padding rows, spread over several chunks
    return logits, target


@pytest.mark.parametrize("smoothing", [0.0, 0.1, 0.3])
def test_matches_torch_cross_entropy_loss_and_gradient(smoothing, monkeypatch):
    monkeypatch.setattr(loss_module, "CHUNK_ROWS", 128)  # several chunks, the last one partial
    logits, target = _case()
    mine_in = logits.clone().requires_grad_()
    ref_in = logits.clone().requires_grad_()
    mine = label_smoothed_cross_entropy(mine_in, target, smoothing, ignore_index=PAD)
    ref = F.cross_entropy(ref_in, target, ignore_index=PAD, label_smoothing=smoothing)
    torch.testing.assert_close(mine, ref, atol=1e-5, rtol=1e-5)
    (mine * 2.5).backward()
    (ref * 2.5).backward()
    torch.testing.assert_close(mine_in.grad, ref_in.grad, atol=1e-7, rtol=1e-4)
    assert torch.equal(mine_in.detach(), logits)  # backward left the float32 logits as they were
    assert mine_in.grad[target == PAD].abs().max() == 0


def test_bf16_logits_give_a_bf16_gradient_close_to_the_float_reference():
    logits, target = _case(rows=300, vocab=8000, dtype=torch.bfloat16)
    mine_in = logits.clone().requires_grad_()
    ref_in = logits.float().requires_grad_()  # what sequence_loss used to do: .float() then cross_entropy
    mine = label_smoothed_cross_entropy(mine_in, target, 0.1, ignore_index=PAD)
    ref = F.cross_entropy(ref_in, target, ignore_index=PAD, label_smoothing=0.1)
    torch.testing.assert_close(mine, ref, atol=1e-5, rtol=1e-5)
    mine.backward()
    ref.backward()
    assert mine_in.grad.dtype == torch.bfloat16
    torch.testing.assert_close(mine_in.grad.float(), ref_in.grad.bfloat16().float(), atol=1e-8, rtol=1e-2)


def test_all_rows_ignored_gives_zero_loss_and_gradient():
    logits = torch.randn(5, 11, requires_grad=True)
    out = label_smoothed_cross_entropy(logits, torch.full((5,), PAD), 0.1, ignore_index=PAD)
    out.backward()
    assert out.item() == 0 and logits.grad.abs().max() == 0


def test_rejects_wrong_shapes():
    with pytest.raises(ValueError, match="expected logits"):
        label_smoothed_cross_entropy(torch.randn(2, 3, 4), torch.zeros(2, 3, dtype=torch.long))


@pytest.mark.parametrize("eps, vocab", [(0.1, 200), (0.1, 8000), (0.2, 50)])
def test_the_smoothing_floor_is_the_loss_of_a_model_that_predicts_the_smoothed_target(eps, vocab):
    """Issue 36 #8: the Train tab's loss sits near 1.0 on the mini corpus; this is the lowest it can go."""
    from explorer.training.loss import smoothing_floor

    target = torch.tensor([3, 7])
    smoothed = torch.full((2, vocab), eps / vocab, dtype=torch.float64)
    smoothed[torch.arange(2), target] += 1 - eps
    best = F.cross_entropy(smoothed.log(), target, label_smoothing=eps).item()  # the minimum over all logits
    assert smoothing_floor(eps, vocab) == pytest.approx(best, rel=1e-9)
    worse = F.cross_entropy(smoothed.log() + torch.randn(2, vocab, dtype=torch.float64), target, label_smoothing=eps)
    assert worse.item() > best
    assert smoothing_floor(0.0, vocab) == 0.0
