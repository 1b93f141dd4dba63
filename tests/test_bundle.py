"""The viewer's browser code: ES modules around one store, joined into one script by explorer/ui/bundle.py.

The bundler is checked on small modules it must join or refuse; the real modules for the rules the viewer keeps:
every file reachable from main.js, a header that says its job, views that never reach the viewer or the store.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from explorer.ui.bundle import BundleError, bundle, ordered, read_module
from explorer.ui.viewer import STATIC

MODULES = sorted(p for p in STATIC.glob("*.js"))


def write(folder, **files):
    for name, text in files.items():
        (folder / f"{name}.js").write_text(text)
    return folder


def test_modules_run_after_what_they_import_with_their_own_scope(tmp_path):
    write(
        tmp_path,
        main='import { twice } from "./math.js";\nimport * as words from "./words.js";\n'
        "window.out = [twice(2), words.hi];\n",
        math="const secret = 2;\nexport function twice(x) { return secret * x; }\n",
        words='import { twice as double } from "./math.js";\nconst secret = "x";\n'
        "export const hi = secret + double(1);\n",
    )
    assert [m.name for m in ordered(tmp_path, "main")] == ["math", "words", "main"]  # depth-first, each once
    text = bundle(tmp_path)
    assert "export" not in text and "import " not in text
    if shutil.which("node"):  # the joined script runs: two modules' `secret` do not collide
        script = "globalThis.window = {};\n" + text + "\nconsole.log(JSON.stringify(window.out));"
        run = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30)
        assert run.stdout.strip() == '[4,"x2"]', run.stderr


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({"main": 'import { nope } from "./a.js";\n', "a": "export const yes = 1;\n"}, "imports nope from ./a.js"),
        (
            {"main": 'import { a } from "./a.js";\n', "a": 'import { main } from "./main.js";\nexport const a = 1;\n'},
            "a cycle of imports: main -> a -> main",
        ),
        ({"main": 'import { a } from "./missing.js";\n'}, "./missing.js, which does not exist"),
        ({"main": 'import a from "./a.js";\n', "a": "export const a = 1;\n"}, "an import the bundler does not read"),
        ({"main": "export default 3;\n"}, "an export the bundler does not read"),
        ({"main": 'import { a b } from "./a.js";\n', "a": "export const a = 1;\n"}, "cannot read the import 'a b'"),
    ],
)
def test_what_the_bundler_cannot_join_is_refused_with_the_file(tmp_path, files, needle):
    with pytest.raises(BundleError, match=re.escape(needle)):
        bundle(write(tmp_path, **files))


def test_every_module_is_in_the_bundle_and_says_its_job():
    joined = {m.name for m in ordered(STATIC, "main")}
    assert joined == {p.stem for p in MODULES}, "a module main.js does not reach is never loaded"
    for path in MODULES:
        assert path.read_text().startswith(f"// {path.name}: "), f"{path.name}: a header comment that says its job"


def test_views_draw_what_they_are_given_and_never_reach_the_viewer_or_the_store():
    views = [p for p in MODULES if "draw" in read_module(p).exports]
    assert {"heatmap", "headview", "mosaic", "mask", "compare", "topk", "explain", "heads", "attribution"} <= {
        p.stem for p in views
    }
    for path in views:
        imported = {target for target, _ in read_module(path).imports}
        assert not imported & {"viewer", "store", "keys", "quiz", "main"}, path.name
        assert "aeViewer" not in path.read_text(), path.name
    settings_readers = [p.name for p in MODULES if "window.AttentionExplorer" in p.read_text()]
    # the server's settings in, the page's entry points out, and the exported page's own settings
    assert settings_readers == ["export.js", "main.js", "settings.js"]


def test_the_bundle_is_valid_javascript():
    if not shutil.which("node"):
        pytest.skip("node is not installed here (the browser tests run the bundle in Chromium)")
    joined = bundle(STATIC, "main")
    run = subprocess.run(["node", "--check", "-"], input=joined, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_viewer_names_no_view_each_is_registered_once_in_views_js():
    """Issue 37 #5: each view's name was switched on in seven places in viewer.js; now the viewer builds its tabs,
    charts, selector rows, caption, drawing and PNG from the registry, so adding a view is its file and one line."""
    static = STATIC
    registry = (static / "views.js").read_text(encoding="utf-8")
    registered = re.findall(r'^import \{ VIEW as (\w+) \} from "\./([\w-]+)\.js";$', registry, re.M)
    assert [name for name, _ in registered] == [
        "heatmap", "headview", "mosaic", "mask", "compare", "maskless", "valuepath", "lens", "qkspace", "nopos"
    ]  # fmt: skip
    ids = []
    for _, module in registered:
        source = (static / f"{module}.js").read_text(encoding="utf-8")
        view = source[source.index("export const VIEW = {") :]
        ids.append(re.search(r'id: "([\w-]+)"', view).group(1))
        for member in ("label:", "className:", "controls:", "caption:", "draw:", "png:"):
            assert member in view, f"{module}.js's VIEW has no {member}"
    viewer = (static / "viewer.js").read_text(encoding="utf-8")
    viewer = re.sub(r'what: "\w+"', "", viewer)  # the questions asked of the server ("compare": B's trace)
    for view_id in ids:  # no string names a view: not in a switch, a default, a list or a caption table
        assert f'"{view_id}"' not in viewer and f"'{view_id}'" not in viewer, view_id
