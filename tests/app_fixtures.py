"""The real app as a subprocess on a tiny random-weight checkpoint, and API users (plain HTTP) of it.

`conftest.py` imports the fixtures from here, so the one server is shared by every test module that
asks for `app_url` (the API tests and the browser tests) and started only when one does.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

from explorer.app.examples import EXAMPLES  # noqa: E402
from explorer.model.checkpoint import save_checkpoint  # noqa: E402
from explorer.model.config import (
    EOS_ID,
    ModelConfig,  # noqa: E402
)
from explorer.model.tokenizer import Tokenizer  # noqa: E402
from explorer.model.transformer import Transformer  # noqa: E402
from explorer.training.data import MINI_CORPUS, clean, read_tsv  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
READY_TIMEOUT_S = 180  # torch + gradio imports are slow on a machine busy with a training run
# Sentences the tests type whose characters are not in the mini corpus: added to the tokenizer's training
# text so they become real pieces (with character_coverage=1.0) and the chips can show them literally.
EXTRA_TOKENIZER_TEXT = [
    "I ❤ 東京 שלום",
    "<script>alert(1)</script> <b>bold</b>",
    '<img src=x onerror=alert(1)> "quoted" & [brackets] {braces}',
]
READY = {}  # filled by app_server: {"seconds": ..., "url": ..., "log": ...}; printed in the terminal summary


def build_tiny_checkpoint(directory: Path, n_heads: int = 4) -> Path:
    """Tokenizer (vocab 400) on the mini corpus, a 2+2-layer d_model 32 Transformer with random weights (4 heads, or
    `n_heads`: the next models have 8)."""
    pairs = clean(read_tsv(MINI_CORPUS))
    tokenizer = Tokenizer.train([s for pair in pairs for s in pair] + EXTRA_TOKENIZER_TEXT, vocab_size=400)
    config = ModelConfig(
        vocab_size=tokenizer.vocab_size,
        d_model=32,
        n_heads=n_heads,
        n_encoder_layers=2,
        n_decoder_layers=2,
        d_ff=64,
        dropout=0.0,
        max_len=64,
    )
    torch.manual_seed(0)
    model = Transformer(config).eval()
    with torch.no_grad():
        # tied output embedding: a zero EOS row gives </s> logit 0, below the max of ~400 random logits, so
        # greedy decoding never stops early and step counts in the tests are predictable
        model.embed.weight[EOS_ID].zero_()
    # an alignment finding as model_report writes it: the app opens on its best head (layer 1, head 2)
    alignment = {"best": {"layer": 1, "head": "2", "aer": 0.5}, "pairs": 3, "gold": "made up for tests"}
    path = save_checkpoint(
        directory, model, tokenizer, metadata={"note": "random weights, for tests", "alignment": alignment}
    )
    add_timelapse(path, model)
    add_roles(path)
    return path


def add_roles(checkpoint: Path) -> None:
    """Every head's role stored with the checkpoint, as the shipped ones carry theirs (`bench/head_roles.py --write`):
    the page then brings them, and a first visit asks the server nothing."""
    from explorer.app.questions.roles import measure_roles
    from explorer.interpret.handle import load_handle
    from explorer.model.checkpoint import update_metadata

    update_metadata(checkpoint, {"head_roles": measure_roles(load_handle(checkpoint)).model_dump(exclude={"what"})})


TIMELAPSE_SENTENCES = [s for s, _ in EXAMPLES[:2]]  # the opening example is recorded


def add_timelapse(checkpoint: Path, model: Transformer) -> None:
    """Two made-up earlier points of training (the weights scaled down) and the time-lapse of two examples."""
    from safetensors.torch import save_file

    from explorer.app import timelapse

    snapshots = checkpoint.parent / "snapshots"
    snapshots.mkdir(exist_ok=True)
    for step, scale in ((10, 0.3), (20, 0.7)):
        state = {k: (v * scale).half().contiguous() for k, v in model.state_dict().items()}
        save_file(state, str(snapshots / f"step_{step:06d}.safetensors"))
    timelapse.write(timelapse.build(checkpoint, snapshots, TIMELAPSE_SENTENCES), checkpoint)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env() -> dict:
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1")
    # the suite's lecturers all come from one loopback address within a minute: each address's room limits (3 held,
    # 6 a minute) would refuse the fourth; tests/test_rooms.py holds them in-process
    env.update(AE_ROOMS_PER_ADDRESS="1000", AE_ROOM_RATE="1000/minute", AE_TRAIN_RATE="1000/minute")
    for name in ("GRADIO_SERVER_NAME", "GRADIO_SERVER_PORT", "EXPLORER_CHECKPOINT", "GRADIO_SHARE"):
        env.pop(name, None)
    return env


def run_app(checkpoint, port: int, log_dir: Path, args=(), env=None) -> tuple[subprocess.Popen, Path]:
    """Start `python app.py` (with extra `args`, environment `env`); its output goes to a file so a full pipe can
    never block it."""
    log_path = log_dir / f"app-{port}.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [sys.executable, "app.py", "--checkpoint", str(checkpoint), "--port", str(port), *args],
        cwd=REPO,
        env=env or app_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    return proc, log_path


def wait_until_ready(proc: subprocess.Popen, url: str, log_path: Path, timeout: float = READY_TIMEOUT_S) -> float:
    """Seconds until the app answers HTTP 200; fails with the app's output if it dies or never answers."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            output = log_path.read_text(errors="replace")
            pytest.fail(f"app exited with code {proc.returncode} before answering:\n{output}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        time.sleep(0.25)
    proc.kill()
    pytest.fail(f"app did not answer {url} within {timeout:.0f} s:\n{log_path.read_text(errors='replace')}")


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    return build_tiny_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny")


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_checkpoint) -> Tokenizer:
    """The same tokenizer the app loaded, to compute the expected chips."""
    return Tokenizer.load(tiny_checkpoint / "tokenizer.model")


