"""The viewer's browser code: ES modules around one store, bundled by esbuild into the committed
`explorer/ui/static/dist/viewer.js` (`npm run build` in that folder).

The committed bundle must be what esbuild builds from the modules as they are now (`.ci/run` installs esbuild with
`npm ci`); the modules for the rules the viewer keeps: every file reachable from main.js, a header that says its
job, views that never reach the viewer or the store.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.ui.viewer import BUILT, STATIC

pytestmark = pytest.mark.slow  # the bundle rebuilt with esbuild, and gradio imported with the viewer's settings

MODULES = sorted(p for p in STATIC.glob("*.js"))
ESBUILD = STATIC / "node_modules" / ".bin" / "esbuild"
IMPORT = re.compile(r'^import\s+(?:\{[^}]*\}|\*\s+as\s+\w+)\s+from\s+"\./([\w-]+)\.js";', re.M)
EXPORT = re.compile(r"^export\s+(?:async\s+function\*?|function\*?|class|const|let)\s+(\w+)", re.M)


def imports_of(path) -> set[str]:
    return set(IMPORT.findall(path.read_text(encoding="utf-8")))


def exports_of(path) -> set[str]:
    return set(EXPORT.findall(path.read_text(encoding="utf-8")))


def esbuild(tmp_path):
    """esbuild run as package.json's build script says, into tmp_path: the bundle's text and the modules it read."""
    if not shutil.which("node"):
        pytest.skip("node is not installed here: the committed bundle cannot be rebuilt to compare")
    assert ESBUILD.exists(), "esbuild is not installed: `python tests/run.py` installs it (npm ci)"
    script = shlex.split(json.loads((STATIC / "package.json").read_text())["scripts"]["build"])
    assert script[0] == "esbuild" and f"--outfile={BUILT.relative_to(STATIC)}" in script, script
    args = [a for a in script[1:] if not a.startswith("--outfile=")]
    out, meta = tmp_path / "viewer.js", tmp_path / "meta.json"
    run = subprocess.run(
        [str(ESBUILD), *args, f"--outfile={out}", f"--metafile={meta}", "--log-level=warning"],
        cwd=STATIC, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0 and not run.stderr.strip(), f"esbuild {shlex.join(args)}: {run.stderr}"
    return out.read_text(encoding="utf-8"), set(json.loads(meta.read_text())["inputs"])


def test_the_committed_bundle_is_what_esbuild_builds_from_every_module(tmp_path):
    built, read = esbuild(tmp_path)
    assert built == BUILT.read_text(encoding="utf-8"), (
        "explorer/ui/static/dist/viewer.js is not what the modules build: run `npm run build` in explorer/ui/static"
    )
    assert read == {p.name for p in MODULES}, "a module main.js does not reach is never loaded"


def test_every_module_says_its_job_and_the_bundle_is_valid_javascript():
    for path in MODULES:
        assert path.read_text().startswith(f"// {path.name}: "), f"{path.name}: a header comment that says its job"
    if shutil.which("node"):
        run = subprocess.run(["node", "--check", str(BUILT)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr


def registry(module: str, expression: str) -> list:
    """What a registry module holds, read with Node: `expression` of its exports (e.g. `VIEWS.map((v) => v.id)`)."""
    if not shutil.which("node"):
        pytest.skip("node is not installed here: `python tests/run.py` says what to install")
    name = re.match(r"[A-Z]+", expression).group(0)
    script = (
        "await import('../../../tests/js/setup.mjs'); await import('../../../tests/js/fake_dom.mjs');"
        f"const {{ {name} }} = await import('./{module}'); console.log(JSON.stringify({expression}))"
    )
    done = subprocess.run(["node", "--input-type=module", "-e", script], cwd=STATIC, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def registered(registry_module: str, export: str) -> list[str]:
    """The modules a registry imports `export` from, in its order."""
    source = (STATIC / registry_module).read_text(encoding="utf-8")
    return re.findall(rf'^import \{{ {export} as \w+ \}} from "\./([\w-]+)\.js";$', source, re.M)


def test_views_draw_what_they_are_given_and_never_reach_the_viewer_or_the_store():
    exporting = {p.stem for p in MODULES if exports_of(p) & {"VIEW", "PANEL", "Candidates", "Grid"}}
    assert set(registered("views.js", "VIEW")) | set(registered("panels.js", "PANEL")) <= exporting
    for path in (STATIC / f"{stem}.js" for stem in exporting):
        assert not imports_of(path) & {"viewer", "store", "keys", "quiz", "main", "tabs"}, path.name
    # two globals: the server's settings, read by settings.js alone (the exported page writes its own), and the page's
    # entry points, which main.js alone puts out
    assert [p.name for p in MODULES if "AttentionExplorerSettings" in p.read_text()] == ["export.js", "settings.js"]
    assert [p.name for p in MODULES if "window.AttentionExplorer " in p.read_text()] == ["main.js"]


def test_no_module_reads_a_global_viewer_and_state_lives_in_instances():
    """Issue 66: the tabs kept module-level state and looked the viewer up on `window.aeViewer`; now each is an
    instance its mount makes (tabs.js), given the viewer, and only the API client keeps module-level variables (the
    tab's issued id)."""
    for path in MODULES:
        source = path.read_text(encoding="utf-8")
        assert "aeViewer" not in source, path.name
        lets = re.findall(r"^(?:let|var)\s+(\w+)", source, re.M)
        assert not lets or path.name == "api.js", f"{path.name} keeps state in module-level variables: {lets}"


def test_every_tab_is_registered_once_and_the_page_mounts_only_registered_tabs():
    tabs = registry("tabs.js", "TABS.map((t) => t.id)")
    modules = registered("tabs.js", "TAB")
    assert sorted(modules) == sorted(p.stem for p in MODULES if "export const TAB = {" in p.read_text(encoding="utf-8"))
    assert len(tabs) == len(set(tabs)) == len(modules)
    from explorer.ui import ablation_tab, positional_tab, train_tab

    python = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (ablation_tab, positional_tab, train_tab))
    named = re.findall(r'tab_(?:on_load|js)\("(\w+)"', python)
    assert set(named) == set(tabs), (named, tabs)


