"""Tokenizer and data pipeline: special ids, normalization, display pieces, readers, cleaning, batching."""

import pytest
import torch

from explorer.model.config import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from explorer.model.tokenizer import CONTINUATION, WORD_START, Tokenizer, normalize
from explorer.training.data import (
    MINI_CORPUS,
    clean,
    collate,
    encode_pairs,
    read_corpus,
    read_hf,
    read_parallel,
    read_tsv,
    split_by_source,
    token_batches,
)

PAIRS = [
    ("I am tired.", "Ich bin müde."),
    ("The dog is big.", "Der Hund ist groß."),
    ("Who is that?", "Wer ist das?"),
]


# ----- tokenizer ------------------------------------------------------------------------------
def test_special_ids_are_fixed(mini_tokenizer):
    sp = mini_tokenizer.sp
    assert (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id()) == (0, 1, 2, 3)
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert mini_tokenizer.vocab_size == 400


def test_encode_decode_round_trips_every_mini_sentence(mini_tokenizer, mini_pairs):
    for pair in mini_pairs:
        for sentence in pair:
            ids = mini_tokenizer.encode(sentence)
            assert ids and not {PAD_ID, BOS_ID, EOS_ID} & set(ids)
            assert mini_tokenizer.decode(ids) == sentence
    # special ids are skipped when decoding
    ids = mini_tokenizer.encode("Der Hund ist groß.")
    assert mini_tokenizer.decode([BOS_ID] + ids + [EOS_ID, PAD_ID, PAD_ID]) == "Der Hund ist groß."


def test_normalize_nfc_controls_and_whitespace():
    assert normalize("Mu\u0308ller") == "Müller"  # combining diaeresis composed
    assert normalize("a\u0000b\u200bc") == "abc"  # NUL and zero-width space dropped
    assert normalize("  one\ttwo\n\r three   ") == "one two three"
    assert normalize("\u0007\u0008") == ""


def test_encode_normalizes_first(mini_tokenizer):
    assert mini_tokenizer.encode("Mu\u0308ller") == mini_tokenizer.encode("Müller")
    assert mini_tokenizer.encode("  Der\u200b  Hund\t ist ") == mini_tokenizer.encode("Der Hund ist")


def test_pieces_for_people(mini_tokenizer):
    assert mini_tokenizer.pieces([BOS_ID, EOS_ID, PAD_ID, UNK_ID]) == ["<s>", "</s>", "<pad>", "<unk>"]
    word = "Verspätung"  # rare in the mini corpus: split into several pieces by a 400-piece vocabulary
    ids = mini_tokenizer.encode(word)
    assert len(ids) > 1
    pieces = mini_tokenizer.pieces(ids)
    assert all(WORD_START not in p for p in pieces)
    assert not pieces[0].startswith(CONTINUATION)  # word start: marker removed, nothing added
    assert all(p.startswith(CONTINUATION) for p in pieces[1:])
    assert pieces[0] + "".join(p[len(CONTINUATION) :] for p in pieces[1:]) == word
    # a sentence reads back from its pieces: unmarked pieces start words, marked ones continue them
    sentence = "The dog is big and the Verspätung is long"
    shown = mini_tokenizer.pieces(mini_tokenizer.encode(sentence))
    assert sum(not p.startswith(CONTINUATION) for p in shown) == len(sentence.split())
    assert "".join(p[1:] if p.startswith(CONTINUATION) else " " + p for p in shown).strip() == sentence


def test_invalid_model_proto_is_a_clear_value_error(tmp_path):
    with pytest.raises(ValueError, match="not a valid SentencePiece model"):
        Tokenizer(b"this is not a sentencepiece model")
    path = tmp_path / "broken.model"
    path.write_bytes(b"\x00\x01garbage")
    with pytest.raises(ValueError, match="not a valid SentencePiece model"):
        Tokenizer.load(path)


def test_save_load_round_trip(mini_tokenizer, tmp_path):
    path = tmp_path / "tokenizer.model"
    mini_tokenizer.save(path)
    loaded = Tokenizer.load(path)
    assert loaded.model_proto == mini_tokenizer.model_proto
    assert loaded.vocab_size == mini_tokenizer.vocab_size
    for text in ("Wo ist der Bahnhof?", "Verspätung und Schlüssel", "Müller"):
        assert loaded.encode(text) == mini_tokenizer.encode(text)
        assert loaded.pieces(loaded.encode(text)) == mini_tokenizer.pieces(mini_tokenizer.encode(text))


