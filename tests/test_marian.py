"""Marian checkpoints converted into the project's model, held to `transformers`' MarianMTModel on tiny random models
built in the test (SentencePiece trained on the mini corpus, as transformers' own tests do): the same logits, every
attention map, the same greedy and beam outputs, the same tokens; and the errors a bad folder gets."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from bench.random_marian import build
from explorer.interpret.decoding import beam_search, greedy_decode
from explorer.interpret.hooks import AttentionRecorder
from explorer.model.checkpoint import CheckpointError, load_checkpoint
from explorer.model.config import BOS_ID, EOS_ID, PAD_ID
from explorer.model.formats import open_checkpoint
from explorer.model.languages import LanguagePair
from explorer.model.marian import NEVER, main, read_marian
from explorer.model.transformer import pad_batch, sinusoid_table
from explorer.training.data import MINI_CORPUS, clean, read_tsv

transformers = pytest.importorskip("transformers")  # requirements-dev.txt pins it; the explorer never imports it

SENTENCES = [
    "The dog bites the man.",
    "I am tired of reading books every day.",
    "She is a teacher.",
    "We are at home.",
    "Do you know where my grandmother lives?",
]
# (activation, heads, encoder layers, decoder layers, scale_embedding): the configs the parity holds for
CONFIGS = {
    "swish-4h-2+2": dict(activation_function="swish"),
    "relu-2h-3+1": dict(
        activation_function="relu",
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_layers=3,
        decoder_layers=1,
    ),
    "gelu-4h-1+3-unscaled": dict(activation_function="gelu", encoder_layers=1, decoder_layers=3, scale_embedding=False),
}


@pytest.fixture(scope="module")
def corpus():
    pairs = clean(read_tsv(MINI_CORPUS))
    return [p[0] for p in pairs], [p[1] for p in pairs]


def build_folder(tmp_path_factory, corpus, name="opus-mt-en-de", **config):
    source, target = corpus
    return build(
        tmp_path_factory.mktemp("marian") / name, source, target, spm_size=100, eos_bias=8.0, init_std=1.0, **config
    )


@pytest.fixture(scope="module", params=list(CONFIGS))
def pair(request, tmp_path_factory, corpus):
    """(the Marian folder, transformers' model of it, its tokenizer, our conversion)."""
    folder = build_folder(tmp_path_factory, corpus, **CONFIGS[request.param])
    hf = transformers.MarianMTModel.from_pretrained(folder, attn_implementation="eager").eval()
    with pytest.warns(UserWarning, match="sacremoses"):
        tok = transformers.MarianTokenizer.from_pretrained(folder)
    return folder, hf, tok, read_marian(folder)


def to_ours(hf) -> dict[int, int]:
    """Marian id -> this project's id (Marian's pad, the decoder start, is our <s>)."""
    V, pad = hf.config.vocab_size, hf.config.pad_token_id
    order = [pad, 1, pad, 0] + [i for i in range(V) if i not in (pad, 1, 0)]
    return {marian: ours for ours, marian in enumerate(order) if ours != PAD_ID}


def test_the_config_says_how_marian_differs(pair):
    folder, hf, _, ckpt = pair
    c, h = ckpt.model.config, hf.config
    assert (c.activation, c.positional_layout, c.norm_first, c.final_logits_bias) == (
        {"silu": "swish"}.get(h.activation_function, h.activation_function),
        "halves",
        False,
        True,
    )
    assert (c.n_heads, c.n_encoder_layers, c.n_decoder_layers, c.scale_embedding) == (
        h.encoder_attention_heads,
        h.encoder_layers,
        h.decoder_layers,
        h.scale_embedding,
    )
    assert c.vocab_size == h.vocab_size + 1  # Marian's pad row is our pad and our <s>
    assert ckpt.languages == LanguagePair("en", "de")


def test_the_positional_table_is_marians(pair):
    _, hf, _, ckpt = pair
    theirs = hf.model.encoder.embed_positions.weight
    torch.testing.assert_close(ckpt.model.pos_encoding.pe, theirs, atol=1e-6, rtol=0)
    # the same sinusoids as the paper's table, in another column order
    interleaved = sinusoid_table(8, 16)
    torch.testing.assert_close(
        sinusoid_table(8, 16, "halves"), torch.cat([interleaved[:, 0::2], interleaved[:, 1::2]], 1)
    )


def test_tokens_are_marians_tokens(pair):
    _, hf, tok, ckpt = pair
    ours = to_ours(hf)
    for text in SENTENCES + ["Grüße, naïve café — 3.14?"]:
        assert ckpt.tokenizer.encode_source(text) == [ours[i] for i in tok(text).input_ids]
        ids = tok(text).input_ids[:-1]
        if tok.unk_token_id in ids:  # transformers drops <unk> from the text; a page shows that a piece was unknown
            assert ckpt.tokenizer.decode([ours[i] for i in ids]).count("<unk>") == ids.count(tok.unk_token_id)
        else:
            assert ckpt.tokenizer.decode([ours[i] for i in ids]) == tok.decode(ids, skip_special_tokens=True)


def test_logits_and_every_attention_map_match_transformers(pair):
    _, hf, tok, ckpt = pair
    ours = to_ours(hf)
    texts = SENTENCES[:2]  # of different lengths: the shorter is padded
    enc = tok(texts, padding=True, return_tensors="pt")
    src = pad_batch([ckpt.tokenizer.encode_source(t) for t in texts])
    assert src.shape == enc.input_ids.shape
    g = torch.Generator().manual_seed(1)
    tgt_marian = torch.randint(2, hf.config.vocab_size - 1, (2, 7), generator=g)
    tgt_marian[:, 0] = hf.config.decoder_start_token_id
    tgt = tgt_marian.clone().apply_(lambda i: ours[i])
    with torch.no_grad():
        out = hf(**enc, decoder_input_ids=tgt_marian, output_attentions=True)
        with AttentionRecorder(ckpt.model) as recorder:
            logits = ckpt.model(src, tgt, need_weights=True)
    maps = recorder.maps()

    columns = [i for i in sorted(ours, key=ours.get) if ours[i] != BOS_ID]  # Marian's id of each other column
    ours_cols = [ours[i] for i in columns]
    torch.testing.assert_close(logits[..., ours_cols], out.logits[..., columns], atol=1e-4, rtol=0)
    assert (logits[..., [PAD_ID, BOS_ID]] < NEVER / 2).all()  # never written, as opus-mt's bad_words_ids says
    for kind, theirs in (
        ("encoder_self", out.encoder_attentions),
        ("decoder_self", out.decoder_attentions),
        ("cross", out.cross_attentions),
    ):
        assert len(maps.weights[kind]) == len(theirs)
        for layer, expected in enumerate(theirs):
            torch.testing.assert_close(maps.weights[kind][layer], expected, atol=1e-5, rtol=0)


def generate(hf, tok, text: str, **settings) -> list[int]:
    """transformers' generate(), as opus-mt's generation config runs it (pad never written), without the forced
    final </s> its MarianConfig adds at the length limit."""
    enc = tok([text], return_tensors="pt")
    pad = hf.config.pad_token_id
    out = hf.generate(
        **enc, do_sample=False, max_new_tokens=20, bad_words_ids=[[pad]], forced_eos_token_id=None, **settings
    )
    return out[0, 1:].tolist()  # without the decoder start


def test_greedy_and_beam_outputs_equal_generate(pair):
    _, hf, tok, ckpt = pair
    ours = to_ours(hf)
    sources = [ckpt.tokenizer.encode_source(t) for t in SENTENCES]
    greedy = greedy_decode(ckpt.model, sources, limits=20)
    lengths = set()
    for text, source, ids in zip(SENTENCES, sources, greedy):
        theirs = [ours[i] for i in generate(hf, tok, text, num_beams=1)]
        theirs = theirs[: theirs.index(EOS_ID) + 1] if EOS_ID in theirs else theirs
        assert ids == theirs, text
        lengths.add(len(ids))
        # beam 4, ranked by the raw log-probability (alpha 0 here, length_penalty 0 there: the two penalties differ)
        best = beam_search(ckpt.model, source, beam_size=4, alpha=0.0, max_new_tokens=20)[0]
        theirs = [ours[i] for i in generate(hf, tok, text, num_beams=4, length_penalty=0.0, early_stopping=False)]
        assert best.ids + ([EOS_ID] if best.finished else []) == theirs[: len(best.ids) + best.finished], text
    assert len(lengths) > 1  # translations that end at several lengths: the test sees </s> chosen, not only the limit


def test_the_cli_writes_a_checkpoint_that_loads_as_converted(tmp_path, pair, capsys):
    folder, hf, _, ckpt = pair
    out = tmp_path / "converted"
    assert main([str(folder), str(out), "--name", "Helsinki-NLP/opus-mt-en-de"]) == 0
    assert {p.name for p in out.iterdir()} == {
        "model.safetensors",
        "config.json",
        "source.spm",
        "target.spm",
        "vocab.json",
        "README.md",
    }
    loaded = load_checkpoint(out)
    assert loaded.model.config == ckpt.model.config
    assert loaded.languages == LanguagePair("en", "de")
    assert loaded.tokenizer.vocab == ckpt.tokenizer.vocab
    src = pad_batch([ckpt.tokenizer.encode_source(SENTENCES[1])])
    tgt = torch.tensor([[BOS_ID, 7, 9, 11]])
    with torch.no_grad():
        torch.testing.assert_close(loaded.model(src, tgt), ckpt.model(src, tgt), atol=0, rtol=0)
    card = (out / "README.md").read_text()
    assert "Helsinki-NLP/opus-mt-en-de" in card and "CC-BY 4.0" in card and "English → German" in card
    assert json.loads((out / "config.json").read_text())["tokenizer"] == "sentencepiece-pair"


def test_a_pytorch_bin_folder_converts_alike(tmp_path_factory, corpus):
    safetensors = read_marian(build_folder(tmp_path_factory, corpus))
    pickled_folder = build_folder(tmp_path_factory, corpus, safetensors=False)
    assert (pickled_folder / "pytorch_model.bin").is_file() and not (pickled_folder / "model.safetensors").exists()
    pickled = read_marian(pickled_folder)
    for (name, a), (_, b) in zip(safetensors.model.state_dict().items(), pickled.model.state_dict().items()):
        assert torch.equal(a, b), name


def test_the_pair_comes_from_the_tokenizer_config_or_the_name(tmp_path_factory, corpus):
    folder = build_folder(tmp_path_factory, corpus, name="opus-mt-en-fr", languages=("en", "fr"))
    assert read_marian(folder).languages.label == "English → French"
    (folder / "tokenizer_config.json").unlink()
    assert read_marian(folder).languages == LanguagePair("en", "fr")  # from "opus-mt-en-fr"
    renamed = folder.rename(folder.parent / "my-model")
    with pytest.raises(CheckpointError, match="--source-language en --target-language fr"):
        read_marian(renamed)
    assert read_marian(renamed, languages=LanguagePair("en", "fr")).languages.target_name == "French"


# ----- a bad folder is refused with a message that names what is wrong, before anything is served -----
def test_a_folder_that_is_neither_format_is_named(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"\0" * 16)
    with pytest.raises(CheckpointError, match="neither an Attention Explorer checkpoint nor a Marian folder"):
        open_checkpoint(tmp_path)


def test_a_marian_folder_without_vocab_json_is_named(tmp_path_factory, corpus):
    folder = build_folder(tmp_path_factory, corpus)
    (folder / "vocab.json").unlink()
    with pytest.raises(CheckpointError, match="is missing vocab.json"):
        open_checkpoint(folder)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(d_model=4096), "d_model=4096 is larger than the supported maximum 2,048"),
        (dict(encoder_layers=48), "n_encoder_layers=48 is larger than the supported maximum 24"),
        (
            dict(vocab_size=120_000, decoder_vocab_size=120_000, d_model=1024),
            "describes 1[0-9,]+ weights, more than the supported 100,000,000",
        ),
        (dict(decoder_attention_heads=2), "encoder_attention_heads=4 differs from decoder_attention_heads=2"),
        (dict(activation_function="tanh"), "activation_function='tanh' is not one of"),
        (dict(normalize_before=True), "normalize_before=True"),
    ],
)
def test_a_config_beyond_the_bounds_is_refused_before_anything_is_allocated(tmp_path_factory, corpus, change, message):
    folder = build_folder(tmp_path_factory, corpus)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config | change))
    (folder / "model.safetensors").unlink()  # refused from the config alone: the weights are never read
    with pytest.raises(CheckpointError, match=message):
        open_checkpoint(folder)


