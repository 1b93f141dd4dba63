"""A bounded, shared cache of wire traces, with at most one model computation per key and per core.

A class opening the same example costs one decode, not sixty: the first request for a key computes it
(holding one of `workers` model slots, so model work never oversubscribes the cores), requests for
the same key that arrive meanwhile wait for that one result, and later ones are answered from memory
without waiting for any slot. Entries are dropped least-recently-used beyond `max_bytes` of JSON.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future

DEFAULT_MAX_BYTES = 64 * 2**20


class TraceCache:
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, workers: int | None = None):
        self.max_bytes = max_bytes
        self.workers = workers or os.cpu_count() or 1
        self._entries: OrderedDict[Hashable, tuple[dict, int]] = OrderedDict()
        self._bytes = 0
        self._inflight: dict[Hashable, Future] = {}
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.workers)
        self.hits = self.misses = self.computed = 0

    def get(self, key: Hashable, compute: Callable[[], dict]) -> dict:
        """The cached value for `key`, or `compute()` run once (in a model slot) and cached."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
            future = self._inflight.get(key)
            owner = future is None
            if owner:
                future = self._inflight[key] = Future()
        if not owner:
            return future.result()
        try:
            with self._slots:
                value = compute()
            size = len(json.dumps(value, ensure_ascii=False))
            with self._lock:
                self.computed += 1
                if size <= self.max_bytes:
                    self._entries[key] = (value, size)
                    self._bytes += size
                    while self._bytes > self.max_bytes:
                        _, (_, dropped) = self._entries.popitem(last=False)
                        self._bytes -= dropped
            future.set_result(value)
            return value
        except BaseException as exc:
            future.set_exception(exc)
            raise
        finally:
            with self._lock:
                self._inflight.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return self._bytes
