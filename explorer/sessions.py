"""A bounded, thread-safe registry of ExplorerSessions keyed by an opaque per-browser-session id.

The UI keeps only the key in its per-session state (a string copies cheaply); the session, with its
stepper and any model the person trained, lives here. Idle sessions expire and the least recently
used are dropped beyond a cap, so memory stays bounded however many people visit.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable

from .session import ExplorerSession


def new_key() -> str:
    return uuid.uuid4().hex


class SessionStore:
    def __init__(self, factory: Callable[[], ExplorerSession], max_sessions: int = 200, idle_seconds: float = 4 * 3600):
        self.factory = factory
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._sessions: OrderedDict[str, tuple[ExplorerSession, float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str | None) -> ExplorerSession:
        """The session for `key`, created on first use; refreshes its idle timer."""
        if not isinstance(key, str) or not key:
            raise ValueError("missing session key")
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            entry = self._sessions.pop(key, None)
            session = entry[0] if entry else self.factory()
            self._sessions[key] = (session, now)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
            return session

    def _expire(self, now: float) -> None:
        while self._sessions:
            key, (_, seen) = next(iter(self._sessions.items()))
            if now - seen <= self.idle_seconds:
                break
            del self._sessions[key]

    def __len__(self) -> int:
        return len(self._sessions)
