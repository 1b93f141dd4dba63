"""Training: schedule and CLI parsing, learning the mini corpus, exact resume, stop(), and the export."""

import copy
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from conftest import TINY_MODEL_ARGS

from explorer.interpret.decoding import greedy_decode
from explorer.model.checkpoint import load_checkpoint
from explorer.model.config import ModelConfig
from explorer.training.recipe import load_recipe
from explorer.training.train import build_trainer, command_line, main, parse_args, read_data
from explorer.training.trainer import (
    RESUME_FILE,
    TrainConfig,
    Trainer,
    inverse_sqrt_schedule,
    pick_device,
    sequence_loss,
    time_cooldown,
    training_device,
    use_bf16,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def keep_torch_threads():
    """build_trainer(threads=1) sets torch's global thread count; give the rest of the session its own back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def tiny_train_config(tmp_path, **overrides) -> TrainConfig:
    """A model small enough that a step takes milliseconds on one CPU thread; overrides may name model fields."""
    model = dict(
        vocab_size=200, d_model=16, n_heads=4, n_encoder_layers=1, n_decoder_layers=1, d_ff=32, dropout=0.0, max_len=64
    )
    values = dict(
        data=["mini"],
        valid_fraction=0.05,
        out=str(tmp_path / "model"),
        work_dir=str(tmp_path / "work"),
        max_tokens=512,
        lr=2e-3,
        warmup=10,
        max_steps=10,
        eval_every=0,
        bleu_sample=4,
        seed=0,
        threads=1,
        log_every=5,
    )
    for key, value in overrides.items():
        (model if key in model else values)[key] = value
    return TrainConfig(model=ModelConfig(**model), **values)


def run(trainer: Trainer) -> list:
    return list(trainer.run())


# ----- units ------------------------------------------------------------------------------------
def test_inverse_sqrt_schedule_warms_up_linearly_then_decays_as_sqrt():
    f = inverse_sqrt_schedule(100)
    assert f(0) == f(1) == pytest.approx(0.01)  # step 0 is treated as step 1: never a zero lr
    for step in (1, 10, 50, 99, 100):
        assert f(step) == pytest.approx(step / 100)
    for step in (100, 400, 2500, 10_000):
        assert f(step) == pytest.approx(math.sqrt(100 / step))
    assert max(range(1, 1000), key=f) == 100
    assert f(400) == pytest.approx(f(100) / 2)
    assert inverse_sqrt_schedule(0)(1) == 1.0  # no warmup: peak at once


def test_cooldown_falls_linearly_to_zero_at_max_steps():
    plain, cooled = inverse_sqrt_schedule(100), inverse_sqrt_schedule(100, max_steps=1000, cooldown_steps=400)
    for step in (1, 50, 100, 400, 600):  # untouched before the cooldown starts
        assert cooled(step) == pytest.approx(plain(step))
    for step in (700, 800, 900, 999):
        assert cooled(step) == pytest.approx(plain(step) * (1000 - step) / 400)
    assert cooled(1000) == cooled(1200) == 0.0
    with pytest.raises(ValueError, match="max_steps"):
        inverse_sqrt_schedule(100, cooldown_steps=10)


def test_time_cooldown_falls_linearly_to_zero_at_max_minutes(tmp_path):
    assert time_cooldown(500.0, 10.0, 0.0) == 1.0  # no cooldown: time never touches the lr
    for elapsed, expected in ((0, 1.0), (360, 1.0), (420, 0.75), (540, 0.25), (600, 0.0), (900, 0.0)):
        assert time_cooldown(elapsed, 10.0, 4.0) == pytest.approx(expected)
    with pytest.raises(ValueError, match="cooldown_minutes 2.0 needs max_minutes"):
        tiny_train_config(tmp_path, cooldown_minutes=2.0)

    # the trainer's schedule multiplies the step schedule by it: a lease's last minutes take the lr to 0
    trainer = build_trainer(
        tiny_train_config(tmp_path, max_steps=0, max_minutes=10.0, cooldown_minutes=4.0, warmup=0), log=lambda _: None
    )
    (schedule,) = trainer.scheduler.lr_lambdas
    for elapsed, factor in ((0.0, 1.0), (480.0, 0.5), (600.0, 0.0)):
        trainer.elapsed = elapsed
        assert schedule(7) == pytest.approx(factor * inverse_sqrt_schedule(0)(7))


@pytest.mark.slow
def test_batches_collated_by_loader_workers_train_exactly_like_the_loop(tmp_path):
    """Worker processes build the same batches in the same order: the same weights, step for step."""
    runs = {}
    for workers in (0, 2):
        config = tiny_train_config(
            tmp_path / str(workers),
            max_steps=12,
            max_tokens=1024,
            dropout=0.1,
            loader_workers=workers,
            device="cpu",
            log_every=4,
        )
        trainer = build_trainer(config, log=lambda _: None)
        run(trainer)
        assert trainer.step == 12 and trainer.epoch >= 1  # an epoch boundary crossed: a new loader there
        runs[workers] = trainer
    for name, tensor in runs[0].model.state_dict().items():
        torch.testing.assert_close(runs[2].model.state_dict()[name], tensor, atol=0, rtol=0, msg=name)
    losses = [[h["loss"] for h in t.history if not h.get("valid")] for t in runs.values()]
    assert len(losses[0]) == 3 and losses[0] == losses[1]
    with pytest.raises(ValueError, match="loader_workers -1"):
        tiny_train_config(tmp_path, loader_workers=-1)


def test_bf16_autocast_is_chosen_by_device_and_setting():
    cpu = torch.device("cpu")
    assert use_bf16(torch.device("cuda"), "auto") is True
    assert use_bf16(torch.device("mps"), "auto") is False
    assert use_bf16(cpu, "auto") is bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    assert use_bf16(cpu, "true") is True and use_bf16(cpu, "false") is False
    with pytest.raises(ValueError, match="auto, true or false"):
        use_bf16(cpu, "yes")


def test_parse_args_builds_a_train_config():
    config = parse_args(
        [
            "--data",
            "a.tsv",
            "src.txt,tgt.txt",
            "hf:opus100:de-en",
            "--valid",
            "valid.tsv",
            "--d-model",
            "64",
            "--n-heads",
            "2",
            "--norm-first",
            "false",
            "--lr",
            "0.002",
            "--max-minutes",
            "1.5",
            "--save-dtype",
            "float16",
            "--out",
            "runs/x",
        ]
    )
    assert config.data == ["a.tsv", "src.txt,tgt.txt", "hf:opus100:de-en"]
    assert config.valid == "valid.tsv" and config.out == "runs/x" and config.work_dir is None
    assert config.model.d_model == 64 and config.model.n_heads == 2 and config.model.norm_first is False
    assert config.lr == 0.002 and config.max_minutes == 1.5 and config.save_dtype == "float16"
    assert isinstance(config.model.d_model, int) and isinstance(config.lr, float)
    assert parse_args(["--norm-first", "true"]).model.norm_first is True
    assert parse_args(["--norm-first", "1"]).model.norm_first is True
    assert parse_args([]) == TrainConfig()
    assert TrainConfig().model == ModelConfig()  # one set of architecture defaults


def test_a_recipe_sets_every_value_and_flags_override_single_ones():
    recipe = load_recipe("tatoeba_en_de").recipe.config
    assert parse_args(["--recipe", "tatoeba_en_de"]) == recipe
    config = parse_args(["--recipe", "tatoeba_en_de", "--lr", "0.002", "--d-model", "128", "--out", "runs/x"])
    assert config.lr == 0.002 and config.model.d_model == 128 and config.out == "runs/x"
    assert (
        config.model.n_heads == recipe.model.n_heads and config.max_steps == recipe.max_steps
    )  # the rest: the recipe's
    with pytest.raises(
        ValueError,
        match="no recipe named .nope.; known: deep_lecture_en_de, lecture_en_de, lecture_scratch_en_de, mask_compan",
    ):
        load_recipe("nope")


def test_the_card_shows_where_a_run_wrote_as_placeholders():
    argv = ["--recipe", "tatoeba_en_de", "--out", "/home/me/runs/a", "--work-dir=/tmp/w", "--lr", "0.002"]
    assert (
        command_line(argv)
        == "python -m explorer.training.train --recipe tatoeba_en_de --out OUT --work-dir=WORK_DIR --lr 0.002"
    )


def test_parse_args_refuses_bad_values():
    with pytest.raises(SystemExit):
        parse_args(["--d-model", "sixty-four"])
    with pytest.raises(SystemExit):
        parse_args(["--no-such-flag", "1"])


@pytest.mark.skipif(torch.cuda.is_available() or torch.backends.mps.is_available(), reason="an accelerator is present")
def test_pick_device_auto_is_cpu_here():
    assert pick_device("auto") == torch.device("cpu")
    assert pick_device() == torch.device("cpu")
    assert pick_device("cpu") == torch.device("cpu")


def test_sequence_loss_ignores_padding():
    logits = torch.randn(2, 3, 7)
    target = torch.tensor([[4, 5, 0], [6, 0, 0]])
    expected = torch.nn.functional.cross_entropy(logits[target != 0], target[target != 0])
    torch.testing.assert_close(sequence_loss(logits, target, 0.0), expected)


def test_model_config_follows_the_tokenizer(tmp_path):
    trainer = build_trainer(tiny_train_config(tmp_path, vocab_size=10_000), log=lambda _: None)
    # asking for more pieces than the mini corpus supports is capped instead of failing
    assert trainer.tokenizer.vocab_size < 10_000
    assert trainer.model.config.vocab_size == trainer.tokenizer.vocab_size
    assert trainer.model.config.d_model == 16 and trainer.step == 0


def test_more_processes_than_batches_is_an_error_not_an_endless_loop(tmp_path):
    trainer = build_trainer(tiny_train_config(tmp_path, max_tokens=100_000), log=lambda _: None)
    assert len(trainer._epoch_batches()) == 1
    trainer.world = 2  # as under torchrun: one batch cannot be shared by two ranks
    with pytest.raises(ValueError, match="1 batches per epoch cannot feed 2 processes; lower max_tokens"):
        next(trainer.run())


# ----- stopping and exporting -------------------------------------------------------------------
def test_stop_from_the_event_loop_finishes_after_the_current_step(tmp_path):
    trainer = build_trainer(tiny_train_config(tmp_path, max_steps=1000, log_every=2), log=lambda _: None)
    events = []
    for event in trainer.run():
        events.append(event)
        if len(events) == 1:
            trainer.stop()
    assert [e.step for e in events] == [2, 2]
    assert not events[0].done and events[-1].done
    assert trainer.step == 2
    assert (tmp_path / "work" / RESUME_FILE).is_file()  # stopping still saves the resume state ...
    assert load_checkpoint(tmp_path / "model").metadata["steps"] == 2  # ... and exports


def test_events_and_the_exported_checkpoint(tmp_path):
    logs = []
    trainer = build_trainer(
        tiny_train_config(tmp_path, max_steps=12, log_every=4, save_dtype="float16"), log=logs.append
    )
    events = run(trainer)
    assert [e.step for e in events] == [4, 8, 12, 12]
    assert [e.done for e in events] == [False, False, False, True]
    assert all(e.loss > 0 and math.isfinite(e.loss) and e.lr > 0 for e in events)
    final = events[-1].valid
    assert final is not None and {"loss", "bleu", "chrf", "examples"} <= set(final)
    assert any("valid loss" in line for line in logs)

    out = tmp_path / "model"
    ckpt = load_checkpoint(out)
    assert ckpt.tokenizer.model_proto == trainer.tokenizer.model_proto
    for name, tensor in trainer.model.state_dict().items():  # saved as float16, loaded as float32
        torch.testing.assert_close(ckpt.model.state_dict()[name], tensor.cpu(), atol=1e-3, rtol=1e-3)
    meta = ckpt.metadata
    assert meta["steps"] == 12 and meta["world_size"] == 1
    assert meta["parameters"] == trainer.model.num_parameters()
    assert meta["train_config"]["model"]["d_model"] == 16 and meta["last_validation"]["step"] == 12
    assert [h["step"] for h in meta["history"] if not h.get("valid")] == [4, 8, 12]
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert f"parameters: {trainer.model.num_parameters():,}" in readme
    assert "loss_curve.png" in readme
    assert (out / "loss_curve.png").read_bytes().startswith(PNG_MAGIC)
    assert json.loads((out / "config.json").read_text(encoding="utf-8"))["training"]["steps"] == 12


def test_cli_records_its_command_and_export_only_keeps_the_training_command(tmp_path, capsys):
    work, out, copy = tmp_path / "work", tmp_path / "model", tmp_path / "fp32"
    common = ["--data", "mini", "--work-dir", str(work), *TINY_MODEL_ARGS]
    common += "--max-tokens 512 --warmup 10 --eval-every 0 --bleu-sample 4 --threads 1".split()
    train_args = common + ["--out", str(out), "--max-steps", "3", "--save-dtype", "float16"]
    assert main(train_args) == 0
    command = load_checkpoint(out).metadata["command"]
    assert command == "python -m explorer.training.train " + " ".join(train_args).replace(str(out), "OUT").replace(
        str(work), "WORK_DIR"
    )
    assert main(common + ["--out", str(copy), "--export-only"]) == 0
    assert f"exported step 3 to {copy}" in capsys.readouterr().out
    assert load_checkpoint(copy).metadata["command"] == command  # what made the weights, not the export
    assert main(["--work-dir", str(tmp_path / "empty"), "--out", str(tmp_path / "x"), "--export-only"]) == 2
    assert (
        build_trainer(tiny_train_config(tmp_path / "py"), log=lambda _: None)
        .metadata()["command"]
        .startswith("explorer.training.trainer.Trainer")
    )


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2], ids=["in the loop", "loader workers"])
def test_sigterm_stops_the_cli_after_a_step_and_leaves_a_resumable_export(tmp_path, workers):
    """SIGTERM to the whole process group, as `timeout` and Ctrl-C (SIGINT) send it: the loader's workers get it too,
    and must leave it to the trainer (a lease's run once lost its model when they died under it)."""
    out, work = tmp_path / "model", tmp_path / "work"
    command = [
        sys.executable,
        "-m",
        "explorer.training.train",
        "--data",
        "mini",
        "--out",
        str(out),
        "--work-dir",
        str(work),
    ]
    command += [*TINY_MODEL_ARGS, *"--max-tokens 256 --max-steps 100000 --eval-every 0 --bleu-sample 4".split()]
    command += f"--threads 1 --log-every 5 --loader-workers {workers}".split()
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )  # its own process group, as a shell job's
    model_line = ""
    try:
        for line in proc.stdout:  # training has begun once the model line is printed
            if line.startswith("model:"):
                model_line = line
                break
        time.sleep(2)
        os.killpg(proc.pid, signal.SIGTERM)  # the trainer and its loader's workers
        output = proc.communicate(timeout=120)[0]
    finally:
        proc.kill()
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    if platform.libc_ver()[0] == "glibc" and "device cpu" in model_line:  # explorer.training.allocator
        assert "malloc keeps freed memory" in model_line
    steps = load_checkpoint(out).metadata["steps"]
    assert 0 < steps < 100000
    assert torch.load(work / RESUME_FILE, weights_only=True)["step"] == steps


# ----- learning ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_learns_the_mini_corpus_and_decodes_training_sentences_exactly(tmp_path):
    config = tiny_train_config(
        tmp_path,
        vocab_size=400,
        d_model=64,
        n_heads=4,
        n_encoder_layers=2,
        n_decoder_layers=2,
        d_ff=128,
        lr=3e-3,
        warmup=50,
        max_tokens=1024,
        max_steps=150,
        valid_fraction=0.02,
        log_every=10,
        seed=1,
    )
    trainer = build_trainer(config, log=lambda _: None)
    events = run(trainer)
    losses = [e.loss for e in events if not e.done]
    assert len(losses) == 15 and events[-1].step == 150
    assert losses[-1] < losses[0] / 2, losses

    pairs = [p for p in read_data(config, log=lambda _: None)[0] if len(p[0].split()) <= 4][:5]
    assert len(pairs) == 5
    sources = [trainer.tokenizer.encode_source(src) for src, _ in pairs]
    trainer.model.eval()
    hypotheses = [trainer.tokenizer.decode(ids) for ids in greedy_decode(trainer.model, sources)]
    exact = sum(h == tgt for h, (_, tgt) in zip(hypotheses, pairs))
    assert exact >= 4, list(zip(hypotheses, pairs))
    # the exported checkpoint translates the same way
    ckpt = load_checkpoint(tmp_path / "model")
    assert greedy_decode(ckpt.model, sources) == greedy_decode(trainer.model, sources)


def test_fused_adamw_updates_like_the_per_tensor_loop(tmp_path):
    trainer = build_trainer(tiny_train_config(tmp_path, max_steps=1), log=lambda _: None)
    assert trainer.optimizer.param_groups[0]["fused"]  # CPU: one fused kernel
    reference, initial = copy.deepcopy(trainer.model), copy.deepcopy(trainer.model)
    loop = torch.optim.AdamW(
        reference.parameters(),
        lr=trainer.optimizer.param_groups[0]["lr"],
        betas=(0.9, 0.98),
        eps=1e-9,
        weight_decay=trainer.config.weight_decay,
        foreach=False,
    )
    generator = torch.Generator().manual_seed(0)
    for _ in range(3):
        for mine, theirs in zip(trainer.model.parameters(), reference.parameters()):
            mine.grad = torch.randn(mine.shape, generator=generator).to(mine.device)
            theirs.grad = mine.grad.clone()
        trainer.optimizer.step()
        loop.step()
    moved = 0.0
    for (name, mine), theirs, before in zip(
        trainer.model.named_parameters(), reference.parameters(), initial.parameters()
    ):
        torch.testing.assert_close(mine, theirs, atol=1e-6, rtol=1e-5, msg=name)
        moved = max(moved, (mine - before).abs().max().item())
    assert moved > 1e-4  # the steps changed the weights


def test_resume_from_a_state_saved_without_the_fused_kernel_uses_it(tmp_path):
    config = tiny_train_config(tmp_path, max_steps=1)
    first = build_trainer(config, log=lambda _: None)
    first.save_resume()
    path = first.work_dir / RESUME_FILE
    state = torch.load(path, weights_only=True)
    for group in state["optimizer"]["param_groups"]:  # as saved before session 5: torch's per-tensor loop
        group["fused"], group["foreach"] = None, None
    torch.save(state, path)
    resumed = build_trainer(config, log=lambda _: None)
    assert resumed.optimizer.param_groups[0]["fused"] is True


@pytest.mark.slow
def test_resume_continues_exactly_like_an_uninterrupted_run(tmp_path):
    def config(name, max_steps):
        return tiny_train_config(
            tmp_path / name, max_steps=max_steps, dropout=0.1, max_tokens=256, log_every=5, bleu_sample=2, device="cpu"
        )  # dropout on: the RNG state must be resumed too; CPU: CUDA's atomic-add kernels are not bitwise repeatable

    first = build_trainer(config("split", 30), log=lambda _: None)
    run(first)
    assert first.batch_in_epoch != 0  # the interruption falls inside an epoch
    history = list(first.history)

    logs = []
    resumed = build_trainer(config("split", 60), log=logs.append)
    assert any("resuming from" in line for line in logs)
    assert (resumed.step, resumed.epoch, resumed.batch_in_epoch) == (first.step, first.epoch, first.batch_in_epoch)
    assert resumed.history == history
    assert resumed.tokenizer.model_proto == first.tokenizer.model_proto
    run(resumed)
    assert resumed.step == 60

    whole = build_trainer(config("whole", 60), log=lambda _: None)
    run(whole)
    assert whole.tokenizer.model_proto == resumed.tokenizer.model_proto
    for name, tensor in whole.model.state_dict().items():
        torch.testing.assert_close(resumed.model.state_dict()[name], tensor, atol=1e-5, rtol=0, msg=name)
    logged = [h for h in resumed.history if not h.get("valid")]
    expected = [h for h in whole.history if not h.get("valid")]
    assert [h["step"] for h in logged] == [h["step"] for h in expected] == list(range(5, 61, 5))
    assert [h["loss"] for h in logged] == pytest.approx([h["loss"] for h in expected], abs=1e-5)
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(whole.optimizer.param_groups[0]["lr"])


TINY_RECIPE = """
from explorer.model.config import ModelConfig
from explorer.training.recipe import Recipe
from explorer.training.trainer import TrainConfig

RECIPE = Recipe(
    name={name!r},
    data_credit="written for this test",
    known_limits=("tiny: it knows nothing",),
    config=TrainConfig(
        model=ModelConfig(vocab_size=200, d_model=16, n_encoder_layers=1, n_decoder_layers=1, d_ff=32, max_len=64),
        data=["mini"], max_tokens=512, warmup=10, max_steps=2, eval_every=0, bleu_sample=4, threads=1,
    ),
)
"""


def test_a_recipe_file_names_the_checkpoint_and_an_export_keeps_it(tmp_path):
    recipe = tmp_path / "tiny_recipe.py"
    recipe.write_text(TINY_RECIPE.format(name="Tiny test model"), encoding="utf-8")
    out, work, copy = tmp_path / "model", tmp_path / "work", tmp_path / "copy"
    assert main(["--recipe", str(recipe), "--out", str(out), "--work-dir", str(work)]) == 0
    meta = load_checkpoint(out).metadata
    assert meta["name"] == "Tiny test model" and meta["known_limits"] == ["tiny: it knows nothing"]
    assert meta["recipe"]["text"] == recipe.read_text(encoding="utf-8") and meta["train_pairs"] > 0
    # an export from the resume state alone (no --recipe) still carries what the recipe said
    assert main(["--work-dir", str(work), "--out", str(copy), "--export-only"]) == 0
    assert load_checkpoint(copy).metadata["name"] == "Tiny test model"


def test_a_recipe_whose_checkpoint_could_not_load_is_refused_before_training(tmp_path):
    recipe = tmp_path / "bad_recipe.py"
    recipe.write_text(TINY_RECIPE.format(name="<b>bold</b>"), encoding="utf-8")
    with pytest.raises(ValueError, match="bad_recipe.py: name='<b>bold</b>' must be plain text"):
        load_recipe(str(recipe))


def test_from_pairs_resumes_with_the_vocabulary_the_weights_were_trained_with(tmp_path):
    config = tiny_train_config(tmp_path, max_steps=1)
    first = build_trainer(config, log=lambda _: None)
    first.save_resume()
    pairs = read_data(config, log=lambda _: None)
    state = torch.load(first.work_dir / RESUME_FILE, weights_only=True)
    resumed = Trainer.from_pairs(config, pairs[0][:50], pairs[1], resume=state, log=lambda _: None)
    assert resumed.tokenizer.model_proto == first.tokenizer.model_proto and resumed.step == first.step


def test_the_loss_curve_draws_bleu_from_zero_even_with_one_point():
    from explorer.training.loss_curve import loss_curve

    history = [{"step": 1, "loss": 9.0}, {"step": 2, "loss": 8.0}, {"step": 2, "loss": 8.5, "bleu": 0.4, "valid": True}]
    fig = loss_curve(history)
    bleu_axis = fig.axes[1]
    assert bleu_axis.get_ylim() == (0.0, 10.0)  # not an axis of its own few tenths around one point


def test_more_local_ranks_than_gpus_stop_with_both_counts(monkeypatch):
    """Seen on a one-GPU machine: rank 1 of two died with 'CUDA error: invalid device ordinal'."""
    from explorer.training import trainer

    monkeypatch.setattr(trainer, "pick_device", lambda name="auto": torch.device("cuda"))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setenv("LOCAL_RANK", "0")
    assert training_device() == torch.device("cuda", 0)
    monkeypatch.setenv("LOCAL_RANK", "1")
    with pytest.raises(
        ValueError, match=r"local rank 1, but this machine has 1 GPU\(s\): run at most --nproc-per-node 1"
    ):
        training_device()


def test_the_train_tabs_curve_and_message_say_where_the_loss_must_stop():
    """Issue 36 #8: a loss flat near 1.0 for 400 steps read as a stalled training; it is label smoothing's floor."""
    from explorer.app.training_job import step_message
    from explorer.training.loss import smoothing_floor
    from explorer.training.loss_curve import loss_curve

    floor = smoothing_floor(0.1, 1000)
    assert 0.9 < floor < 1.1
    history = [{"step": s, "loss": 5.0 / s + floor} for s in range(1, 50)]
    fig = loss_curve(history, floor=floor)
    dashed = [line for line in fig.axes[0].get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_ydata()[0] == pytest.approx(floor)
    assert dashed[0].get_label() == f"lowest possible ({floor:.2f})"
    assert "has not stalled" not in step_message(10, floor + 2.0, 900.0, floor)
    near = step_message(400, floor + 0.05, 900.0, floor)
    assert f"(lowest possible {floor:.2f})" in near and "training has not stalled" in near
