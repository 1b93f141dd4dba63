"""One joint English+German SentencePiece vocabulary: training, loading, ids <-> text, display pieces."""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

from .config import BOS_ID, EOS_ID, PAD_ID, UNK_ID

WORD_START = "\u2581"  # SentencePiece's "▁" marks a piece that begins a word
# a word start with nothing after it (sentencepiece puts one before a character it cannot piece, which follows as
# <unk>): shown as a visible space, not as a second odd glyph beside the <unk>
BARE_WORD_START = "␣"
CONTINUATION = "\u00b7"  # shown before pieces that continue a word: "Ha", "·us"
_CONTROL = {"Cc", "Cf", "Cs", "Co", "Cn"}


def normalize(text: str) -> str:
    """NFC, control characters dropped (tab/newline become spaces), whitespace collapsed."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        " " if ch in "\t\n\r" else ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in _CONTROL
    )
    return " ".join(text.split())


class Tokenizer:
    """A SentencePiece model whose serialized bytes travel inside each checkpoint."""

    def __init__(self, model_proto: bytes):
        self.model_proto = bytes(model_proto)
        self.sp = spm.SentencePieceProcessor()
        try:
            self.sp.LoadFromSerializedProto(self.model_proto)
        except Exception as exc:  # sentencepiece raises RuntimeError/OSError with C++ messages
            raise ValueError(f"not a valid SentencePiece model ({exc})") from None
        specials = (self.sp.pad_id(), self.sp.unk_id(), self.sp.bos_id(), self.sp.eos_id())
        if specials != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
            raise ValueError(
                f"SentencePiece model has pad/unk/bos/eos ids {specials}, expected {(PAD_ID, UNK_ID, BOS_ID, EOS_ID)}"
            )

    @classmethod
    def train(cls, sentences: Iterable[str], vocab_size: int, model_type: str = "bpe") -> Tokenizer:
        """Train a joint vocabulary on an iterable of (already normalized) sentences."""
        buffer = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences),
            model_writer=buffer,
            vocab_size=vocab_size,
            model_type=model_type,
            character_coverage=1.0,
            normalization_rule_name="identity",  # we normalize (NFC) ourselves, identically at run time
            pad_id=PAD_ID,
            unk_id=UNK_ID,
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            input_sentence_size=2_000_000,
            shuffle_input_sentence=True,
            num_threads=2,
            minloglevel=2,
        )
        return cls(buffer.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        return cls(Path(path).read_bytes())

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.model_proto)

    @property
    def vocab_size(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: str) -> list[int]:
        """Text -> piece ids, without BOS/EOS."""
        return self.sp.encode(normalize(text), out_type=int)

    def encode_source(self, text: str, max_len: int | None = None) -> list[int]:
        """A source as the encoder reads it: its piece ids, cut to `max_len` - 1, then EOS."""
        ids = self.encode(text)
        return (ids if max_len is None else ids[: max_len - 1]) + [EOS_ID]

    def decode(self, ids: Iterable[int]) -> str:
        """Piece ids -> text; special ids are skipped."""
        return self.sp.decode([i for i in ids if i not in (PAD_ID, BOS_ID, EOS_ID)])

    def piece(self, token_id: int) -> str:
        """One id as shown to a person: word-start marker removed, word continuations prefixed with '·'."""
        if token_id == PAD_ID:
            return "<pad>"
        if token_id == BOS_ID:
            return "<s>"
        if token_id == EOS_ID:
            return "</s>"
        if token_id == UNK_ID:
            return "<unk>"
        raw = self.sp.id_to_piece(int(token_id))
        if raw.startswith(WORD_START):
            return raw[len(WORD_START) :] or BARE_WORD_START
        return CONTINUATION + raw if raw[:1].isalnum() else raw  # "·st" continues a word; "." needs no marker

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.piece(i) for i in ids]
