"""Run every test of the project, with one command, after a fresh clone:

    python tests/run.py [--install] [PYTEST ARGS ...]
    python tests/run.py --fast      # a newcomer's inner loop: pytest -m "not slow and not browser", under a minute

It first looks for what the tests need, and installs what it may:
- the browser code's npm packages (esbuild, pinned by `explorer/ui/static/package-lock.json`): installed with
  `npm ci` when missing (Node.js 20 or newer must be there: it runs the JavaScript unit tests too);
- the Python packages of `requirements-dev.txt` (torch pinned first, so nothing pulls a CUDA build) and Debian's
  `chromium` for the headless-browser tests: installed with `--install` (chromium with apt-get, as root); without
  it, it says exactly what to run and stops.

Then it runs, in order, stopping at the first failure: ruff (lint and format check: seconds), the JavaScript unit
tests (`node --test tests/js/`: the browser's pure modules, no browser), and pytest (`-q`, or the arguments given).
`.ci/run` runs it with `--install` on a fresh machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "explorer" / "ui" / "static"
CHROMIUM = Path("/usr/bin/chromium")  # tests/browser_fixtures.py
TORCH = "torch==2.13.0"
NODE_MAJOR = 20  # node --test, with its mock timers (tests/js/room.test.mjs)


def say(text: str) -> None:
    print(f"[tests/run.py] {text}", flush=True)


def run(*command: str) -> None:
    say("$ " + " ".join(command))
    done = subprocess.run(command, cwd=ROOT)
    if done.returncode != 0:
        say(f"failed ({done.returncode}): {' '.join(command)}")
        raise SystemExit(done.returncode)


def requirements(path: Path) -> list[str]:
    """The requirement lines of a pip requirements file, its `-r` includes followed."""
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            out += requirements(path.parent / line[3:].strip())
        elif line:
            out.append(line)
    return out


def missing_python() -> list[str]:
    """The requirements of `requirements-dev.txt` that are not installed, or installed at a version they exclude."""
    try:
        from packaging.requirements import Requirement
    except ImportError:  # pip's own is not importable: check the names alone
        Requirement = None
    missing = []
    for line in requirements(ROOT / "requirements-dev.txt"):
        name = re.split(r"[\[<>=!~ ;]", line, maxsplit=1)[0]
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(line)
            continue
        if Requirement is not None:
            wanted = Requirement(line)
            if not wanted.specifier.contains(version.split("+")[0], prereleases=True):
                missing.append(f"{line} (installed: {version})")
    return missing


def node_version() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    return int(out.lstrip("v").split(".")[0]) if re.fullmatch(r"v\d+\..*", out) else None


def prepare(install: bool, browser: bool = True) -> None:
    """What the tests need: present, installed, or named (then stop); Chromium only for the `browser` tests."""
    python = missing_python()
    if python and install:
        run(sys.executable, "-m", "pip", "install", "-q", TORCH)
        run(sys.executable, "-m", "pip", "install", "-q", "-r", "requirements-dev.txt")
        python = missing_python()
    if not CHROMIUM.exists() and install and shutil.which("apt-get") and os.geteuid() == 0:
        env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
        apt = ["apt-get", "install", "-y", "-qq", "chromium", "fonts-dejavu-core"]
        for command in (["apt-get", "update", "-qq"], apt):
            if subprocess.run(command, env=env, stdout=subprocess.DEVNULL).returncode != 0:
                break
    node = node_version()
    if node is not None and node >= NODE_MAJOR and not (STATIC / "node_modules" / ".bin" / "esbuild").exists():
        run("npm", "ci", "--prefix", str(STATIC.relative_to(ROOT)), "--no-audit", "--no-fund", "--loglevel=error")
    problems = []
    if python:
        problems.append(
            f"Python packages missing: {', '.join(python)}. Install them: `pip install {TORCH} && pip install -r "
            "requirements-dev.txt`, or run `python tests/run.py --install`."
        )
    if browser and not CHROMIUM.exists():
        problems.append(
            f"No Chromium at {CHROMIUM} (the headless-browser tests): `apt-get install chromium fonts-dejavu-core` as "
            "root, or `python tests/run.py --install`."
        )
    if node is None or node < NODE_MAJOR:
        problems.append(
            f"Node.js {NODE_MAJOR} or newer is needed (found: {node or 'none'}) for the JavaScript unit tests and the "
            "viewer's bundle: `apt-get install nodejs npm`."
        )
    if problems:
        for problem in problems:
            say(problem)
        raise SystemExit(2)


def main(argv: list[str]) -> int:
    install, fast = "--install" in argv, "--fast" in argv
    pytest_args = [a for a in argv if a not in ("--install", "--fast")] or ["-q"]
    if fast:  # the tests of a second or less (`slow` marks the others), no browser: under a minute on 2 cores
        pytest_args += ["-m", "not slow and not browser"]
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    prepare(install, browser=not fast)
    run(sys.executable, "-m", "ruff", "check", ".")
    run(sys.executable, "-m", "ruff", "format", "--check", ".")
    run("node", "--test", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs")))
    run(sys.executable, "-m", "pytest", *pytest_args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
