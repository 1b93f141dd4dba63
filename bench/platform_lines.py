"""Lines of hand-written server and platform code, per git revision: what issue 37 asked to shrink.

    python -m bench.platform_lines [REF ...]   (default: 6fa089e HEAD)

The files are those that serve the model rather than compute with it: the HTTP API (the training routes too) and
its errors and limiters, who a caller is, the encoded responses, uploads, the classroom's routes, the sessions and
the Gradio app's assembly, the doors or middleware in front with the static files and body limit, the browser
bundle's build, the viewer's assets, and the checkpoint's safetensors header reading and metadata checks. Files of
every design are listed (the refusals that became errors, the front door that became middleware); a file a
revision does not have counts 0. Lines are
Python's non-blank lines that are not comments (docstrings count: they are code a reader reads); a last row says how
many of them are docstrings.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [
    "explorer/app/http_api.py",
    "explorer/app/refusals.py",
    "explorer/app/errors.py",
    "explorer/app/fairness.py",
    "explorer/app/rate_limits.py",
    "explorer/app/callers.py",
    "explorer/app/encoded.py",
    "explorer/app/uploads.py",
    "explorer/app/room_api.py",
    "explorer/app/session.py",
    "explorer/ui/__init__.py",
    "explorer/ui/app_blocks.py",
    "explorer/ui/gradio_door.py",
    "explorer/ui/inner_get.py",
    "explorer/server/server.py",
    "explorer/ui/front_door.py",
    "explorer/server/middleware.py",
    "explorer/ui/static_files.py",
    "explorer/server/body_limit.py",
    "explorer/ui/bundle.py",
    "explorer/ui/viewer.py",
    "explorer/model/safetensors_header.py",
    "explorer/model/metadata.py",
]
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)  # what has a docstring


def counted(ref: str, path: str) -> tuple[int, int]:
    """(lines, of which docstrings) of `path` at `ref`."""
    shown = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if shown.returncode != 0:
        return 0, 0
    code = [
        i for i, line in enumerate(shown.stdout.splitlines(), 1) if line.strip() and not line.strip().startswith("#")
    ]
    documented = set()
    for node in ast.walk(ast.parse(shown.stdout)):
        if isinstance(node, DOCUMENTED) and ast.get_docstring(node):
            documented.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return len(code), sum(1 for i in code if i in documented)


def main() -> int:
    refs = sys.argv[1:] or ["6fa089e", "HEAD"]
    counts = {ref: [counted(ref, path) for path in FILES] for ref in refs}
    print("| file | " + " | ".join(refs) + " |\n|---|" + "---|" * len(refs))
    for i, path in enumerate(FILES):
        print(f"| `{path}` | " + " | ".join(str(counts[ref][i][0]) for ref in refs) + " |")
    print("| **all** | " + " | ".join(f"**{sum(n for n, _ in counts[ref]):,}**" for ref in refs) + " |")
    print("| of which docstrings | " + " | ".join(f"{sum(d for _, d in counts[ref]):,}" for ref in refs) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
