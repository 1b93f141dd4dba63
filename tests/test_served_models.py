"""Two shipped models side by side (issue 49): `GET /ae/api/models` lists them, `model=` picks one, "shipped" names
the default, compare reaches the other; and `--device` (where the served models run) on this CPU."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
import torch
from starlette.applications import Starlette
from starlette.testclient import TestClient

import app as app_module
from explorer.app import http_api
from explorer.app.models import ModelRegistry, load_served
from explorer.interpret.handle import ModelHandle, device_label, serving_device
from explorer.model.transformer import Transformer

TEXT = "The dog sees the cat."


@pytest.fixture
def other(mini_handle):
    """A second model on the same vocabulary with other weights (as the Tatoeba model beside the lecture model)."""
    torch.manual_seed(1)
    return ModelHandle("second", Transformer(mini_handle.config).eval(), mini_handle.tokenizer, {}, ("cross", 0, "1"))


@pytest.fixture
def models(mini_handle, other):
    return ModelRegistry({"lecture-en-de": mini_handle, "tatoeba-en-de": other})


@pytest.fixture
def client(models):
    return TestClient(Starlette(routes=http_api.routes(models)), headers={"x-ae-client": "test"})


def trace(client, **params):
    answer = client.get("/ae/api/trace", params={"sentence": TEXT} | params)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.slow
def test_the_models_route_lists_every_shipped_model_the_default_first(client):
    listed = client.get("/ae/api/models").json()
    assert [m["key"] for m in listed] == ["lecture-en-de", "tatoeba-en-de"]
    assert [m["default"] for m in listed] == [True, False]
    assert [m["name"] for m in listed] == ["tiny", "second"]
    assert listed[0]["best_head"] == [1, 2] and listed[1]["best_head"] == [0, 1]  # where each page opens
    assert listed[0]["layers"] == [2, 2] and listed[0]["heads"] == 4 and listed[0]["parameters"] > 0


def test_model_picks_the_shipped_model_and_shipped_names_the_default(client):
    default, named, second = trace(client), trace(client, model="lecture-en-de"), trace(client, model="tatoeba-en-de")
    alias = trace(client, model="shipped")
    assert default["model_key"] == named["model_key"] == alias["model_key"] == "lecture-en-de"
    assert default["model"]["name"] == "tiny" and second["model"]["name"] == "second"
    assert second["model_key"] == "tatoeba-en-de"
    assert default["attention"] == alias["attention"] and second["attention"] != default["attention"]
    translated = client.get("/ae/api/translate", params={"sentence": TEXT, "model": "tatoeba-en-de"}).json()
    assert translated["model"] == "second" and translated["translation"] == second["outputs"][-1]


def test_an_unknown_model_is_refused_naming_it_and_the_served_ones(client):
    answer = client.get("/ae/api/trace", params={"sentence": TEXT, "model": "wmt-big"})
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert "'wmt-big'" in error and "'lecture-en-de', 'tatoeba-en-de'" in error


def test_compare_reaches_the_other_shipped_model_by_other_or_by_key(client):
    def compare(other, **trace_fields):
        body = {"trace": {"sentence": TEXT} | trace_fields, "question": {"what": "compare", "model": other}}
        answer = client.post("/ae/api/ask/compare", json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()["wire"]

    assert compare("other")["model_key"] == "tatoeba-en-de"  # no trained model: the next shipped one
    assert compare("other", model="tatoeba-en-de")["model_key"] == "lecture-en-de"
    assert compare("tatoeba-en-de")["model"]["name"] == "second"
    assert compare("same", model="tatoeba-en-de")["model_key"] == "tatoeba-en-de"
    own = client.post(
        "/ae/api/ask/compare", json={"trace": {"sentence": TEXT}, "question": {"what": "compare", "model": "own"}}
    )
    assert own.status_code == 400 and "no model trained on this page" in own.json()["error"]


@pytest.mark.slow
def test_the_served_models_are_keyed_by_their_folder(tmp_path):
    from app_fixtures import build_tiny_checkpoint

    first, second = build_tiny_checkpoint(tmp_path / "lecture-en-de"), build_tiny_checkpoint(tmp_path / "my model!")
    served = load_served([first, second, first])
    assert list(served) == ["lecture-en-de", "my-model-", "lecture-en-de-2"]
    assert all(next(h.model.parameters()).device.type == "cpu" for h in served.values())


def test_auto_serves_on_cuda_only_where_there_is_one_and_a_missing_device_is_named():
    assert serving_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert serving_device("cpu") == torch.device("cpu")
    assert device_label(torch.device("cpu")).startswith("cpu (")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        serving_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="--device cuda: this machine has no CUDA GPU"):
            serving_device("cuda")


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU machine --device cuda is served")
def test_app_refuses_a_device_it_does_not_have_before_loading_anything(capsys):
    assert app_module.main(["--checkpoint", "nowhere", "--device", "cuda"]) == 2
    assert "this machine has no CUDA GPU" in capsys.readouterr().err


def test_app_takes_several_checkpoints_and_a_device():
    args = app_module.parse_args(["--checkpoint", "a", "b", "--device", "cpu"])
    assert args.checkpoint == ["a", "b"] and args.device == "cpu"
    defaults = app_module.parse_args([])
    assert [p.split("/")[-1] for p in defaults.checkpoint] == ["lecture-en-de", "tatoeba-en-de"]
    assert defaults.device == "auto"


@contextmanager
def two_models(tiny_checkpoint, tmp_path):
    """The URL of `python app.py` serving the tiny checkpoint and a copy of it named "Second model", stopped by its
    PID at the end."""
    import shutil

    from app_fixtures import free_port, run_app, stop_app, wait_until_ready

    from explorer.model.checkpoint import update_metadata

    second = tmp_path / "second-model"
    shutil.copytree(tiny_checkpoint, second)
    update_metadata(second, {"name": "Second model"})
    port = free_port()
    proc, log = run_app(tiny_checkpoint, port, tmp_path, args=["--checkpoint", str(tiny_checkpoint), str(second)])
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_ready(proc, url, log)
        yield url
    finally:
        stop_app(proc, log)


@pytest.mark.browser
def test_the_page_switches_to_the_other_shipped_model_in_one_click_and_keeps_the_step(
    browser, tiny_checkpoint, tmp_path
):
    from browser_fixtures import on_screen, open_page, settle, shown
    from playwright.sync_api import expect

    with two_models(tiny_checkpoint, tmp_path) as url:
        page = open_page(browser, url)
        choices = page.locator("#opt-model label")
        expect(choices).to_have_count(2)
        expect(choices.first).to_contain_text("tiny")
        page.keyboard.press("ArrowRight")
        step = shown(page)["step"]
        choices.filter(has_text="Second model").click()
        expect(page.locator("#title .ae-model-name")).to_have_text("Second model")
        settle(page)
        assert on_screen(page, url)["model_key"] == "second-model"
        assert shown(page)["step"] == step  # the same place, with the other model
        choices.filter(has_text="tiny").click()
        expect(page.locator("#title .ae-model-name")).to_have_text("tiny")
        settle(page)
        assert on_screen(page, url)["model_key"] == "tiny"
        page.context.close()


@pytest.mark.browser
def test_a_student_following_a_lecturer_who_switched_models_sees_the_switch_agree(browser, tiny_checkpoint, tmp_path):
    """Issue 66 #5: after the lecturer switched models, the students' switch still named the first model."""
    import re

    from browser_fixtures import open_page, settle
    from playwright.sync_api import expect

    with two_models(tiny_checkpoint, tmp_path) as url:
        lecturer = open_page(browser, url)
        lecturer.locator(".ae-tools button", has_text="Present to class").click()
        expect(lecturer.locator(".ae-room-code")).to_have_text(re.compile(r"Room [A-Z]{4}"))
        code = lecturer.locator(".ae-room-code").text_content().split()[-1]
        student = open_page(browser, f"{url}?room={code}")
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        lecturer.locator("#opt-model label").filter(has_text="Second model").click()
        expect(student.locator("#title .ae-model-name")).to_have_text("Second model")
        settle(student)
        checked = student.locator("#opt-model input[type=radio]:checked")
        expect(checked).to_have_count(1)
        assert checked.evaluate("(r) => r.closest('label').textContent").strip().startswith("Second model")
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")  # not told to follow again
        lecturer.context.close()
        student.context.close()
