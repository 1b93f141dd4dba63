"""The viewer's ES modules joined into one classic script at start-up, in the order their imports give.

The browser code is written as ES modules (`explorer/ui/static/*.js`: `import { x } from "./y.js"`, `export
function ...`), so each file says what it uses; the page gets them as one file, without Node or a build step.
Each module becomes a function scope that returns its exports; a module runs after every module it imports
(depth-first from the entry), so the load order is the import graph, not a list kept by hand. What this reads is
the small subset the viewer uses, and anything else is refused at start-up with the file and line:
- `import { a, b as c } from "./m.js";` and `import * as m from "./m.js";` (relative, in the same folder);
- `export function|async function|class|const|let NAME`.
An import of a name the module does not export, or a cycle of imports, is refused too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

IMPORT = re.compile(r'^import\s+(\{[^}]*\}|\*\s+as\s+(\w+))\s+from\s+"\./([\w-]+)\.js";[ \t]*$', re.M)
EXPORT = re.compile(r"^export\s+(?:async\s+function\*?|function\*?|class|const|let)\s+(\w+)", re.M)
ANY_IMPORT = re.compile(r"^\s*import\b.*$", re.M)
ANY_EXPORT = re.compile(r"^\s*export\b.*$", re.M)


class BundleError(ValueError):
    """A module the bundler cannot join: the message names the file and what is wrong."""


@dataclass
class Module:
    name: str  # the file name without .js
    body: str  # the source with its import lines removed and `export ` dropped
    imports: list[tuple[str, str]]  # (module, the const declaration that binds what is imported)
    exports: list[str]
    wanted: dict[str, list[str]]  # module -> the names imported from it by name


def _line(source: str, at: int) -> int:
    return source.count("\n", 0, at) + 1


def read_module(path: Path) -> Module:
    """One ES module's imports, exports and body, or a BundleError naming what the bundler does not read."""
    source = path.read_text(encoding="utf-8")
    name = path.stem
    imports: list[tuple[str, str]] = []
    wanted: dict[str, list[str]] = {}
    for match in IMPORT.finditer(source):
        clause, namespace, target = match.group(1), match.group(2), match.group(3)
        if namespace:
            imports.append((target, f"const {namespace} = {_var(target)};"))
            continue
        pairs = []
        for item in filter(None, (part.strip() for part in clause.strip("{} \n").split(","))):
            parts = item.split()
            if len(parts) == 1 and parts[0].isidentifier():
                pairs.append((parts[0], parts[0]))
            elif len(parts) == 3 and parts[1] == "as" and parts[0].isidentifier() and parts[2].isidentifier():
                pairs.append((parts[0], parts[2]))
            else:
                raise BundleError(f"{path.name}:{_line(source, match.start())}: cannot read the import {item!r}")
        wanted.setdefault(target, []).extend(original for original, _ in pairs)
        binding = ", ".join(original if original == local else f"{original}: {local}" for original, local in pairs)
        imports.append((target, f"const {{ {binding} }} = {_var(target)};"))
    body = IMPORT.sub("", source)
    for match in ANY_IMPORT.finditer(body):
        raise BundleError(f"{path.name}: an import the bundler does not read: {match.group(0).strip()!r}")
    exports = EXPORT.findall(body)
    body = EXPORT.sub(lambda m: m.group(0)[len("export") :].lstrip(), body)
    for match in ANY_EXPORT.finditer(body):
        raise BundleError(f"{path.name}: an export the bundler does not read: {match.group(0).strip()!r}")
    return Module(name, body, imports, exports, wanted)


def _var(name: str) -> str:
    return "__ae_" + name.replace("-", "_")


def ordered(folder: Path, entry: str) -> list[Module]:
    """The modules reachable from `entry`, each after the ones it imports; a cycle or a missing file is refused."""
    done: dict[str, Module] = {}
    visiting: list[str] = []

    def visit(name: str, by: str | None) -> None:
        if name in done:
            return
        if name in visiting:
            raise BundleError(f"a cycle of imports: {' -> '.join(visiting[visiting.index(name) :] + [name])}")
        path = folder / f"{name}.js"
        if not path.is_file():
            raise BundleError(f"{by}.js imports ./{name}.js, which does not exist")
        visiting.append(name)
        module = read_module(path)
        for target, _ in module.imports:
            visit(target, name)
        visiting.pop()
        done[name] = module

    visit(entry, None)
    for module in done.values():
        for target, names in module.wanted.items():
            missing = sorted(set(names) - set(done[target].exports))
            if missing:
                names = ", ".join(missing)
                raise BundleError(f"{module.name}.js imports {names} from ./{target}.js, which does not export it")
    return list(done.values())


def bundle(folder: Path, entry: str = "main") -> str:
    """One strict classic script: every module reachable from `entry`, each in its own function scope."""
    parts = ['// Attention Explorer viewer: ES modules joined by explorer/ui/bundle.py\n(function () {\n"use strict";']
    for module in ordered(folder, entry):
        lines = [f"// ---- {module.name}.js", f"const {_var(module.name)} = (() => {{"]
        lines += [declaration for _, declaration in module.imports]
        lines += [module.body.strip("\n"), f"return {{ {', '.join(module.exports)} }};", "})();"]
        parts.append("\n".join(lines))
    parts.append("})();\n")
    return "\n".join(parts)
