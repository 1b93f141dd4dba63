"""What a maintainer meets in the serving code, per git revision: its lines, the scheduler's, and structural counts
that moving code between files cannot change (issue 67).

    python -m bench.platform_lines [REF ...]   (default: 6e5cbf4 HEAD)

Serving Python is every file under `explorer/app/` and `explorer/server/`, and `explorer/ui/*.py` (the Gradio layout;
not the browser code), whatever its name at that revision. Lines are code lines: not blank, not a comment, not a
docstring (docstrings are counted apart). The scheduler is the model line's modules (`scheduler.py`, or earlier
`trace_cache.py`, with `turns.py`). The structural counts, read from the code's syntax trees:

- **layers before FastAPI**: ASGI callables of our own a request passes through before FastAPI routes it (classes
  with `__call__(self, scope, receive, send)` that are not responses);
- **refusal writers**: places that build a refusal's body (a dict literal with the key "error");
- **Gradio backend events**: event listeners (`.click`, `.change`, ...) given a Python function to run on the server;
- **files a scripted `top_p` touches**: the package's files (Python and browser modules, the built bundle not
  counted) that name `top_k`, the decoding option a new `top_p` would be added beside.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEDULER = ("explorer/app/scheduler.py", "explorer/app/trace_cache.py", "explorer/app/turns.py")
EVENTS = {"click", "change", "submit", "input", "select", "load", "then", "success", "release", "upload", "tick"}
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def serving_files(ref: str) -> list[str]:
    files = git("ls-tree", "-r", "--name-only", ref, "--", "explorer").split()
    return [
        f
        for f in files
        if f.endswith(".py")
        and (f.startswith(("explorer/app/", "explorer/server/")) or f.count("/") == 2 and f.startswith("explorer/ui/"))
    ]


def lines(text: str) -> tuple[int, int]:
    """(code lines, docstring lines) of a module's text."""
    code = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() and not line.strip().startswith("#")]
    documented = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, DOCUMENTED) and ast.get_docstring(node):
            documented.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    docs = sum(1 for i in code if i in documented)
    return len(code) - docs, docs


def asgi_layers(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and not any("Response" in ast.unparse(b) for b in node.bases):
            for item in node.body:
                if isinstance(item, ast.AsyncFunctionDef) and item.name == "__call__":
                    if [a.arg for a in item.args.args] == ["self", "scope", "receive", "send"]:
                        count += 1
    return count


def refusal_writers(tree: ast.AST) -> int:
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "error" for k in node.keys)
    )


def backend_events(tree: ast.AST) -> int:
    """Listener calls given a function to run on the server: a positional first argument or `fn=` that is not None."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EVENTS:
            fn = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "fn"), None)
            if fn is not None and not (isinstance(fn, ast.Constant) and fn.value is None):
                count += 1
    return count


def measure(ref: str) -> dict:
    total = docs = scheduler = layers = writers = events = 0
    for path in serving_files(ref):
        text = git("show", f"{ref}:{path}")
        code, doc = lines(text)
        total, docs = total + code, docs + doc
        scheduler += code if path in SCHEDULER else 0
        tree = ast.parse(text)
        layers += asgi_layers(tree)
        writers += refusal_writers(tree)
        events += backend_events(tree) if path.startswith("explorer/ui/") else 0
    named = [f for f in git("grep", "-l", "top_k", ref, "--", "explorer").split() if "/dist/" not in f]
    return {
        "serving code lines": total,
        "their docstring lines": docs,
        "the scheduler's code lines (goal ≤ 300)": scheduler,
        "layers before FastAPI": layers,
        "refusal writers": writers,
        "Gradio backend events": events,
        "files a scripted top_p touches": len(named),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("refs", nargs="*", default=["6e5cbf4", "HEAD"], help="git revisions, side by side")
    refs = parser.parse_args().refs
    measured = {ref: measure(ref) for ref in refs}
    print("| | " + " | ".join(refs) + " |\n|---|" + "---|" * len(refs))
    for row in measured[refs[0]]:
        print(f"| {row} | " + " | ".join(f"{measured[ref][row]:,}" for ref in refs) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
