"""Growing a trained model deeper: new pre-LN layers that start as the identity, so training resumes exactly where
the shipped model is.

A pre-LN layer adds its sublayers' outputs to the residual stream: x + Attention(LN(x)), then x + FFN(LN(x)). With
the output projection of each attention (`out_proj`, weight and bias) and the feed-forward's second linear (`fc2`)
set to zero, every sublayer adds nothing, and the layer passes x through unchanged, in training too (dropout of zero
is zero). The deepened model therefore writes the shipped model's log-probabilities at step 0 (tests/test_grow.py
holds it to 1e-5). The new layers' queries, keys, values and `fc1` keep their random initialization: the gradient
reaches `out_proj` and `fc2` at the first step, and through them the rest (Net2DeeperNet, Chen et al. 2016, with
the zero-output form of Shen et al. 2022's staged training).

Where the new layers go: the shipped layers keep their order and are spread evenly through the deeper stack, each
new layer after a shipped one (3 → 6: shipped, new, shipped, new, shipped, new), so new capacity sits at every
depth, not only on top. Post-LN cannot be grown this way (its LayerNorm after the residual sum is not the
identity), and is refused.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from ..model.transformer import Transformer

STACKS = ("encoder", "decoder")
ZERO_OUTPUTS = ("self_attn.out_proj", "cross_attn.out_proj", "feed_forward.fc2")  # what makes a new layer the identity


def shipped_positions(shipped: int, total: int) -> list[int]:
    """Where the `shipped` layers sit in a stack of `total`: spread evenly, first at 0 (3 of 6: [0, 2, 4])."""
    if not 0 < shipped <= total:
        raise ValueError(f"cannot grow {shipped} layers into {total}: the deeper stack must have at least as many")
    return [i * total // shipped for i in range(shipped)]


def deepened(model: Transformer, n_encoder_layers: int, n_decoder_layers: int, seed: int = 0) -> Transformer:
    """A copy of `model` with `n_encoder_layers` + `n_decoder_layers` layers: its own layers spread through the
    stacks (`shipped_positions`), the new ones initialized as the identity. `seed` fixes the new layers' weights."""
    config = model.config
    if not config.norm_first:
        raise ValueError("only a pre-LN model (norm_first) can be grown: a post-LN layer is never the identity")
    torch.manual_seed(seed)
    grown = Transformer(replace(config, n_encoder_layers=n_encoder_layers, n_decoder_layers=n_decoder_layers))
    state = grown.state_dict()
    old = model.state_dict()
    for name, tensor in old.items():  # everything outside the stacks, and the final norms, as it was
        if not name.startswith(tuple(f"{s}.layers." for s in STACKS)):
            state[name] = tensor.clone()
    for stack, total in zip(STACKS, (n_encoder_layers, n_decoder_layers)):
        shipped = len(getattr(model, stack).layers)
        positions = shipped_positions(shipped, total)
        for old_index, new_index in enumerate(positions):
            prefix, target = f"{stack}.layers.{old_index}.", f"{stack}.layers.{new_index}."
            for name, tensor in old.items():
                if name.startswith(prefix):
                    state[target + name[len(prefix) :]] = tensor.clone()
        for new_index in sorted(set(range(total)) - set(positions)):
            for name in state:
                if name.startswith(f"{stack}.layers.{new_index}.") and any(f".{z}." in name for z in ZERO_OUTPUTS):
                    state[name] = torch.zeros_like(state[name])
    grown.load_state_dict(state)
    return grown
