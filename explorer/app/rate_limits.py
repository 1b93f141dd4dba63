"""The server's limits on callers: how many requests each has running at once (`Fairness`, taken by `ADMITTED`, a
dependency of every route), and how fast an address may do what costs the server (`Rates`: client ids, rooms,
uploads, training runs).

A request counts against its address and, where it names one the server issued (`callers.py`), its browser tab's
client id: a tab may run `MAX_IN_FLIGHT` at once, so one tab cannot take everyone's turn, and an address
`ADDRESS_IN_FLIGHT`, a lecture hall's worth (a class of 200 shares one address behind its router), however many ids
its requests name. Beyond a limit a request is refused at once (429), never queued.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from typing import Annotated

from fastapi import Depends, Request
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..errors import UserError
from .callers import Caller, caller_of

MAX_IN_FLIGHT = 4  # requests one browser tab may have running at once
ADDRESS_IN_FLIGHT = 256  # requests one address may run: a lecture hall of 200 behind one router

Share = tuple[str, int, str]  # what is counted, its limit, who it is in a refusal


class TooFast(UserError):
    """One address asked for something faster than its rate allows (429)."""

    status = 429


def rate_setting(name: str, default: str) -> str:
    """A rate in `limits` notation from the environment variable `name`: a bad one stops the server at start, not
    each caller at their first request."""
    rate = os.environ.get(name, default)
    try:
        parse(rate)
    except ValueError as exc:
        raise ValueError(f"{name}={rate!r} is not a rate such as {default!r}: {exc}") from exc
    return rate


class Rates:
    """Per-address rate limits (the `limits` library's moving window, in memory): `hit` refuses beyond the rate."""

    def __init__(self):
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, rate: str, what: str, address: str, refusal: str, cost: int = 1) -> None:
        """Count `cost` more of `what` for `address`, refused (and not counted) beyond `rate`."""
        if not self.limiter.hit(parse(rate), what, address, cost=cost):
            raise too_fast(rate, what, address, refusal)

    def allows(self, rate: str, what: str, address: str, refusal: str, cost: int = 1) -> None:
        """Refuse as `hit` would, counting nothing: a caller counts (`count`) once what it asked for happened."""
        if not self.limiter.test(parse(rate), what, address, cost=cost):
            raise too_fast(rate, what, address, refusal)

    def count(self, rate: str, what: str, address: str, cost: int = 1) -> None:
        """Count what happened (never refused: it has)."""
        self.limiter.hit(parse(rate), what, address, cost=cost)


def too_fast(rate: str, what: str, address: str, refusal: str) -> TooFast:
    item = parse(rate)
    period = item.GRANULARITY.name + ("" if item.multiples == 1 else f"s ({item.multiples})")
    return TooFast(f"{refusal} This address ({address}) may have {item.amount} {what} per {period}.")


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


async def admitted(request: Request):
    """A FastAPI dependency: the request's turn, counted against its caller's shares (the app's `state.fairness`;
    who the caller is: `state.clients`, `state.proxies`), refused (429) beyond them. It hands the route its `Caller`,
    which the route hands the model line (`scheduler.Scheduler`): model work waits there as its address's."""
    state = request.app.state
    caller = caller_of(request, state.clients, state.proxies)
    counted = shares(caller)
    state.fairness.enter(counted)
    try:
        yield caller
    finally:
        state.fairness.leave(counted)


# every route's (a router dependency), and the caller of the routes that name it, `caller: Admitted`: one per request
# (FastAPI runs a dependency once per request), left as soon as the route returns, before its answer is sent
ADMITTED = Depends(admitted, scope="function")
Admitted = Annotated[Caller, ADMITTED]