def test_untied_or_mismatched_weights_are_refused(tmp_path_factory, corpus):
    from safetensors.torch import load_file, save_file

    folder = build_folder(tmp_path_factory, corpus)
    tensors = load_file(folder / "model.safetensors")
    tensors["lm_head.weight"] = tensors["model.shared.weight"] + 1
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(CheckpointError, match="only tied ones convert"):
        open_checkpoint(folder)
    del tensors["lm_head.weight"]
    tensors["model.encoder.layers.0.fc1.weight"] = tensors["model.encoder.layers.0.fc1.weight"][:, :3].contiguous()
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"encoder.layers.0.feed_forward.fc1.weight has shape \(32, 3\)"):
        open_checkpoint(folder)


def fake_hub_cache(cache, repo: str, folder) -> None:
    """`folder`'s files laid out as huggingface_hub caches a snapshot of `repo`."""
    root = cache / f"models--{repo.replace('/', '--')}"
    commit = "0" * 40
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    shutil.copytree(folder, root / "snapshots" / commit)


def test_hf_reads_the_local_cache_offline_and_names_the_download_command_when_absent(
    tmp_path, tmp_path_factory, corpus, monkeypatch
):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    fake_hub_cache(
        tmp_path, "Helsinki-NLP/opus-mt-en-fr", build_folder(tmp_path_factory, corpus, languages=("en", "fr"))
    )
    ckpt = open_checkpoint("hf:Helsinki-NLP/opus-mt-en-fr")
    assert ckpt.metadata["converted_from"]["source"] == "Helsinki-NLP/opus-mt-en-fr"
    assert ckpt.languages.label == "English → French"
    with pytest.raises(
        CheckpointError,
        match=r"hf:Helsinki-NLP/opus-mt-en-de is not in the local Hugging Face cache"
        r".*`hf download Helsinki-NLP/opus-mt-en-de ",
    ):
        open_checkpoint("hf:Helsinki-NLP/opus-mt-en-de")
    with pytest.raises(CheckpointError, match="is not a Hub model id"):
        open_checkpoint("hf:../../etc")


