"""The sizes the app holds requests to that are no request field's: one HTTP request's bytes, and the minutes of
one in-app training run (the trace request's numbers carry their ranges on their fields:
`explorer.interpret.request.TraceRequest`)."""

from __future__ import annotations

from ..interpret.request import Limit

MAX_REQUEST_BYTES = 64 * 1024  # one HTTP request to the app (a sentence of MAX_CHARS fits many times over)
MINUTES = Limit(0.2, 5.0, 1.0)  # one in-app training run
