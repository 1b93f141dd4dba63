"""The README's API example, run as written against the running app (only its address changed)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the real server of app_fixtures.py

README = Path(__file__).resolve().parents[1] / "README.md"


def example() -> str:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- api-example:[^>]*-->\n```python\n(.*?)```", text, re.DOTALL)
    assert block, "the README's API section lost its marked example"
    return block.group(1)


def test_the_readmes_api_example_works_as_written(app_url):
    code = example()
    assert "http://127.0.0.1:7860/" in code
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.replace("http://127.0.0.1:7860/", app_url), "README.md", "exec"), {})  # noqa: S102
    lines = printed.getvalue().splitlines()
    assert len(lines) == 5, lines
    assert lines[0].startswith("['") and "'prob':" in lines[0]  # tokens, targets, candidates
    assert lines[1].startswith("(2, 4, ")  # the tiny model's cross-attention: 2 layers, 4 heads
    assert "'translation':" in lines[2] and "'model': 'tiny'" in lines[2]
    assert "Beam size 99 is out of range: choose 1 to 8" in lines[4]
