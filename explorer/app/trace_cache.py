"""A bounded, shared cache of wire traces that batches the computations a class asks for at once.

A class opening the same example costs one decode, not sixty: the first request for a key computes it,
requests for the same key that arrive meanwhile wait for that one result, and later ones are answered
from memory without waiting for anything. Keys that miss queue their job by group (the model's
fingerprint); a request that gets one of `workers` model slots (so model work never oversubscribes the
cores) takes every job of its group waiting at that moment, up to `max_batch`, and computes them in one
batched call. Sixty students typing sixty sentences cost a few batched decodes, not sixty decodes. A slot that
frees goes to the waiting job of the lowest `priority` (a class's traces before the questions about them), first come
first served within one; a job that has waited `PATIENCE_S` per priority level goes before those that came after that,
so a steady stream of traces delays a question by at most that, never for good.
Each value is kept with its JSON serialized and compressed once (`Encoded`, made by the caller's `encode`: a
decode keeps its typed trace for the questions and sends its wire form), so a hit sent over HTTP costs no
serialization. Entries are dropped least-recently-used beyond `max_bytes` (the JSON, plus the value's own
`nbytes` when it reports one); failures are never cached.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from typing import Any

from .encoded import Encoded

DEFAULT_MAX_BYTES = 64 * 2**20
DEFAULT_MAX_BATCH = 32  # 100 new sentences at once: 4 batched decodes instead of 7 (bench/class_open.py)
PATIENCE_S = 5.0  # what a question yields to traces that came after it (a class's traces: ~1-2 s, class_open)

RunBatch = Callable[[list], list[Any]]  # jobs -> one value per job, in order
Encode = Callable[[Any], Encoded]  # a value -> what is sent for it


class Slots:
    """`n` model slots, handed out by priority (0 first), first come first served within one. A waiter's place is its
    arrival time plus `patience_s` per priority level: a question that has waited that long goes before the traces that
    came later, so none waits for good. A slot that frees goes straight to the first in line, whose own gate opens: no
    other waiter wakes."""

    def __init__(self, n: int, patience_s: float = PATIENCE_S, clock: Callable[[], float] = time.monotonic):
        self._free = n
        self._line: list[tuple[float, int, threading.Event]] = []  # (place, ticket, gate) of each waiter, a heap
        self._tickets = itertools.count()
        self._lock = threading.Lock()
        self.patience_s, self._clock = patience_s, clock

    @contextlib.contextmanager
    def take(self, priority: int = 0) -> Iterator[None]:
        with self._lock:
            if self._free > 0 and not self._line:
                self._free -= 1
                gate = None
            else:
                gate = threading.Event()
                mine = (self._clock() + priority * self.patience_s, next(self._tickets), gate)
                heapq.heappush(self._line, mine)
        if gate is not None:
            try:
                gate.wait()
            except BaseException:  # interrupted while waiting: out of the line, or the slot it was handed given on
                with self._lock:
                    handed = gate.is_set()
                    if not handed:
                        self._line.remove(mine)
                        heapq.heapify(self._line)
                if handed:
                    self._give()
                raise
        try:
            yield
        finally:
            self._give()

    def _give(self) -> None:
        """A slot back: to the first in line, else free."""
        with self._lock:
            if self._line:
                heapq.heappop(self._line)[2].set()
            else:
                self._free += 1


class TraceCache:
    def __init__(
        self, max_bytes: int = DEFAULT_MAX_BYTES, workers: int | None = None, max_batch: int = DEFAULT_MAX_BATCH
    ):
        self.max_bytes = max_bytes
        self.workers = workers or os.cpu_count() or 1
        self.max_batch = max_batch
        self._entries: OrderedDict[Hashable, tuple[Any, Encoded]] = OrderedDict()
        self._bytes = 0
        self._inflight: dict[Hashable, Future] = {}
        self._waiting: dict[Hashable, list[tuple[Hashable, object, Future]]] = defaultdict(list)
        self._lock = threading.Lock()
        self._slots = Slots(self.workers)
        self.hits = self.computed = self.batches = 0

    def get(self, key: Hashable, job, run_batch: RunBatch, group: Hashable = None) -> Any:
        """The cached value for `key`, or `job` computed (batched with its group's waiting jobs) and cached.

        Jobs of one group must be computable by any of their `run_batch` functions together.
        """
        return self.entry(key, job, run_batch, group)[0]

    def peek(self, key: Hashable) -> tuple[Any, Encoded] | None:
        """(value, encoded) if `key` is cached now, else None; never waits (an event loop's fast path, or a caller
        that would otherwise prepare a job for nothing)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry

    def entry(
        self,
        key: Hashable,
        job,
        run_batch: RunBatch,
        group: Hashable = None,
        encode: Encode = Encoded.json,
        priority: int = 0,
    ) -> tuple[Any, Encoded]:
        """As `get`, with the value's encoded form. A job of a lower `priority` number gets the next free model slot
        first (a class's traces, before the questions about them, for at most `PATIENCE_S` each level: `Slots`)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry
            future = self._inflight.get(key)
            if future is not None:
                owner = False
            else:
                owner = True
                future = self._inflight[key] = Future()
                self._waiting[group].append((key, job, future, encode))
        if owner:
            with self._slots.take(priority):
                with self._lock:
                    waiting = self._waiting[group]
                    batch, waiting[:] = waiting[: self.max_batch], waiting[self.max_batch :]
                if batch:  # empty when another slot took this job into its batch
                    self._run(batch, run_batch)
        return future.result()

    def _run(self, batch: list[tuple[Hashable, object, Future, Encode]], run_batch: RunBatch) -> None:
        try:
            values = run_batch([job for _, job, _, _ in batch])
            outcomes = [(item, value, None) for item, value in zip(batch, values, strict=True)]
        except BaseException as exc:  # noqa: BLE001 - every waiter gets an answer
            if len(batch) > 1 and isinstance(exc, Exception):  # one bad job must not fail the others
                for item in batch:
                    self._run([item], run_batch)
                return
            outcomes = [(item, None, exc) for item in batch]
        encoded = [encode(value) if exc is None else None for (_, _, _, encode), value, exc in outcomes]
        with self._lock:
            self.batches += 1
            for ((key, _, _, _), value, exc), body in zip(outcomes, encoded):
                self._inflight.pop(key, None)
                if exc is None:
                    self.computed += 1
                    self._store(key, (value, body))
        for ((_, _, future, _), value, exc), body in zip(outcomes, encoded):
            if exc is None:
                future.set_result((value, body))
            else:
                future.set_exception(exc)

    def _store(self, key: Hashable, entry: tuple[Any, Encoded]) -> None:
        size = _size(entry)
        if size > self.max_bytes:
            return
        self._entries[key] = entry
        self._bytes += size
        while self._bytes > self.max_bytes:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= _size(dropped)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return self._bytes


def _size(entry: tuple[Any, Encoded]) -> int:
    value, body = entry
    return body.size + getattr(value, "nbytes", 0)
