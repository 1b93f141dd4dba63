"""Two SentencePiece models, one per language, over one shared vocabulary: the tokenizer of a Marian model.

Marian (opus-mt) segments the source with `source.spm` and the target with `target.spm`, and looks both sets of pieces
up in one vocabulary (`vocab.json`, piece -> id). Here the vocabulary is a list of pieces in this project's id order
(`vocab[i]` is the piece of id i; ids 0-3 are pad, unk, <s>, </s>), so the model, the decoders and every view read the
fixed ids of `config.py` whatever model the weights came from. It offers what `tokenizer.Tokenizer` offers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

import sentencepiece as spm

from .config import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from .tokenizer import SPECIAL_PIECES, WORD_START, display_piece, normalize

LANGUAGE_TAG = re.compile(r">>[^<>\s]{1,20}<<")  # a multilingual model's target language before the sentence
MAX_PIECE_CHARS = 200  # a piece longer than this is not a vocabulary entry but a crafted file


def _processor(proto: bytes, name: str) -> spm.SentencePieceProcessor:
    sp = spm.SentencePieceProcessor()
    try:
        sp.LoadFromSerializedProto(bytes(proto))
    except Exception as exc:  # sentencepiece raises RuntimeError/OSError with C++ messages
        raise ValueError(f"{name} is not a valid SentencePiece model ({exc})") from None
    return sp


class PairTokenizer:
    """A source and a target SentencePiece model, and the shared vocabulary in this project's id order."""

    KIND = "sentencepiece-pair"  # config.json's "tokenizer"
    FILES = ("source.spm", "target.spm", "vocab.json")

    def __init__(self, source_proto: bytes, target_proto: bytes, vocab: list[str]):
        self.source_proto, self.target_proto = bytes(source_proto), bytes(target_proto)
        self.source = _processor(self.source_proto, "source.spm")
        self.target = _processor(self.target_proto, "target.spm")
        if not isinstance(vocab, list) or not all(isinstance(p, str) and len(p) <= MAX_PIECE_CHARS for p in vocab):
            raise ValueError(f"vocab.json must be a list of pieces of at most {MAX_PIECE_CHARS} characters")
        if len(vocab) <= max(SPECIAL_PIECES):
            raise ValueError(f"vocab.json has {len(vocab)} pieces, fewer than the special tokens {SPECIAL_PIECES}")
        self.vocab = list(vocab)
        # a piece may stand twice (Marian's <pad> is also its decoder start): the first id wins, as in the source
        self.ids: dict[str, int] = {}
        for i, piece in enumerate(self.vocab):
            self.ids.setdefault(piece, i)

    @classmethod
    def from_files(cls, files: dict[str, bytes]) -> PairTokenizer:
        """Rebuild from the bytes `files()` returned (a checkpoint's three files)."""
        try:
            vocab = json.loads(files["vocab.json"].decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"vocab.json is not valid JSON ({exc})") from None
        return cls(files["source.spm"], files["target.spm"], vocab)

    def files(self) -> dict[str, bytes]:
        """What a checkpoint stores of this tokenizer, by file name."""
        vocab = json.dumps(self.vocab, ensure_ascii=False).encode("utf-8")
        return {"source.spm": self.source_proto, "target.spm": self.target_proto, "vocab.json": vocab}

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def _ids(self, sp: spm.SentencePieceProcessor, text: str) -> list[int]:
        return [self.ids.get(piece, UNK_ID) for piece in sp.encode(normalize(text), out_type=str)]

    def encode(self, text: str) -> list[int]:
        """Source text -> ids through the source model, without BOS/EOS; a piece outside the vocabulary is <unk>. A
        multilingual model's target tag before the sentence (">>fra<<") is one piece of the vocabulary, as
        `transformers`' MarianTokenizer reads it."""
        tag = LANGUAGE_TAG.match(text.lstrip())
        if tag and tag.group(0) in self.ids:
            return [self.ids[tag.group(0)]] + self._ids(self.source, text.lstrip()[tag.end() :])
        return self._ids(self.source, text)

    def encode_target(self, text: str) -> list[int]:
        """Target text (a forced prefix, a reference) -> ids through the target model."""
        return self._ids(self.target, text)

    def encode_source(self, text: str, max_len: int | None = None) -> list[int]:
        """A source as the encoder reads it: its piece ids, cut to `max_len` - 1, then EOS."""
        ids = self.encode(text)
        return (ids if max_len is None else ids[: max_len - 1]) + [EOS_ID]

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text through the target model; pad, <s> and </s> are skipped, <unk> is written as such."""
        out, run = [], []
        for i in ids:
            i = int(i)
            if i in (PAD_ID, BOS_ID, EOS_ID):
                continue
            if i == UNK_ID or not 0 <= i < len(self.vocab):
                out.append(self.target.decode_pieces(run))
                out.append("<unk>")
                run = []
            else:
                run.append(self.vocab[i])
        out.append(self.target.decode_pieces(run))
        # a piece the target model lacks (the vocabulary is shared) comes back raw: its word-start marks are spaces
        return " ".join(part for part in out if part).replace(WORD_START, " ").strip()

    def raw_piece(self, token_id: int) -> str:
        """The piece as SentencePiece writes it ("▁Haus")."""
        return self.vocab[int(token_id)]

    def piece_score(self, token_id: int) -> float:
        """How frequent the piece was in training, as the SentencePiece model that has it scored it (the source's
        first; unigram: its log-probability): higher is more frequent; a piece neither has, the least."""
        piece = self.vocab[int(token_id)]
        for sp in (self.source, self.target):
            i = sp.piece_to_id(piece)
            if i != sp.unk_id() or piece == sp.id_to_piece(i):
                return float(sp.get_score(i))
        return float("-inf")

    def piece(self, token_id: int) -> str:
        """One id as shown to a person: word-start marker removed, word continuations prefixed with '·'."""
        return SPECIAL_PIECES.get(token_id) or display_piece(self.raw_piece(token_id))

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.piece(i) for i in ids]

    def source_pieces(self, text: str, ids: list[int]) -> list[str]:
        """The pieces of a source as shown to a person: as `pieces` (a converted model's <unk> is a piece its own
        vocabulary lacks, which the source model wrote; it is shown as <unk>)."""
        return self.pieces(ids)
