"""A trained model and its run over time, on a server whose lifetimes are seconds instead of hours.

`python app.py --trained-idle-minutes 0.1` (6 s), with its own temporary folders: a model that keeps being used
stays past its lifetime; unused, it goes, says so when a page asks for it, and every file its run made (the
checkpoint zip) is gone. The .npz export is made in memory and leaves no file at all.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from app_fixtures import ApiUser, Refused, app_env, free_port, run_app, stop_app, wait_until_ready

pytestmark = pytest.mark.slow  # its own server and one real (12 s) training run

IDLE_S = 6
TEXT = "The dog sees the cat."


@pytest.fixture(scope="module")
def short_lived(tiny_checkpoint, tmp_path_factory):
    """(URL, folders whose files the app makes): Gradio's cache and the system temporary folder, both private."""
    root = tmp_path_factory.mktemp("lifecycle")
    folders = {"gradio": root / "gradio", "tmp": root / "tmp"}
    for folder in folders.values():
        folder.mkdir()
    env = dict(app_env(), GRADIO_TEMP_DIR=str(folders["gradio"]), TMPDIR=str(folders["tmp"]))
    port = free_port()
    minutes = str(IDLE_S / 60)
    proc, log = run_app(tiny_checkpoint, port, root, ["--trained-idle-minutes", minutes], env)
    url = f"http://127.0.0.1:{port}/"
    wait_until_ready(proc, url, log)
    try:
        yield url, folders
    finally:
        stop_app(proc, log)


def files(folders: dict) -> set[Path]:
    """Every file below the folders; os.walk skips a folder the app deletes while it is read (rglob raised)."""
    return {Path(top, name) for folder in folders.values() for top, _, names in os.walk(folder) for name in names}


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout:.0f} s: {what}"
        time.sleep(0.5)


def test_a_used_model_lives_an_unused_one_goes_and_its_files_with_it(short_lived):
    url, folders = short_lived
    at_start = files(folders)
    user = ApiUser(url)
    run = user.post("/train", {"corpus": "mini", "preset": "tiny", "minutes": 0.2})["run"]
    last = list(user.events(f"/train/{run}/events"))[-1]
    assert last["message"].startswith("Done (") and last["checkpoint"]
    key = last["model"]

    # five .npz exports, as the viewer's button fetches them: made in memory, no file left behind
    for step in range(1, 6):
        with urllib.request.urlopen(f"{url}ae/api/npz?sentence={quote(TEXT)}&step={step}", timeout=60) as response:
            assert response.status == 200 and response.read(2) == b"PK"
    made = files(folders) - at_start
    assert not any(p.suffix == ".npz" for p in made) and any(p.suffix == ".zip" for p in made)
    assert any(p.name.startswith("ae-train-") for f in made for p in f.parents)  # the run's own folder

    # the model used every 2 s for 3 lifetimes, the run looked at: both stay
    started = time.monotonic()
    while time.monotonic() - started < 3 * IDLE_S:
        assert user.get("/translate", sentence=TEXT, model=key)["model"].startswith("your model")
        assert user.http.get(f"/train/{run}/checkpoint.zip").status_code == 200
        time.sleep(2)

    # unused: the model and the run go, and every file the run made with them
    time.sleep(IDLE_S + 1)
    with pytest.raises(Refused) as gone:
        user.get("/translate", sentence=TEXT, model=key)
    assert gone.value.status == 404 and "not on the server any more" in str(gone.value)
    with pytest.raises(Refused) as gone:
        user.post(f"/train/{run}/stop")
    assert gone.value.status == 404 and "No training run" in str(gone.value)
    wait_for(
        lambda: files(folders) <= at_start, 2 * IDLE_S, f"files left: {sorted(map(str, files(folders) - at_start))}"
    )