def test_explorer_checkpoint_keeps_a_hub_id_whole():
    from explorer.model.formats import split_checkpoints

    assert split_checkpoints("hf:Helsinki-NLP/opus-mt-en-fr:checkpoints/lecture-en-de") == [
        "hf:Helsinki-NLP/opus-mt-en-fr",
        "checkpoints/lecture-en-de",
    ]


def test_a_multilingual_target_tag_is_one_piece_as_marians_tokenizer_reads_it(tmp_path_factory, corpus):
    folder = build_folder(tmp_path_factory, corpus, vocab_size=400)  # room for filler pieces
    vocab = json.loads((folder / "vocab.json").read_text())
    filler = next(piece for piece in vocab if piece.startswith("▁filler"))
    vocab[">>fra<<"] = vocab.pop(filler)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
    with pytest.warns(UserWarning, match="sacremoses"):
        tok = transformers.MarianTokenizer.from_pretrained(folder)
    ckpt = read_marian(folder)
    hf = transformers.MarianMTModel.from_pretrained(folder)
    ours = to_ours(hf)
    text = ">>fra<< The dog bites the man."
    assert ckpt.tokenizer.encode_source(text) == [ours[i] for i in tok(text).input_ids]
    assert ckpt.tokenizer.encode_source(text)[0] == ckpt.tokenizer.ids[">>fra<<"]


def test_a_vocabulary_that_lists_a_piece_twice_is_named(tmp_path_factory, corpus):
    folder = build_folder(tmp_path_factory, corpus)
    text = (folder / "vocab.json").read_text()
    (folder / "vocab.json").write_text(text.replace('"<unk>": 1,', '"<unk>": 1, "<unk>": 2,', 1))
    with pytest.raises(CheckpointError, match="the key '<unk>' appears twice"):
        open_checkpoint(folder)
