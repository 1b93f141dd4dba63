"""The house rules a newcomer relies on: every module in the README's table, the layers' imports, old entry points."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "explorer"
# what each folder may import from the package (its __init__ docstring says the same); errors.py imports nothing and
# every layer may import it (the one refusal a person reads)
EVERYWHERE = {"errors"}
ALLOWED = {
    "model": {"model"} | EVERYWHERE,
    "interpret": {"model", "interpret"} | EVERYWHERE,
    "training": {"model", "interpret", "training"} | EVERYWHERE,
    "app": {"model", "interpret", "training", "app"} | EVERYWHERE,
    "ui": {"model", "interpret", "training", "app", "ui"} | EVERYWHERE,
    "server": {"model", "interpret", "training", "app", "ui", "server"} | EVERYWHERE,
}


def modules() -> list[Path]:
    """Every Python, JS and CSS file of the package (not esbuild's own, installed by npm); a folder's __init__.py
    counts where it holds code (ui/)."""
    files = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js", ".css") and "node_modules" not in p.parts]
    return sorted(p for p in files if p.name != "__init__.py" or p.parent.name == "ui")


def test_the_readme_module_table_names_every_module():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [str(p.relative_to(ROOT)) for p in modules() if f"`{p.relative_to(ROOT)}`" not in readme]
    assert not missing, f"add these to the module table in README.md: {missing}"


def imported_folders(path: Path) -> set[str]:
    """The package folders a module imports from (relative or absolute imports)."""
    folder = path.relative_to(PACKAGE).parts[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = list(path.relative_to(PACKAGE).parts[:-1])[: len(path.relative_to(PACKAGE).parts) - node.level]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "explorer":
                target = node.module.split(".")[1:]
            else:
                continue
            names = target[:1] or [alias.name for alias in node.names]
            found.update(names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("explorer."))
        if isinstance(node, (ast.Import, ast.ImportFrom)) and folder != "ui":
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert not any(n.split(".")[0] == "gradio" for n in names), f"{path} imports gradio"
    return found


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(folder):
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        wrong = imported_folders(path) - ALLOWED[folder]
        assert not wrong, (
            f"{path.relative_to(ROOT)} imports explorer.{sorted(wrong)}, outside what {folder}/ may import"
        )


def test_what_every_layer_may_import_imports_no_layer():
    for name in EVERYWHERE:
        path = PACKAGE / f"{name}.py"
        assert not imported_folders(path), f"{path.relative_to(ROOT)} must import nothing from the package"


def test_every_folder_says_its_job_and_what_it_may_import():
    for folder in ALLOWED:
        doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), (
            f"explorer/{folder}/__init__.py: say the folder's job and what it may import"
        )


@pytest.mark.slow
@pytest.mark.parametrize(
    "old, new", [("explorer.train", "explorer.training.train"), ("explorer.evaluate", "explorer.training.evaluate")]
)
def test_the_old_entry_points_run_the_new_ones(old, new):
    result = subprocess.run(
        [sys.executable, "-m", old, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and f"python -m {new}" in result.stdout
