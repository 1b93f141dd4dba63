"""Data-parallel training: two CPU processes under torchrun end with identical weights; rank 0 exports."""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import TINY_MODEL_ARGS
from safetensors import safe_open

from explorer.model.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--data", "mini", *TINY_MODEL_ARGS]
TINY += "--max-tokens 512 --warmup 5 --lr 0.003 --eval-every 0 --bleu-sample 4 --threads 1 --log-every 1".split()
TINY += ["--device", "cpu"]  # two ranks on gloo, also on a machine with one GPU (NCCL needs a GPU per rank)

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    """Two processes on this machine, one thread each; fails the test instead of hanging."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node",
        "2",
        "--master_addr",
        "127.0.0.1",
        "--master_port",
        str(free_port()),
        *args,
    ]
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # torchrun and both workers: nothing is left waiting in a collective
        stdout, stderr = proc.communicate()
        pytest.fail(f"torchrun did not finish in {timeout} s (a rank waiting in a collective?)\n{stderr[-3000:]}")
    assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
    return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)


def read(path: Path) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    with safe_open(str(path), "pt") as f:
        return {k: f.get_tensor(k) for k in f.keys()}, f.metadata()


def test_two_ranks_end_with_identical_weights(tmp_path):
    # --unstable-tokenizer: rank 1 would train another vocabulary; only rank 0's may be used
    torchrun(
        str(ROOT / "tests" / "ddp_worker.py"),
        str(tmp_path),
        "--unstable-tokenizer",
        *TINY,
        "--dropout",
        "0.1",
        "--max-steps",
        "5",
        "--out",
        str(tmp_path / "model"),
        cwd=ROOT,
    )
    (t0, meta0), (t1, meta1) = read(tmp_path / "rank0.safetensors"), read(tmp_path / "rank1.safetensors")
    assert (meta0["rank"], meta1["rank"]) == ("0", "1")
    for meta in (meta0, meta1):
        assert meta["world_size"] == "2" and meta["distributed"] == "True"
        assert meta["step"] == "5" and meta["events"] == "6"  # five logged steps and the final event
    assert meta0["batches_per_epoch"] == meta1["batches_per_epoch"]  # same number of all-reduces per epoch
    assert meta0["tokenizer_sha256"] == meta1["tokenizer_sha256"]
    assert t0.keys() == t1.keys()
    names = sorted(k[len("final.") :] for k in t0 if k.startswith("final."))
    for name in names:
        assert torch.equal(t0[f"initial.{name}"], t1[f"initial.{name}"]), name  # DDP broadcast rank 0's init
        assert torch.equal(t0[f"final.{name}"], t1[f"final.{name}"]), name
    changed = [n for n in names if not torch.equal(t0[f"initial.{n}"], t0[f"final.{n}"])]
    assert len(changed) == len(names), set(names) - set(changed)  # every tensor was trained
    # only rank 0 exported, and its checkpoint holds the same weights
    ckpt = load_checkpoint(tmp_path / "model")
    assert ckpt.metadata["world_size"] == 2 and ckpt.metadata["steps"] == 5
    for name in names:
        assert torch.equal(ckpt.model.state_dict()[name], t0[f"final.{name}"]), name


def test_command_line_run_under_torchrun_exports_once(tmp_path):
    out = tmp_path / "model"
    proc = torchrun("-m", "explorer.training.train", *TINY, "--max-steps", "5", "--out", str(out), cwd=ROOT)
    assert "world size 2" in proc.stdout
    assert proc.stdout.count("parameters, vocab") == 1  # only rank 0 prints
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["training"]["world_size"] == 2 and config["training"]["steps"] == 5
    assert (tmp_path / "model.work" / "resume.pt").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "model.work"]  # no stray temporaries
    load_checkpoint(out)


def test_a_stop_on_one_rank_stops_every_rank_at_the_same_step(tmp_path):
    # a signal or stop() reaches the ranks at different moments; a rank that trained on alone would
    # wait forever in the gradient all-reduce
    torchrun(
        str(ROOT / "tests" / "ddp_worker.py"),
        str(tmp_path),
        "--stop-on-rank",
        "1",
        *TINY,
        "--max-steps",
        "50",
        "--out",
        str(tmp_path / "model"),
        cwd=ROOT,
        timeout=120,
    )
    (t0, meta0), (t1, meta1) = read(tmp_path / "rank0.safetensors"), read(tmp_path / "rank1.safetensors")
    assert meta0["step"] == meta1["step"] == "1"
    assert all(torch.equal(t0[k], t1[k]) for k in t0)
    assert load_checkpoint(tmp_path / "model").metadata["steps"] == 1
