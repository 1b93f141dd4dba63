"""Literal text inside Markdown: text from a checkpoint or a user shows as typed, never as markup.

`escape` turns the HTML-significant characters into entities and puts a backslash before every other
ASCII punctuation character (CommonMark lets any of them be escaped so), so `<b>`, `**`, `[x](y)`,
`# `, `|` or a bare `http://` in a name all show literally; line breaks become spaces, so the text
stays inside its line. (Gradio's Markdown also typesets `$$...$$` as LaTeX on the rendered text: a
component that shows such text turns that off with `latex_delimiters=[]`.)
"""

from __future__ import annotations

import string

ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
BACKSLASHED = frozenset(string.punctuation) - set(ENTITIES)


def escape(value: object) -> str:
    """`str(value)` as Markdown that renders to exactly that text, on one line."""
    out = []
    for ch in " ".join(str(value).splitlines()):
        out.append(ENTITIES.get(ch) or ("\\" + ch if ch in BACKSLASHED else ch))
    return "".join(out)