def stop_app(proc: subprocess.Popen, log_path: Path) -> None:
    """Stop the app by its PID; print its output if it had died on its own."""
    died = proc.poll() is not None
    if not died:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if died:
        output = log_path.read_text(errors="replace")
        print(f"\nthe app died during the tests (code {proc.returncode}); its output:\n{output}")


@contextmanager
def served(checkpoint, log_dir: Path):
    """The URL of `python app.py --checkpoint CHECKPOINT` on a free port, stopped by its PID at the end."""
    port = free_port()
    proc, log_path = run_app(checkpoint, port, log_dir)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_ready(proc, url, log_path)
        yield url
    finally:
        stop_app(proc, log_path)


@pytest.fixture(scope="session")
def app_server(tiny_checkpoint, tmp_path_factory):
    """(URL, process) of the real app (`python app.py --checkpoint tiny --port P`), shared by the whole test session."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc, log_path = run_app(tiny_checkpoint, port, tmp_path_factory.mktemp("applog"))
    seconds = wait_until_ready(proc, url, log_path)
    READY.update(seconds=seconds, url=url, log=str(log_path))
    print(f"\napp ready at {url} after {seconds:.1f} s")
    try:
        yield url, proc
    finally:
        stop_app(proc, log_path)


@pytest.fixture(scope="session")
def app_url(app_server):
    return app_server[0]


@pytest.fixture(scope="session")
def shipped_url(tmp_path_factory):
    """The URL of `python app.py` on the shipped default model, one for the whole session (the modules that hold the
    page to that model's own numbers share it)."""
    from explorer.app import SHIPPED_CHECKPOINT

    with served(SHIPPED_CHECKPOINT, tmp_path_factory.mktemp("shipped-log")) as url:
        yield url


@pytest.fixture(scope="session")
def app_log(app_server) -> Path:
    """The shared app's output (stdout and stderr), as a file that grows while the tests run."""
    return Path(READY["log"])


class Refused(Exception):
    """The API's refusal: its status and the message a person reads."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ApiUser:
    """One API user (a browser, a script) of the app's API at `/ae/api`, as the README shows it: plain HTTP, with the
    client id the server issues (`POST /client`), as the page has."""

    def __init__(self, app_url: str):
        import httpx

        self.http = httpx.Client(base_url=f"{app_url}ae/api", timeout=120)
        self.http.headers["x-ae-client"] = self.http.post("/client").json()["client"]

    def get(self, path: str, **params):
        """The JSON answer of GET `path`; a refusal raises `Refused`."""
        return self.answer(self.http.get(path, params=params))

    def post(self, path: str, body: dict | None = None):
        """The JSON answer of POST `path` with `body`; a refusal raises `Refused`."""
        return self.answer(self.http.post(path, json=body or {}))

    @staticmethod
    def answer(answer):
        if answer.status_code not in (200, 201):
            raise Refused(answer.status_code, answer.json()["error"])
        return answer.json()

    def events(self, path: str):
        """The `data` of each server-sent event of GET `path`, parsed, until the stream ends."""
        with self.http.stream("GET", path) as stream:
            if stream.status_code != 200:
                stream.read()
                raise Refused(stream.status_code, stream.json()["error"])
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    yield json.loads(line[len("data: ") :])


@pytest.fixture
def make_api(app_url):
    users = []

    def make():
        users.append(ApiUser(app_url))
        return users[-1]

    yield make
    for user in users:
        user.http.close()


@pytest.fixture
def api(make_api):
    return make_api()
