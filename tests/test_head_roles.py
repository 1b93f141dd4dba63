"""Head roles (explorer/interpret/head_roles.py) held to their rules on attention built by hand: a previous-token head
is labelled so with its exact score, a random peaked head stays unlabelled, a sink, a broad and a positional head; and
the probe of a real model gives every head a role or none, the same whatever else is asked."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.interpret.head_roles import Keys, ProbeSentence, _scores, label, probe_maps, roles
from explorer.model.config import BOS_ID, EOS_ID

PIECES = {i: f"▁w{i}" for i in range(4, 60)} | {50: ".", 51: ","}
piece = PIECES.__getitem__
rarity = lambda i: -i  # noqa: E731 - the higher the id, the rarer (a test's own vocabulary)


def sentences(n: int = 6, seed: int = 0) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [list(rng.choice(np.arange(4, 50), size=rng.integers(5, 9), replace=False)) + [50, EOS_ID] for _ in range(n)]


def role_of(kind: str, maps: list[np.ndarray], keys: list[list[int]]) -> tuple:
    found = label(kind, 0, 0, _scores(kind, maps, [Keys.of(kind, ids, piece, rarity) for ids in keys]))
    return found.role, found.says, found.scores


def test_a_head_built_to_attend_to_the_previous_token_is_labelled_with_its_exact_score():
    keys = sentences()
    maps = []
    for ids in keys:
        K = len(ids)
        A = np.zeros((K, K))
        A[0, 0] = 1.0
        for q in range(1, K):
            A[q, q - 1], A[q, q] = 0.8, 0.2  # 0.8 on the token before
        maps.append(A)
    role, says, scores = role_of("encoder_self", maps, keys)
    rows = sum(len(ids) - 1 for ids in keys)  # the rows that have a token before
    assert role == "previous token"
    assert scores["previous"] == pytest.approx(0.8 * rows / rows)
    assert says == "previous token: 0.80 of the mass on the token before"


def test_a_random_peaked_head_stays_unlabelled():
    rng = np.random.default_rng(1)
    keys = [ids[:-2] + [ids[-2] + 0] for ids in sentences(40, seed=2)]  # no </s>, no sink to find
    maps = [rng.dirichlet(np.full(len(ids), 0.3), size=len(ids)) for ids in keys]
    role, says, _ = role_of("encoder_self", maps, keys)
    assert role is None and says.startswith("unlabelled")


def test_a_sink_a_broad_and_a_positional_head():
    keys = sentences()
    sink = []
    for ids in keys:
        A = np.full((len(ids), len(ids)), 0.1 / (len(ids) - 1))
        A[:, ids.index(EOS_ID)] = 0.9
        sink.append(A)
    assert role_of("encoder_self", sink, keys)[1] == "end-of-sentence sink: 0.90 of the mass on </s>"
    broad = [np.full((len(ids), len(ids)), 1 / len(ids)) for ids in keys]
    assert role_of("encoder_self", broad, keys)[0] == "broad"
    positional = []
    for ids in keys:
        K = len(ids)
        A = np.zeros((K, K))
        A[np.arange(K), np.maximum(np.arange(K) - 2, 0)] = 1.0  # two back (the first two rows: on the first token)
        positional.append(A)
    role, says, _ = role_of("encoder_self", positional, keys)
    assert role == "positional" and "offset -2" in says


def test_the_decoders_sink_is_its_start_token_and_it_never_looks_ahead():
    keys = [[BOS_ID] + ids[:-1] for ids in sentences()]
    maps = []
    for ids in keys:
        K = len(ids)
        A = np.tril(np.full((K, K), 0.05))
        A[:, 0] = 0.0
        A = A / np.maximum(A.sum(-1, keepdims=True), 1e-9) * 0.3
        A[:, 0] += 0.7
        A[0, 0] = 1.0
        maps.append(A)
    role, says, scores = role_of("decoder_self", maps, keys)
    assert role == "end-of-sentence sink" and says.endswith("on <s>") and "next" not in scores


def test_every_head_of_a_model_gets_a_role_or_none_from_its_probe(mini_handle):
    probe = probe_maps(
        mini_handle.model, mini_handle.tokenizer, ["I see the sea.", "The dog sees the cat.", "He reads."]
    )
    assert all(isinstance(p, ProbeSentence) for p in probe) and len(probe) == 3
    config = mini_handle.config
    n_layers = {kind: config.n_layers(kind) for kind in ("encoder_self", "decoder_self", "cross")}
    found = roles(probe, mini_handle.tokenizer.raw_piece, lambda i: i, n_layers, config.n_heads)
    assert len(found) == (config.n_encoder_layers + 2 * config.n_decoder_layers) * config.n_heads
    for head in found:
        assert head.role is None or head.says.startswith(head.role)
        assert all(np.isfinite(v) for v in head.scores.values())
    again = roles(probe, mini_handle.tokenizer.raw_piece, lambda i: i, n_layers, config.n_heads)
    assert [h.says for h in again] == [h.says for h in found]


def test_a_head_whose_argmax_is_the_token_before_is_named_so_though_its_mass_there_is_under_half():
    keys = sentences()
    maps = []
    for ids in keys:
        K = len(ids)
        A = np.full((K, K), 0.55 / (K - 1))
        for q in range(K):
            A[q, max(q - 1, 0)] = 0.45  # the argmax, but under half the mass
        A /= A.sum(-1, keepdims=True)
        maps.append(A)
    role, says, scores = role_of("encoder_self", maps, keys)
    assert scores["previous"] < 0.5 and scores["positional_offset"] == -1
    assert role == "previous token" and says == "previous token: the argmax there in 1.00 of the rows"