# ----- readers --------------------------------------------------------------------------------
def test_read_tsv_ignores_extra_columns_and_lines_without_tab(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("a\tA\textra\tmore\nno tab here\n\nb\tB\r\nc\t\n", encoding="utf-8")
    assert read_tsv(path) == [("a", "A"), ("b", "B"), ("c", "")]


def test_read_mini_corpus():
    pairs = read_tsv(MINI_CORPUS)
    assert len(pairs) > 400
    assert pairs[0] == ("I am tired.", "Ich bin müde.")
    assert read_corpus("mini") == pairs


def test_a_corpus_folder_reads_its_tsv_files_in_name_order(tmp_path):
    (tmp_path / "02_b.tsv").write_text("b\tB\n", encoding="utf-8")
    (tmp_path / "01_a.tsv").write_text("a\tA\nc\tC\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("not a corpus\tnot one\n", encoding="utf-8")
    assert read_corpus(str(tmp_path)) == [("a", "A"), ("c", "C"), ("b", "B")]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"corpus folder .*empty holds no \.tsv file"):
        read_corpus(str(empty))


def test_read_parallel_aligned_and_mismatched(tmp_path):
    src, tgt = tmp_path / "train.en", tmp_path / "train.de"
    src.write_text("one\ntwo\n", encoding="utf-8")
    tgt.write_text("eins\nzwei\n", encoding="utf-8")
    assert read_parallel(src, tgt) == [("one", "eins"), ("two", "zwei")]
    assert read_corpus(f"{src},{tgt}") == [("one", "eins"), ("two", "zwei")]
    tgt.write_text("eins\nzwei\ndrei\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"train\.en has 2 lines but .*train\.de has 3"):
        read_parallel(src, tgt)


@pytest.fixture(scope="module")
def translation_dataset():
    datasets = pytest.importorskip("datasets")
    rows = [{"en": en, "de": de} for en, de in PAIRS]
    return datasets.Dataset.from_dict({"translation": rows})


def test_read_hf_from_a_saved_dataset(translation_dataset, tmp_path):
    path = tmp_path / "plain"
    translation_dataset.save_to_disk(str(path))
    assert read_hf(str(path), split="train") == PAIRS
    assert read_hf(str(path), split="train", source_lang="de", target_lang="en") == [(de, en) for en, de in PAIRS]
    assert read_corpus(f"hf:{path}") == PAIRS


def test_read_hf_from_a_saved_dataset_dict(translation_dataset, tmp_path):
    import datasets

    path = tmp_path / "dict"
    small = datasets.Dataset.from_dict({"translation": [{"en": "Hello.", "de": "Hallo."}]})
    datasets.DatasetDict({"train": translation_dataset, "validation": small}).save_to_disk(str(path))
    assert read_hf(str(path), split="train") == PAIRS
    assert read_hf(str(path), split="validation") == [("Hello.", "Hallo.")]
    assert read_corpus(f"hf:{path}") == PAIRS
    assert read_corpus(f"hf:{path}::validation") == [("Hello.", "Hallo.")]


def test_read_hf_names_missing_translation_column(tmp_path):
    datasets = pytest.importorskip("datasets")
    path = tmp_path / "wrong"
    datasets.Dataset.from_dict({"text": ["a", "b"]}).save_to_disk(str(path))
    with pytest.raises(ValueError, match="expected 'translation'"):
        read_hf(str(path))


# ----- cleaning and splitting ------------------------------------------------------------------
def test_clean_normalizes_and_drops_empty_long_and_duplicates():
    pairs = [
        ("  Mu\u0308ller  is\there ", "Müller ist hier."),
        ("Müller is here", "Müller ist hier."),  # a duplicate once normalized
        ("", "leer"),
        ("empty", " \t "),
        ("x" * 301, "zu lang"),
        ("long target", "y" * 301),
        ("Müller is here", "Müller ist da."),  # same source, other translation: kept
    ]
    assert clean(pairs) == [("Müller is here", "Müller ist hier."), ("Müller is here", "Müller ist da.")]
    assert clean([("x" * 301, "ok")], max_chars=400) == [("x" * 301, "ok")]


def test_split_by_source_is_deterministic_and_keeps_sources_together(mini_pairs):
    pairs = list(mini_pairs) + [(src, tgt + " (2)") for src, tgt in mini_pairs[:50]]  # sources with 2 translations
    train, valid = split_by_source(pairs, 0.2, seed=7)
    assert (train, valid) == split_by_source(pairs, 0.2, seed=7)
    assert sorted(train + valid) == sorted(pairs)
    assert not {s for s, _ in train} & {s for s, _ in valid}
    assert 0.1 < len(valid) / len(pairs) < 0.3
    other = split_by_source(pairs, 0.2, seed=8)[1]
    assert other != valid  # the seed chooses the split
    assert split_by_source(pairs, 0.0)[1] == [] and split_by_source(pairs, 1.0)[0] == []


# ----- token ids and batches -------------------------------------------------------------------
def test_encode_pairs_adds_eos_and_bos_and_drops_long_pairs(mini_tokenizer):
    examples = encode_pairs(mini_tokenizer, PAIRS, max_len=64)
    assert len(examples) == len(PAIRS)
    for (src_text, tgt_text), (src, tgt) in zip(PAIRS, examples):
        assert src == mini_tokenizer.encode(src_text) + [EOS_ID]
        assert tgt == [BOS_ID] + mini_tokenizer.encode(tgt_text) + [EOS_ID]
    long_source = ("the dog " * 30, "Hund")
    long_target = ("dog", "der Hund " * 30)
    kept = encode_pairs(mini_tokenizer, [long_source, PAIRS[0], long_target], max_len=16)
    assert kept == examples[:1]
    # the limit counts EOS/BOS: a side of exactly max_len tokens is kept, one more is dropped
    src, tgt = examples[0]
    assert encode_pairs(mini_tokenizer, PAIRS[:1], max_len=max(len(src), len(tgt))) == examples[:1]
    assert encode_pairs(mini_tokenizer, PAIRS[:1], max_len=max(len(src), len(tgt)) - 1) == []


@pytest.fixture(scope="module")
def mini_examples(mini_tokenizer, mini_pairs):
    return encode_pairs(mini_tokenizer, mini_pairs, max_len=64)


@pytest.mark.parametrize("max_tokens", [64, 256, 1000])
def test_token_batches_respect_max_tokens_and_cover_every_example(mini_examples, max_tokens):
    for seed in (None, 0):
        batches = token_batches(mini_examples, max_tokens, seed=seed)
        assert sorted(i for b in batches for i in b) == list(range(len(mini_examples)))
        for b in batches:
            assert b and max(max(len(mini_examples[i][0]), len(mini_examples[i][1])) for i in b) * len(b) <= max_tokens


def test_token_batches_group_similar_lengths_without_a_seed(mini_examples):
    batches = token_batches(mini_examples, 256)
    target_lengths = [len(mini_examples[i][1]) for b in batches for i in b]
    assert target_lengths == sorted(target_lengths)


def test_token_batches_are_deterministic_per_seed(mini_examples):
    a = token_batches(mini_examples, 256, seed=1)
    assert a == token_batches(mini_examples, 256, seed=1)
    assert a != token_batches(mini_examples, 256, seed=2)


def test_collate_pads_and_shifts_targets():
    examples = [([10, 11, 12, EOS_ID], [BOS_ID, 20, 21, EOS_ID]), ([13, EOS_ID], [BOS_ID, 22, 23, 24, 25, EOS_ID])]
    src, tgt_in, tgt_out = collate(examples)
    assert src.tolist() == [[10, 11, 12, EOS_ID], [13, EOS_ID, 0, 0]]
    assert tgt_in.tolist() == [[BOS_ID, 20, 21, 0, 0], [BOS_ID, 22, 23, 24, 25]]
    assert tgt_out.tolist() == [[20, 21, EOS_ID, 0, 0], [22, 23, 24, 25, EOS_ID]]
    assert src.dtype == tgt_in.dtype == tgt_out.dtype == torch.long
    # tgt_out is tgt_in shifted left by one wherever both are real tokens
    real = (tgt_in[:, 1:] != PAD_ID) & (tgt_out[:, :-1] != PAD_ID)
    assert torch.equal(tgt_in[:, 1:][real], tgt_out[:, :-1][real])


def test_a_bare_word_start_before_an_unknown_character_shows_as_a_space(mini_tokenizer):
    """Issue 50 #5: a bare '▁' chip stood beside each <unk>; it is the space before the unknown character."""
    from explorer.model.config import UNK_ID
    from explorer.model.tokenizer import BARE_WORD_START

    ids = mini_tokenizer.encode("I like 🍕 a lot.")
    pieces = mini_tokenizer.pieces(ids)
    assert UNK_ID in ids and "<unk>" in pieces and "▁" not in pieces
    at = ids.index(UNK_ID)
    assert pieces[at - 1] == BARE_WORD_START  # the space before it, shown as a space


def test_an_unknown_piece_of_a_source_names_the_characters_it_stands_for(mini_tokenizer):
    """Issue 66 #8: "␣" and "<unk>" stood side by side, and nothing said what the <unk> was; the source's chips now
    read "␣", "<unk> 🍕": the word start and the characters the vocabulary lacks, found between their neighbours."""
    from explorer.model.config import UNK_ID

    text = "I like 🍕 and ☃☃ a lot ∑"
    ids = mini_tokenizer.encode_source(text)
    shown = mini_tokenizer.source_pieces(text, ids)
    named = [shown[k] for k, i in enumerate(ids) if i == UNK_ID]
    assert named == ["<unk> 🍕", "<unk> ☃☃", "<unk> ∑"]
    known = [k for k, i in enumerate(ids) if i != UNK_ID]
    assert [shown[k] for k in known] == [mini_tokenizer.pieces(ids)[k] for k in known]  # the rest as before
