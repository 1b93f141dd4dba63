"""Crafted checkpoints: every malformed size, header or metadata is refused with a CheckpointError naming the
field, before anything large is allocated; the CLIs end each in one `error:` line, exit code 2, in a small process.
"""

import html
import json
import re
import shutil
import subprocess
import sys

import pytest
from app_fixtures import REPO, app_env

from explorer.app.markdown import escape
from explorer.interpret.handle import ModelHandle, load_handle
from explorer.model.checkpoint import CheckpointError, load_checkpoint

MEMORY_CAP = (
    1536 << 20
)  # RLIMIT_DATA of the CLI subprocesses: `import torch, gradio` needs ~0.4 GB, a broken loader 12+ GB
PEAK_RSS_LIMIT_MB = 500  # with torch's CPU build; a CUDA build maps ~130 MB more on import
IMPORT_MARGIN_MB = 150  # what a CLI may hold beyond `import torch, gradio` (the control case)


# ----- ways to break a copy of the tiny checkpoint ----------------------------------------------
def read_config(ckpt) -> dict:
    return json.loads((ckpt / "config.json").read_text(encoding="utf-8"))


def write_config(ckpt, config: dict) -> None:
    (ckpt / "config.json").write_text(json.dumps(config), encoding="utf-8")


def model(**overrides):
    def damage(ckpt):
        config = read_config(ckpt)
        config["model"].update(overrides)
        write_config(ckpt, config)

    return damage


def training(**fields):
    """Set fields of the training metadata; a dotted key ("alignment.best") replaces a nested value."""

    def damage(ckpt):
        config = read_config(ckpt)
        meta = config["training"] = config.get("training") or {}
        meta.setdefault("alignment", {"pairs": 31, "best": {"layer": 1, "head": 2, "aer": 0.25}})
        meta.setdefault("evaluation", {"valid": {"bleu": 30.5, "chrf": 55.0, "sentences": 10}})
        for dotted, value in fields.items():
            *parents, last = dotted.split(".")
            target = meta
            for key in parents:
                target = target[key]
            target[last] = value
        write_config(ckpt, config)

    return damage


