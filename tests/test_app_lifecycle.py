"""Sessions and their files over time, on a server whose lifetimes are seconds instead of hours.

`python app.py --session-idle-minutes 0.1 --files-max-age-minutes 0.1` (6 s each), with its own temporary folders:
a session that keeps sending events keeps its trained model past the idle time; once idle it expires, says so
when the browser asks for its model, and every file it made (the training run, Gradio's copies) is gone. The
.npz export is made in memory and leaves no file at all.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from app_fixtures import app_env, free_port, run_app, stop_app, wait_until_ready
from gradio_client import Client

pytestmark = pytest.mark.slow  # its own server and one real (12 s) training run

IDLE_S = 6
TINY = "tiny (d_model 64, 2+2 layers, 4 heads)"
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
    proc, log = run_app(
        tiny_checkpoint, port, root, ["--session-idle-minutes", minutes, "--files-max-age-minutes", minutes], env
    )
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


def test_an_active_session_lives_an_idle_one_expires_and_its_files_go(short_lived):
    url, folders = short_lived
    at_start = files(folders)
    client = Client(url, verbose=False)
    message, _, _, archive = client.predict("mini", None, TINY, 0.2, 0, api_name="/train")
    assert message.startswith("Done (") and archive.endswith(".zip")

    # five .npz exports, as the viewer's button fetches them: made in memory, no file left behind
    for step in range(1, 6):
        with urllib.request.urlopen(f"{url}ae/api/npz?sentence={quote(TEXT)}&step={step}", timeout=60) as response:
            assert response.status == 200 and response.read(2) == b"PK"
    made = files(folders) - at_start
    assert not any(p.suffix == ".npz" for p in made) and any(p.suffix == ".zip" for p in made)
    assert any(p.name.startswith("explorer-session-") for f in made for p in f.parents)  # the session's own folder

    # events every 2 s for 3 idle times: the session, and the model it trained, stay
    started = time.monotonic()
    while time.monotonic() - started < 3 * IDLE_S:
        assert client.predict(True, api_name="/choose_model")[1] is True  # "Explore my trained model" ticked
        time.sleep(2)
    key = re.search(r"model=([A-Za-z0-9_-]+)\)", message).group(1)
    with urllib.request.urlopen(f"{url}ae/api/translate?sentence={quote(TEXT)}&model={key}", timeout=60) as response:
        assert json.load(response)["model"].startswith("your model")  # the API reaches it while the session lives

    # idle: the session expires, and every file it made is deleted
    wait_for(
        lambda: files(folders) <= at_start, 6 * IDLE_S, f"files left: {sorted(map(str, files(folders) - at_start))}"
    )
    note, ticked = client.predict(True, api_name="/choose_model")
    assert "Your session expired" in note and ticked is False
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(f"{url}ae/api/translate?sentence={quote(TEXT)}&model={key}", timeout=60)
    assert gone.value.code == 404 and "not on the server any more" in json.load(gone.value)["error"]
    assert client.predict(False, api_name="/choose_model")[0].startswith("Exploring")
