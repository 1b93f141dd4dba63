"""The one refusal a person reads: `UserError`, and `shown`, how a refusal quotes the value it names.

Any layer raises a `UserError` where what a person typed or chose cannot be used (a sentence too long, a head the model
lacks, a room that ended); its message is shown to them as is. It depends on nothing, so every layer may import it
without importing another layer. The app answers it in the API's one error shape (`explorer/app/errors.py`), with the
HTTP status a subclass names (`status`: 404, 409, 413, 429; else 400).
"""

from __future__ import annotations


class UserError(ValueError):
    """Something the person typed or chose that cannot be used; the message is shown to them as is."""


def shown(value) -> str:
    """A value as a message quotes it: its repr, cut to 40 characters."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        text = f"a {type(value).__name__} too long to show"
    return text if len(text) <= 40 else text[:39] + "…"