def nested(depth: int):
    def damage(ckpt):
        text = json.dumps(read_config(ckpt))[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
        (ckpt / "config.json").write_text(text, encoding="utf-8")

    return damage


def grow(name: str, size: int):
    """Make a file `size` bytes long without writing them (sparse)."""

    def damage(ckpt):
        with open(ckpt / name, "r+b") as f:
            f.truncate(size)

    return damage


def header_length(length: int):
    def damage(ckpt):
        weights = ckpt / "model.safetensors"
        data = weights.read_bytes()
        weights.write_bytes(length.to_bytes(8, "little") + data[8:])

    return damage


def header(tensor: str, change):
    """Update one tensor's header entry (dtype, shape, data_offsets) with `change` (a dict, or a function of
    the entry giving one), keeping the file's data."""

    def damage(ckpt):
        weights = ckpt / "model.safetensors"
        data = weights.read_bytes()
        length = int.from_bytes(data[:8], "little")
        head = json.loads(data[8 : 8 + length])
        head[tensor].update(change(head[tensor]) if callable(change) else change)
        raw = json.dumps(head).encode()
        weights.write_bytes(len(raw).to_bytes(8, "little") + raw + data[8 + length :])

    return damage


def narrower(entry: dict) -> dict:
    """Half the columns, and offsets that hold exactly that: a consistent header of the wrong shape."""
    (rows, cols), begin = entry["shape"], entry["data_offsets"][0]
    return {"shape": [rows, cols // 2], "data_offsets": [begin, begin + rows * (cols // 2) * 4]}


def shifted(entry: dict) -> dict:
    return {"data_offsets": [offset + 10**12 for offset in entry["data_offsets"]]}


MALFORMED = {
    # model config: every size bounded, all weights bounded, no NaN or Infinity
    "d_ff=1000000": (model(d_ff=1_000_000), "d_ff=1000000 is larger than the supported maximum"),
    "n_encoder_layers=1000000": (model(n_encoder_layers=1_000_000), "n_encoder_layers=1000000 is larger"),
    "d_model=65536": (model(d_model=65536), "d_model=65536 is larger"),
    "d_model=10**9": (model(d_model=10**9), "d_model=1000000000 is larger"),
    "max_len=10**9": (model(max_len=10**9), "max_len=1000000000 is larger"),
    "vocab_size=10**9": (model(vocab_size=10**9), "vocab_size=1000000000 is larger"),
    "n_heads=0": (model(n_heads=0), "n_heads=0 must be a positive integer"),
    "n_heads=10**6": (model(n_heads=10**6), "n_heads=1000000 is larger"),
    "each size allowed, too many weights": (
        model(d_model=2048, n_heads=8, d_ff=16384, n_encoder_layers=24, n_decoder_layers=24),
        "weights, more than the supported 100,000,000",
    ),
    "dropout NaN": (model(dropout=float("nan")), "dropout=nan must be a finite number"),
    "dropout Infinity": (model(dropout=float("inf")), "dropout=inf must be a finite number"),
    "d_ff NaN": (model(d_ff=float("nan")), "d_ff=nan must be a positive integer"),
    "norm_first a string": (model(norm_first="no"), "norm_first='no' must be true or false"),
    # config.json itself
    "100,000-deep nesting": (nested(100_000), r"config\.json is not valid JSON \(nested deeper"),
    "100-deep nesting": (nested(100), r"config\.json nests 101 levels deep"),
    "100 MB config.json": (grow("config.json", 100 << 20), r"config\.json has 104,857,600 bytes, more than"),
    "1 GB tokenizer.model": (grow("tokenizer.model", 1 << 30), r"tokenizer\.model has 1,073,741,824 bytes, more than"),
    # the weights file's header
    "header claims 1 TB": (
        header_length(1 << 40),
        r"model\.safetensors is not a readable safetensors file \(its header claims 1,099,511,627,776 bytes",
    ),
    "header longer than the file": (header_length(500_000), r"its header claims 500,000 bytes but only"),
    "offsets past the end": (
        header("embed.weight", shifted),
        r"is not a readable safetensors file \(Error while deserializing header: invalid offset for tensor",
    ),
    "shape needing more bytes than its offsets hold": (
        header("embed.weight", {"shape": [10**9, 32]}),
        r"is not a readable safetensors file \(Error while deserializing header: invalid shape, data type, or offset",
    ),
    "right name, narrower shape, a gap after its data": (
        header("embed.weight", narrower),
        r"is not a readable safetensors file \(Error while deserializing header: invalid offset for tensor",
    ),
    "right name, integer dtype": (
        header("embed.weight", {"dtype": "I32"}),
        r"tensor embed\.weight has dtype I32, expected a float type",
    ),
    "right name, unknown dtype": (
        header("embed.weight", {"dtype": "X9"}),
        r"invalid JSON in header: unknown variant `X9`",
    ),
    "negative size": (
        header("embed.weight", {"shape": [-1, 32]}),
        r"invalid JSON in header: invalid value: integer `-1`",
    ),
    # training metadata the explorer reads
    "alignment layer 99": (
        training(**{"alignment.best.layer": 99}),
        r"alignment\.best\.layer=99 is not a decoder layer of this model \(0 to 1",
    ),
    "alignment head 'x'": (
        training(**{"alignment.best.head": "x"}),
        r"alignment\.best\.head='x' is not a head of this model \(0 to 3",
    ),
    "alignment head 4 of 4": (training(**{"alignment.best.head": 4}), r"alignment\.best\.head=4 is not a head"),
    "alignment head '02'": (training(**{"alignment.best.head": "02"}), r"alignment\.best\.head='02' is not a head"),
    "alignment aer 'abc'": (
        training(**{"alignment.best.aer": "abc"}),
        r"alignment\.best\.aer='abc' must be a number from 0 to 1",
    ),
    "alignment best not a dict": (
        training(**{"alignment.best": "layer 1"}),
        r"alignment\.best='layer 1' must be a JSON object",
    ),
    "alignment pairs missing": (
        training(alignment={"best": {"layer": 0, "head": 0, "aer": 0.5}}),
        r"alignment\.pairs is missing",
    ),
    "alignment a list": (training(alignment=[1, 2]), r"alignment=\[1, 2\] must be a JSON object"),
    "evaluation not a dict": (training(evaluation=["valid", 30]), r"evaluation=\['valid', 30\] must be a JSON object"),
    "evaluation bleu a string": (
        training(**{"evaluation.valid.bleu": "high"}),
        r"evaluation\.valid\.bleu='high' must be a number",
    ),
    "evaluation bleu NaN": (
        training(**{"evaluation.valid.bleu": float("nan")}),
        r"evaluation\.valid\.bleu=nan must be a number",
    ),
    "evaluation sentences missing": (
        training(evaluation={"valid": {"bleu": 1.0, "chrf": 2.0}}),
        r"evaluation\.valid\.sentences is missing",
    ),
    "evaluation name with HTML": (
        training(evaluation={"<i>valid</i>": {"bleu": 1.0, "chrf": 2.0, "sentences": 3}}),
        r"evaluation name='<i>valid</i>' must be plain text",
    ),
    "HTML in name": (training(name="<b>Mine</b>"), r"name='<b>Mine</b>' must be plain text"),
    "HTML in hardware": (
        training(hardware='<img src=x onerror="alert(1)">'),
        r"hardware='<img src=x onerror=.* must be plain text",
    ),
    "name of two lines": (training(name="Mine\n# Yours"), r"name='Mine\\n# Yours' must be plain text"),
    "name of 1,000 characters": (
        training(name="x" * 1000),
        r"name='xxx.*\.\.\. must be plain text: one line of 1 to 80 characters",
    ),
    "name a number": (training(name=7), r"name=7 must be plain text"),
    "training_minutes a string": (
        training(training_minutes="long"),
        r"training_minutes='long' must be a finite number",
    ),
    "steps negative": (training(steps=-1), r"steps=-1 must be an integer of at least 0"),
    "train_config a list": (training(train_config=["data.tsv"]), r"train_config=\['data.tsv'\] must be a JSON object"),
    "training a list": (
        lambda ckpt: write_config(ckpt, read_config(ckpt) | {"training": []}),
        r"invalid training metadata: training=\[\] must be",
    ),
}


@pytest.fixture
def broken(tiny_checkpoint, tmp_path):
    """A fresh copy of the tiny checkpoint to damage."""
    return shutil.copytree(tiny_checkpoint, tmp_path / "broken")


@pytest.mark.slow
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_checkpoint_is_refused_with_the_field_named(case, broken):
    damage, message = MALFORMED[case]
    damage(broken)
    with pytest.raises(CheckpointError, match=message) as info:
        load_checkpoint(broken)
    assert "\n" not in str(info.value)


def test_valid_metadata_loads_and_picks_the_default_view(broken):
    training(name="Tiny model [test] *v2*", **{"alignment.best.head": "3"})(broken)  # markdown is fine: it is escaped
    handle = load_handle(broken)
    assert handle.name == "Tiny model [test] *v2*" and handle.default_view == ("cross", 1, "3")
    training(**{"alignment.best.layer": "all", "alignment.best.head": "mean"})(broken)
    assert load_handle(broken).default_view == ("cross", 1, "mean")  # the last layer's mean


# ----- the display name -------------------------------------------------------------------------
def test_the_name_comes_from_the_metadata_then_the_card_then_the_directory(broken):
    training(name="Tiny en-de")(broken)
    assert load_handle(broken).name == "Tiny en-de"
    training(name=None)(broken)
    (broken / "README.md").write_text("intro\n# Tiny card title\n# second\n", encoding="utf-8")
    assert load_handle(broken).name == "Tiny card title"
    (broken / "README.md").write_text("# <b>markup</b>\n", encoding="utf-8")  # not plain text: skipped
    assert load_handle(broken).name == "broken"
    (broken / "README.md").unlink()
    assert load_handle(broken).name == "broken"  # the directory's name, never its path
    assert load_handle(broken, name="Given").name == "Given"


# ----- metadata shows as text -------------------------------------------------------------------
def test_escape_shows_html_and_markdown_literally():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    for text in [
        "<script>alert(1)</script> & <b>b</b>",
        "**x** _y_ `c` [l](http://e.com) ![i](x.png)",
        "# h | a | ~~s~~ 1. \\",
        "&amp; $$x$$",
    ]:
        rendered = md.render(escape(text))
        assert rendered.startswith("<p>") and rendered.count("<") == 2, rendered  # one paragraph of text, no tags
    assert escape("a\n# b") == "a \\# b"  # a line break cannot start a heading


def test_the_about_tab_shows_every_value_from_the_checkpoint_as_text(tiny_checkpoint):
    from markdown_it import MarkdownIt

    from explorer.ui.about_tab import describe

    ckpt = load_checkpoint(tiny_checkpoint)
    name, hardware, test_set = (
        "<img src=x onerror=alert(1)> *Mine*",
        "x86_64 **fast** [box](http://e.com)",
        "`valid` _set_ | #1",
    )
    meta = {
        "training_minutes": 1.5,
        "steps": 10,
        "hardware": hardware,
        "evaluation": {test_set: {"bleu": 12.5, "chrf": 40.0, "sentences": 3}},
        "alignment": {"pairs": 5, "best": {"layer": 1, "head": 2, "aer": 0.25}},
    }
    rendered = MarkdownIt("commonmark", {"html": True}).render(
        describe(ModelHandle(name, ckpt.model, ckpt.tokenizer, meta))
    )
    tags = re.findall(r"<(/?\w+)", rendered)
    assert set(tags) == {"h3", "/h3", "ul", "/ul", "li", "/li"}, rendered  # the structure of describe() only
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert name in text and f"on {hardware}." in text and f"{test_set}: BLEU 12.5, chrF 40.0 (3 segments)." in text
    assert "L1·H2 (layer, head) (alignment error rate 0.25 on 5 hand-aligned sentences)" in text


# ----- the CLIs: one error line, exit code 2, small and capped ----------------------------------
APP = ["app.py", "--port", "1", "--checkpoint"]  # the commands after `python`, the checkpoint last
EVALUATE = ["-m", "explorer.training.evaluate", "--data", "DATA", "--checkpoint"]
CARD = ["-m", "explorer.training.model_report", "--card-only", "--checkpoint"]
CLI_CASES = {  # case: (MALFORMED case, command after `python`)
    "app: d_ff=1000000": ("d_ff=1000000", APP),
    "app: n_encoder_layers=1000000": ("n_encoder_layers=1000000", APP),
    "app: 100,000-deep nesting": ("100,000-deep nesting", APP),
    "app: alignment layer 99": ("alignment layer 99", APP),
    "app: HTML in name": ("HTML in name", APP),
    "evaluate: 100 MB config.json": (
        "100 MB config.json",
        EVALUATE,
    ),
    "evaluate: d_model=65536": (
        "d_model=65536",
        EVALUATE,
    ),
    "evaluate: header claims 1 TB": (
        "header claims 1 TB",
        EVALUATE,
    ),
    "evaluate: offsets past the end": (
        "offsets past the end",
        EVALUATE,
    ),
    "model_report: evaluation bleu a string": (
        "evaluation bleu a string",
        CARD,
    ),
}
CONTROL = "control: import torch, gradio"
# Runs one command under the memory cap and writes {"code", "peak_kib"} to argv[1]. A child's ru_maxrss starts at
# the RSS of the process that forked it (Linux carries the old memory's high-water mark across exec), so the
# CLIs are forked from this small launcher, not from pytest, whose hundreds of MB would be counted as theirs.
LAUNCHER = """
import json, os, resource, subprocess, sys
report, cap, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
proc = subprocess.Popen(command, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_DATA, (cap, cap)))
_, status, usage = os.wait4(proc.pid, 0)  # the rusage of this child alone; ru_maxrss in KiB
with open(report, "w") as f:
    json.dump({"code": os.waitstatus_to_exitcode(status), "peak_kib": usage.ru_maxrss}, f)
"""


@pytest.fixture(scope="module")
def cli_runs(tiny_checkpoint, tmp_path_factory):
    """Every CLI case started at once (each pays the torch import), then (exit code, stdout, stderr, peak RSS in MB)."""
    root = tmp_path_factory.mktemp("cli")
    data = root / "test.tsv"
    data.write_text("I am tired.\tIch bin müde.\n", encoding="utf-8")
    commands = {}
    for i, (case, (malformed, command)) in enumerate(CLI_CASES.items()):
        ckpt = shutil.copytree(tiny_checkpoint, root / f"ckpt{i}")
        MALFORMED[malformed][0](ckpt)
        commands[case] = [str(data) if a == "DATA" else a for a in command] + [str(ckpt)]
    commands[CONTROL] = ["-c", "import torch, gradio"]
    procs = {}
    for i, (case, args) in enumerate(commands.items()):
        with (
            open(root / f"{i}.out", "wb") as out,
            open(root / f"{i}.err", "wb") as err,
        ):  # files: a full pipe cannot block
            launcher = [sys.executable, "-c", LAUNCHER, str(root / f"{i}.json"), str(MEMORY_CAP), sys.executable, *args]
            procs[case] = subprocess.Popen(launcher, cwd=REPO, env=app_env(), stdout=out, stderr=err)
    results = {}
    for i, (case, proc) in enumerate(procs.items()):
        assert proc.wait(timeout=300) == 0, (root / f"{i}.err").read_text(errors="replace")
        report = json.loads((root / f"{i}.json").read_text())
        out, err = ((root / f"{i}.{kind}").read_text(errors="replace") for kind in ("out", "err"))
        results[case] = (report["code"], out, err, report["peak_kib"] / 1024)
    print("\npeak RSS (MB): " + ", ".join(f"{case} {rss:.0f}" for case, (*_, rss) in results.items()))
    return results


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CLI_CASES))
def test_a_cli_ends_a_malformed_checkpoint_in_one_error_line(case, cli_runs):
    code, out, err, peak_mb = cli_runs[case]
    lines = err.strip().splitlines()
    assert code == 2, (out, err)
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in err, err
    control_mb = cli_runs[CONTROL][3]
    assert peak_mb < max(PEAK_RSS_LIMIT_MB, control_mb + IMPORT_MARGIN_MB), f"peak RSS {peak_mb:.0f} MB"
    malformed = CLI_CASES[case][0]
    assert re.search(MALFORMED[malformed][1], lines[0]), lines[0]


@pytest.mark.slow
def test_the_memory_cap_leaves_room_for_the_imports(cli_runs):
    """The cap is not what ends the CLIs: torch and gradio import under it."""
    code, out, err, peak_mb = cli_runs[CONTROL]
    assert code == 0 and err == "", err


def test_the_about_tab_says_that_equal_scores_are_a_tie_not_a_copy():
    from explorer.ui.about_tab import tie_note

    methods = [
        {"method": "attention, mean of all heads", "aer": 0.076, "accuracy": 0.961},
        {"method": "attention rollout (mean over decoder layers)", "aer": 0.577, "accuracy": 0.44},
        {"method": "gradient × input", "aer": 0.577, "accuracy": 0.44},
        {"method": "integrated gradients", "aer": 0.441, "accuracy": 0.581},
    ]
    said = tie_note(methods)
    assert said.startswith("attention rollout") and "and gradient × input score the same here" in said
    assert "not a copy" in said and "bench.alignment_overlap" in said
    assert tie_note(methods[:2] + methods[3:]) == ""  # no tie, nothing said
