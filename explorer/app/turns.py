"""Batches that run at once take turns between their layers: the address with the fewest jobs computes first.

The model's slots (`trace_cache.Slots`) decide whose batch runs; `Turns` decides, while several run, which of them
computes. Each address's load is the jobs it has asked for and not yet been answered. Every layer of a served model
asks `wait_turn` (a forward pre-hook, `watch`) whether its thread may go on: a batch waits there while a batch of
another address with a lighter load is running. So a student's one trace computes beside a script's flood as if the
server were idle: the flood's batches stop at their next layer (not at the end of their batch) and go on when
the student's batch is done. Addresses of equal load compute side by side, one batch per core, as before.

A batch waits `YIELD_S` at most in all, so a class behind one address (heavy, honest) is never held for good by a
stream of lighter ones. A thread that runs no batch (training, a test) never waits.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from torch import nn

YIELD_S = 5.0  # the longest one batch waits for lighter addresses, in all


@dataclass
class Running:
    """A batch computing in its thread: whose it is, and how long it has waited for others."""

    who: str
    waited: float = 0.0


class Turns:
    def __init__(self, yield_s: float = YIELD_S):
        self.yield_s = yield_s
        self._changed = threading.Condition()
        self._load: Counter[str] = Counter()  # jobs asked and not answered, by address
        self._running: dict[int, Running] = {}  # by thread
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
        with self._changed:
            self._load[who] -= 1
            if self._load[who] <= 0:
                del self._load[who]
            self._changed.notify_all()

    def lighter(self, who: str, than: set[str]) -> bool:
        """Whether `who` has asked for fewer jobs than every address in `than` (those holding the model's slots)."""
        with self._changed:
            return all(self._load[who] < self._load[other] for other in than if other != who)

    @contextmanager
    def running(self, who: str) -> Iterator[Running]:
        """A batch of `who`'s, for as long as this thread runs it."""
        me, thread = Running(who), threading.get_ident()
        with self._changed:
            self._running[thread] = me
        try:
            yield me
        finally:
            with self._changed:
                del self._running[thread]
                self._changed.notify_all()

    def wait_turn(self, *_) -> None:
        """Wait while a lighter address's batch runs (`YIELD_S` at most for one batch); any other thread goes on."""
        me = self._running.get(threading.get_ident())
        if me is None or me.waited >= self.yield_s:
            return
        with self._changed:
            if self._may_go(me):
                return
            t0 = time.monotonic()
            self._changed.wait_for(lambda: self._may_go(me), timeout=self.yield_s - me.waited)
            me.waited += time.monotonic() - t0

    def _may_go(self, me: Running) -> bool:
        """(The lock held.) No batch of a lighter address is running."""
        mine = self._load[me.who]
        return not any(other.who != me.who and self._load[other.who] < mine for other in self._running.values())
