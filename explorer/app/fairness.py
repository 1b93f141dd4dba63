"""The one limiter: how many requests each caller has running at once, the API's and the Gradio tabs' alike.

An API request counts against its address and, where it names one the server issued (`callers.py`), its browser
tab's client id: a tab may run `MAX_IN_FLIGHT` at once, so one tab cannot take everyone's turn, and an address
`ADDRESS_IN_FLIGHT`, a lecture hall's worth (a class of 200 shares one address behind its router), however many ids
its requests name. A Gradio session counts as one caller. Beyond a limit a request is refused at once (429), never
queued.
"""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager

from ..interpret.request import UserError
from .callers import Caller

MAX_IN_FLIGHT = 4  # requests one browser tab (or session) may have running at once
ADDRESS_IN_FLIGHT = 256  # requests one address may run: a lecture hall of 200 behind one router

Share = tuple[str, int, str]  # what is counted, its limit, who it is in a refusal


class Busy(UserError):
    """Too many requests from one caller at once (429)."""

    status = 429


def shares(caller: Caller) -> list[Share]:
    """What an API request of `caller` counts against: its address, and its issued client id if it has one."""
    address = (f"address:{caller.address}", ADDRESS_IN_FLIGHT, f"This address ({caller.address})")
    return [address] + ([(f"client:{caller.client}", MAX_IN_FLIGHT, "This browser")] if caller.client else [])


class Fairness:
    """The requests each caller has running; a caller at a limit is refused until one finishes."""

    def __init__(self):
        self.running: Counter[str] = Counter()
        self.lock = threading.Lock()

    def enter(self, counted: list[Share]) -> None:
        with self.lock:
            for key, limit, who in counted:
                if self.running[key] >= limit:
                    raise Busy(
                        f"{who} already has {self.running[key]} requests running; it may run {limit} at a time so "
                        "that everyone gets a turn. Wait for them to finish."
                    )
            for key, _, _ in counted:
                self.running[key] += 1

    def leave(self, counted: list[Share]) -> None:
        with self.lock:
            for key, _, _ in counted:
                self.running[key] -= 1
                if self.running[key] <= 0:
                    del self.running[key]

    @contextmanager
    def turn(self, caller: str, limit: int = MAX_IN_FLIGHT, who: str = "This browser"):
        """One request of `caller` (a Gradio session), refused beyond `limit` at once."""
        counted = [(caller, limit, who)]
        self.enter(counted)
        try:
            yield
        finally:
            self.leave(counted)
