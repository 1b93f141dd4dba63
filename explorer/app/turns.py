"""Batches that run at once take turns between their layers: a person's batch computes first, a crowd's waits.

The model line's slots (`scheduler.Scheduler`) decide whose batch runs; `Turns` decides, while several run, which of
them compute. An address's load is the jobs it has asked for and not been answered yet (its own: a request answered
from the store, or one waiting for a computation someone else began, adds none). An address with at most `ONE_PERSON`
jobs (what one browser tab may have running at once) is a person; one with more is a crowd: a lecture hall behind its
router, or a script. A batch is a person's while a job in it is a person's, so a crowd's batch that carries a
student's job is the student's. Every layer of a served model asks `wait_turn` (a forward pre-hook, `watch`) whether
its thread may go on: a crowd's batch waits there while a person's batch runs. So a student's trace computes beside a
script's flood as if the server were idle: the flood stops at its next layer, not at the end of its batch, and goes
on when the student's batch is done. People compute side by side, and so do crowds, one batch per core, as before.
Batches compute in worker threads, so this one part of the line waits on a `threading.Condition`.

Crowds wait out of one allowance (`Allowance`): at most `STRETCH_S` in one stretch, and `WAIT_SHARE` of the time in
the long run. So a student's few seconds of tracing back to back are shielded whole, while a script that stays a
person (one long request at a time, for good) holds a lecture hall back half the time at most, never for good. A
thread that runs no batch (training, a test) never waits.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from torch import nn

from .rate_limits import MAX_IN_FLIGHT

ONE_PERSON = MAX_IN_FLIGHT  # the jobs one browser tab may have asked at once: an address with more is a crowd
STRETCH_S = 3.0  # the longest crowds wait for people's batches at once, when they have not waited for a while
WAIT_SHARE = 0.5  # the share of the time crowds wait for people's batches, at most, in the long run


class Allowance:
    """How long crowds may still wait for people: seconds that drain while any crowd's batch waits (one second a
    second, however many wait) and come back at `share` of a second a second, up to `stretch_s` of waiting at once.
    Its caller holds a lock around every call."""

    def __init__(
        self, stretch_s: float = STRETCH_S, share: float = WAIT_SHARE, clock: Callable[[], float] = time.monotonic
    ):
        self.share, self.clock = share, clock
        self.most = stretch_s * (1 - share)  # while crowds wait, it drains by 1 - share a second
        self.left, self.waiting, self.settled = self.most, 0, clock()

    def settle(self) -> None:
        now = self.clock()
        elapsed, self.settled = now - self.settled, now
        self.left = min(self.most, max(0.0, self.left + elapsed * (self.share - (1 if self.waiting else 0))))

    def wait_s(self) -> float:
        """How long a crowd's batch that begins to wait now may wait: until the allowance is spent."""
        self.settle()
        return self.left / (1 - self.share)

    def begin(self) -> None:
        self.settle()
        self.waiting += 1

    def end(self) -> None:
        self.settle()
        self.waiting -= 1


class Turns:
    def __init__(self, allowance: Allowance | None = None):
        self.allowance = allowance or Allowance()
        self._changed = threading.Condition()
        self._load: Counter[str] = Counter()  # jobs asked and not answered, by address
        self._running: dict[int, Counter[str]] = {}  # each running batch's jobs not answered yet, by its thread
        self._watched: weakref.WeakSet[nn.Module] = weakref.WeakSet()

    def watch(self, model: nn.Module) -> None:
        """Every encoder and decoder layer of `model` asks for its turn before it computes."""
        if model in self._watched:
            return
        self._watched.add(model)
        for layer in [*model.encoder.layers, *model.decoder.layers]:
            layer.register_forward_pre_hook(self.wait_turn)

    def asked(self, who: str) -> None:
        with self._changed:
            self._load[who] += 1
            self._changed.notify_all()

    def answered(self, who: str) -> None:
        """One of `who`'s jobs is answered (by the batch this thread runs, if it runs one)."""
        with self._changed:
            for counts in (self._load, self._running.get(threading.get_ident(), Counter())):
                counts[who] -= 1
                if counts[who] <= 0:
                    del counts[who]
            self._changed.notify_all()

    def load(self) -> dict[str, int]:
        """Jobs asked and not answered, by address."""
        with self._changed:
            return dict(self._load)

    def may_borrow(self, who: str) -> bool:
        """Whether `who` is a person and every batch running is a crowd's (one at least): its own batch would go
        first, so it may take a slot beyond the model's (`scheduler.Scheduler`)."""
        with self._changed:
            crowds = [not self._persons(batch) for batch in self._running.values()]
            return self._load[who] <= ONE_PERSON and bool(crowds) and all(crowds)

    @contextmanager
    def running(self, whose: Iterable[str]) -> Iterator[None]:
        """A batch of jobs of the addresses `whose` (one per job), for as long as this thread runs it."""
        thread = threading.get_ident()
        with self._changed:
            self._running[thread] = Counter(whose)
        try:
            yield
        finally:
            with self._changed:
                del self._running[thread]
                self._changed.notify_all()

    def wait_turn(self, *_) -> None:
        """A crowd's batch waits here while a person's runs (as long as the crowds' `allowance` lasts); any other
        thread goes on."""
        me = self._running.get(threading.get_ident())
        if me is None or len(self._running) == 1:  # a batch alone always goes: no lock
            return  # at each layer of each decoding step
        with self._changed:
            if self._may_go(me):
                return
            self.allowance.begin()
            try:
                self._changed.wait_for(lambda: self._may_go(me), timeout=self.allowance.wait_s())
            finally:
                self.allowance.end()

    def _persons(self, batch: Counter[str]) -> bool:
        """(The lock held.) Whether a job of a person's is in `batch`."""
        return any(self._load[who] <= ONE_PERSON for who in batch)

    def _may_go(self, me: Counter[str]) -> bool:
        """(The lock held.) A person's batch always goes; a crowd's when no person's runs."""
        return self._persons(me) or not any(self._persons(other) for other in self._running.values())
