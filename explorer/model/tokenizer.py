"""One joint SentencePiece vocabulary for both languages: training, loading, ids <-> text, display pieces.

What every tokenizer of the explorer offers (this one, and `pair_tokenizer.PairTokenizer` for models converted from
Marian, with one SentencePiece model per language): `encode` (source text), `encode_target`, `encode_source`,
`decode`, `piece`/`pieces`, `raw_piece`, `vocab_size`, and `files()`, the bytes a checkpoint stores.
"""

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

    KIND = "sentencepiece"  # config.json's "tokenizer"
    FILES = ("tokenizer.model",)

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

    def files(self) -> dict[str, bytes]:
        """What a checkpoint stores of this tokenizer, by file name."""
        return {"tokenizer.model": self.model_proto}

    @classmethod
    def from_files(cls, files: dict[str, bytes]) -> Tokenizer:
        """Rebuild from the bytes `files()` returned."""
        return cls(files["tokenizer.model"])

    @property
    def vocab_size(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: str) -> list[int]:
        """Source text -> piece ids, without BOS/EOS."""
        return self.sp.encode(normalize(text), out_type=int)

    def encode_target(self, text: str) -> list[int]:
        """Target text (a forced prefix, a reference) -> piece ids: the joint vocabulary pieces both alike."""
        return self.encode(text)

    def encode_source(self, text: str, max_len: int | None = None) -> list[int]:
        """A source as the encoder reads it: its piece ids, cut to `max_len` - 1, then EOS."""
        ids = self.encode(text)
        return (ids if max_len is None else ids[: max_len - 1]) + [EOS_ID]

    def decode(self, ids: Iterable[int]) -> str:
        """Piece ids -> text; special ids are skipped."""
        return self.sp.decode([i for i in ids if i not in (PAD_ID, BOS_ID, EOS_ID)])

    def piece(self, token_id: int) -> str:
        """One id as shown to a person: word-start marker removed, word continuations prefixed with '·'."""
        return SPECIAL_PIECES.get(token_id) or display_piece(self.raw_piece(token_id))

    def raw_piece(self, token_id: int) -> str:
        """The piece as SentencePiece writes it ("▁Haus")."""
        return self.sp.id_to_piece(int(token_id))

    def piece_score(self, token_id: int) -> float:
        """How frequent the piece was in the training corpus, as SentencePiece scored it (BPE: minus its merge rank;
        unigram: its log-probability): higher is more frequent."""
        return float(self.sp.get_score(int(token_id)))

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.piece(i) for i in ids]

    def source_pieces(self, text: str, ids: list[int]) -> list[str]:
        """The pieces of `text` (its `ids`, as `encode_source` made them) as shown to a person: an unknown piece
        names the characters it stands for ("<unk> 🍕"), found between its known neighbours in the text as
        SentencePiece normalized it."""
        shown = self.pieces(ids)
        spans = [(k, self.raw_piece(i)) for k, i in enumerate(ids) if i not in SPECIAL_PIECES or i == UNK_ID]
        texts = unknown_texts(self.sp.normalize(normalize(text)), [(raw, ids[k] == UNK_ID) for k, raw in spans])
        for (k, _), typed in zip(spans, texts):
            if typed:
                shown[k] = f"{SPECIAL_PIECES[UNK_ID]} {typed}"
        return shown


def unknown_texts(normalized: str, pieces: list[tuple[str, bool]]) -> list[str | None]:
    """For each (raw piece, unknown) of a tokenized text, the text an unknown piece stands for: what lies between the
    known pieces around it in SentencePiece's normalized text ("▁I▁like▁🍕"), its word-start marks as spaces; None
    for a known piece, or where the pieces do not follow the text."""
    out, pos = [], 0
    for k, (piece, unknown) in enumerate(pieces):
        if not unknown:
            at = normalized.find(piece, pos)
            pos = at + len(piece) if at >= 0 else pos
            out.append(None)
            continue
        after = next((p for p, u in pieces[k + 1 :] if not u), None)
        end = normalized.find(after, pos) if after else len(normalized)
        end = len(normalized) if end < 0 else end
        out.append(normalized[pos:end].replace(WORD_START, " ").strip() or None)
        pos = end
    return out


def display_piece(raw: str) -> str:
    """A raw piece as shown to a person: "▁Haus" -> "Haus", "st" -> "·st" (a word's continuation), "." -> "."."""
    if raw.startswith(WORD_START):
        return raw[len(WORD_START) :] or BARE_WORD_START
    return CONTINUATION + raw if raw[:1].isalnum() else raw  # "·st" continues a word; "." needs no marker


SPECIAL_PIECES = {PAD_ID: "<pad>", BOS_ID: "<s>", EOS_ID: "</s>", UNK_ID: "<unk>"}  # as every tokenizer shows them
