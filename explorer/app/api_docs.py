"""The API's reference page, `/ae/api/docs`: every route of the OpenAPI document as plain HTML, written by the server.

FastAPI's own page loads Swagger UI from a CDN, so it is blank in a lecture hall without internet; this page needs no
script and no other file. Each route shows its method, path, summary and description, its query parameters (type,
default, limits, whether required), the body it takes (the schema's fields) and the answers it gives. The machine-
readable document stays at `/ae/api/openapi.json`.
"""

from __future__ import annotations

from html import escape

STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#1f2937}"
    "h2{margin-top:1.6em;font-size:1.1em}code{background:#f1f5f9;padding:0 3px;border-radius:3px}"
    ".method{display:inline-block;min-width:4em;font-weight:700}table{border-collapse:collapse;margin:.4em 0}"
    "td,th{border-bottom:1px solid #e2e8f0;padding:2px 8px;text-align:left;vertical-align:top}"
)


def docs_page(openapi: dict, prefix: str) -> str:
    """The reference page of `openapi` (the API's document), its routes under `prefix`."""
    info = openapi.get("info", {})
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(info.get('title', 'API'))}</title>",
        f"<style>{STYLE}</style></head><body><h1>{escape(info.get('title', 'API'))}</h1>",
        f"<p>{escape(info.get('summary', ''))}</p>",
        f"<p>The same, machine-readable: <a href='{prefix}/openapi.json'><code>{prefix}/openapi.json</code></a>.</p>",
    ]
    schemas = openapi.get("components", {}).get("schemas", {})
    for path, operations in openapi.get("paths", {}).items():
        for method, operation in operations.items():
            parts.append(route(prefix + path, method, operation, schemas))
    parts.append("</body></html>")
    return "".join(parts)


def route(path: str, method: str, operation: dict, schemas: dict) -> str:
    """One route: its heading, its words, its parameters, its body and its answers."""
    out = [f"<h2><span class='method'>{method.upper()}</span> <code>{escape(path)}</code></h2>"]
    for key in ("summary", "description"):
        if operation.get(key):
            out.append(f"<p>{escape(operation[key])}</p>")
    rows = [
        (p["name"], p.get("in", ""), type_of(p.get("schema", {}), schemas), "yes" if p.get("required") else "no",
         p.get("description") or p.get("schema", {}).get("description", ""))
        for p in operation.get("parameters", [])
    ]  # fmt: skip
    if rows:
        out.append(table(("parameter", "in", "type", "required", "what"), rows))
    body = operation.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        out.append(f"<p>Body ({escape(media)}): {escape(type_of(content.get('schema', {}), schemas))}</p>")
        fields = resolve(content.get("schema", {}), schemas).get("properties", {})
        if fields:
            out.append(table(("field", "type", "what"), [
                (name, type_of(field, schemas), field.get("description") or field.get("title", ""))
                for name, field in fields.items()
            ]))  # fmt: skip
    answers = [(code, answer.get("description", "")) for code, answer in operation.get("responses", {}).items()]
    if answers:
        out.append(table(("answer", "what"), answers))
    return "".join(out)


def resolve(schema: dict, schemas: dict) -> dict:
    """The schema a `$ref` names, or the schema itself."""
    ref = schema.get("$ref", "")
    return schemas.get(ref.rsplit("/", 1)[-1], {}) if ref else schema


def type_of(schema: dict, schemas: dict) -> str:
    """A schema in a few words: its name or type, its default and its limits."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(type_of(s, schemas) for s in schema.get("anyOf") or schema.get("oneOf"))
    words = schema.get("type", "any")
    if words == "array":
        words = "list of " + type_of(schema.get("items", {}), schemas)
    if "enum" in schema:
        words += " (" + ", ".join(map(str, schema["enum"])) + ")"
    limits = [f"{name} {schema[key]}" for key, name in (("minimum", "≥"), ("maximum", "≤")) if key in schema]
    limits += [
        f"{name} {schema[key]}" for key, name in (("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")) if key in schema
    ]
    if "maxLength" in schema:
        limits.append(f"at most {schema['maxLength']} characters")
    if "default" in schema:
        limits.append(f"default {schema['default']!r}")
    return words + (" (" + ", ".join(limits) + ")" if limits else "")


def table(header: tuple, rows: list) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
