"""The one limiter: how many requests each caller has running at once, the API's and the Gradio tabs' alike.

A caller is a browser tab (the `X-AE-Client` id it makes for itself), a Gradio session, or, for a script that
names itself nowhere, its address. One caller may run `MAX_IN_FLIGHT` requests at once, so a script cannot take
everyone's turn; an address gets `ADDRESS_IN_FLIGHT`, because a lecture hall's scripts share one address behind
its router. Beyond that a request is refused at once (429), never queued.
"""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager

from ..interpret.request import UserError

MAX_IN_FLIGHT = 4  # requests one browser (or session) may have running at once
ADDRESS_IN_FLIGHT = 256  # requests the nameless callers behind one address may run: a lecture hall of 200
CLIENT_HEADER = "x-ae-client"  # the id a browser tab makes for itself and sends with each API request


class Busy(UserError):
    """Too many requests from one caller at once (429)."""

    status = 429


class Fairness:
    """The requests each caller has running; a caller at its limit is refused until one finishes."""

    def __init__(self):
        self.running: Counter[str] = Counter()
        self.lock = threading.Lock()

    def enter(self, caller: str, limit: int = MAX_IN_FLIGHT, who: str = "This browser") -> None:
        with self.lock:
            if self.running[caller] >= limit:
                raise Busy(
                    f"{who} already has {self.running[caller]} requests running; one person may run "
                    f"{limit} at a time so that everyone gets a turn. Wait for them to finish."
                )
            self.running[caller] += 1

    def leave(self, caller: str) -> None:
        with self.lock:
            self.running[caller] -= 1
            if self.running[caller] <= 0:
                del self.running[caller]

    @contextmanager
    def turn(self, caller: str, limit: int = MAX_IN_FLIGHT, who: str = "This browser"):
        """One request of `caller`, refused beyond `limit` at once."""
        self.enter(caller, limit, who)
        try:
            yield
        finally:
            self.leave(caller)


def caller_of(request) -> tuple[str, int]:
    """Who asks (a Starlette request), and how many requests they may run at once: the browser's own id (a download
    link cannot send a header: it names the browser in its query), else the address, which a class's scripts may
    share."""
    client = request.headers.get(CLIENT_HEADER, "") or request.query_params.get("client", "")
    if client:
        return f"client:{client[:64]}", MAX_IN_FLIGHT
    return f"address:{request.client.host if request.client else '?'}", ADDRESS_IN_FLIGHT
