"""What each head does: every head's role label, its score and the rule behind it (`explorer.interpret.head_roles`),
measured once per model on a fixed probe set, so the same whatever sentence is on screen.

The probe: the Translate tab's examples, the hand-aligned sentences (everyday and lecture), and the first 200 of the
mini corpus's everyday sentences, each teacher-forced on the model's own greedy translation; for an English → German
model, the cross-attention heads' alignment error rates on the hand alignments too. Rarity is the SentencePiece score of
a piece (set by its frequency in the training corpus).
"""

from __future__ import annotations

import functools
from typing import Literal

from ...interpret.alignment import score_heads
from ...interpret.handle import ModelHandle
from ...interpret.head_roles import probe_maps, roles
from ...model.config import ATTENTION_KINDS
from ...training.data import MINI_CORPUS, clean, read_tsv
from ..examples import EXAMPLES
from ..gold import GOLD_LANGUAGES, gold_pairs
from ..schemas import HeadRole, HeadRoles
from . import Answer, Question, register
from .common import rounded

MINI_SENTENCES = 200


class Roles(Question):
    """Every head's role, measured on the probe set (the sentence on screen does not change it)."""

    what: Literal["roles"] = "roles"


class RolesAnswer(HeadRoles, Answer):
    what: Literal["roles"]


@functools.cache
def probe_sentences() -> list[str]:
    """The probe set, in a fixed order."""
    everyday = [source for source, _ in clean(read_tsv(MINI_CORPUS))][:MINI_SENTENCES]
    return list(dict.fromkeys([s for s, _ in EXAMPLES] + [pair.source for pair in gold_pairs().values()] + everyday))


def stored_roles(handle: ModelHandle) -> HeadRoles | None:
    """The roles the checkpoint stores (validated when it was loaded), when they were measured on today's probe set."""
    stored = handle.metadata.get("head_roles")
    if not stored or stored["probe"] != len(probe_sentences()):
        return None
    return HeadRoles.model_validate(stored)


def head_roles(handle: ModelHandle) -> RolesAnswer:
    """The model's roles: stored with it, else measured (a per-model question: the model line computes it once per
    model and keeps the answer)."""
    stored = stored_roles(handle)
    if stored is not None:
        return RolesAnswer(what="roles", **stored.model_dump())
    return measure_roles(handle)


def measure_roles(handle: ModelHandle) -> RolesAnswer:
    """Every head's role, measured now on the probe set."""
    sentences = probe_sentences()
    probe = probe_maps(handle.model, handle.tokenizer, sentences)
    aer = None
    if handle.languages == GOLD_LANGUAGES:  # the hand alignments are English → German
        tok, longest = handle.tokenizer, handle.config.max_len - 1
        pairs = [  # a model with a short positional table cannot read the longest sentences whole
            p
            for p in gold_pairs().values()
            if max(len(tok.encode(p.source)), len(tok.encode_target(p.target))) < longest
        ]
        if pairs:
            scored = score_heads(handle.model, tok, pairs)
            aer = {(r["layer"], r["head"]): r["aer"] for r in scored if isinstance(r["head"], int)}
    config = handle.config
    found = roles(
        probe,
        handle.tokenizer.raw_piece,
        handle.tokenizer.piece_score,
        {kind: config.n_layers(kind) for kind in ATTENTION_KINDS},
        config.n_heads,
        aer,
    )
    answer = RolesAnswer(
        what="roles",
        probe=len(sentences),
        heads=[
            HeadRole(
                kind=h.kind,
                layer=h.layer,
                head=h.head,
                role=h.role,
                says=h.says,
                scores=dict(zip(h.scores, rounded(h.scores.values()))),
            )
            for h in found
        ],
    )
    return answer


@register(Roles, RolesAnswer, per_model=True)
def roles_question(handle, trace, question: Roles) -> RolesAnswer:
    return head_roles(handle)