def test_no_module_keeps_state_on_an_element():
    """Issue 52: views kept their state in eleven kinds of DOM property (the grid's, the head view's, the mask's, ...);
    a view is now an instance that owns it (views.js `create`), and the store holds what is shown."""
    for path in MODULES:
        found = re.findall(r"\b(?!this\b)[A-Za-z]\w*\._[A-Za-z]\w*", path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} keeps state on an object it does not own: {sorted(set(found))}"


def test_the_viewer_names_no_view_each_is_registered_once_in_views_js():
    """Issue 37 #5: each view's name was switched on in seven places in viewer.js; now the viewer builds its tabs,
    charts, selector rows, caption, drawing and PNG from the registry, so adding a view is its file and one line."""
    static = STATIC
    modules = registered("views.js", "VIEW")
    views = sorted(p.stem for p in static.glob("*.js") if "export const VIEW = {" in p.read_text(encoding="utf-8"))
    assert sorted(modules) == views  # every view module registered, and once
    members = registry(
        "views.js",
        "VIEWS.map((v) => [v.id, typeof v.label, typeof v.className, typeof v.controls, typeof v.caption, "
        "typeof v.create])",
    )
    ids = [view_id for view_id, *_ in members]
    assert len(ids) == len(set(ids)) == len(modules)
    for view_id, *kinds in members:
        assert kinds == ["string", "string", "object", "function", "function"], view_id
    viewer = (static / "viewer.js").read_text(encoding="utf-8")
    viewer = re.sub(r'what: "\w+"', "", viewer)  # the questions asked of the server ("compare": B's trace)
    for view_id in ids:  # no string names a view: not in a switch, a default, a list or a caption table
        assert f'"{view_id}"' not in viewer and f"'{view_id}'" not in viewer, view_id


def test_the_javascript_tests_fixtures_are_what_todays_server_sends(mini_handle):
    """tests/js/fixtures (made by tests/js/make_fixture.py): the page's settings, with the trace request's fields, and
    a wire trace with every field the server sends."""
    from explorer.app.callers import SERVER
    from explorer.app.models import ModelRegistry
    from explorer.app.schemas import trace_request
    from explorer.interpret.request import fields
    from explorer.ui.viewer import settings

    fixtures = STATIC.parents[2] / "tests" / "js" / "fixtures"
    page = json.loads((fixtures / "settings.json").read_text())
    assert page.keys() == settings().keys() and page["REQUEST"] == json.loads(json.dumps(fields()))
    fixture = json.loads((fixtures / "trace.json").read_text())["wire"]
    wire = asyncio.run(ModelRegistry(mini_handle).atraced(mini_handle, trace_request("I see the sea."), SERVER)).wire

    def shape(value):
        if isinstance(value, dict):
            return {key: shape(item) for key, item in value.items() if key != "gold"}
        return type(value).__name__ if not isinstance(value, (int, float)) or isinstance(value, bool) else "number"

    assert shape(fixture).keys() == shape(wire).keys()
    for key in ("model", "request", "attention", "scores", "rollout"):
        assert shape(fixture[key]) == shape(wire[key]), key


def test_every_panel_the_browser_registers_is_a_question_the_server_registers():
    """panels.js's registry (read with Node) against explorer/app/questions': a panel asks a question that exists, and
    neither the viewer nor its frame names a panel."""
    from explorer.app.questions import QUESTIONS

    panels = registry("panels.js", "PANELS.map((p) => p.what)")
    modules = registered("panels.js", "PANEL")
    panel_modules = [p.stem for p in MODULES if "export const PANEL = {" in p.read_text(encoding="utf-8")]
    assert sorted(modules) == sorted(panel_modules)
    assert set(panels) <= set(QUESTIONS) and len(panels) == len(set(panels)) == len(modules), panels
    for module in ("viewer.js", "frame.js"):
        source = (STATIC / module).read_text(encoding="utf-8")
        assert not [what for what in panels if f'"{what}"' in source], module
