"""The model line: one asyncio scheduler in front of the model, and the bounded store of what it computed.

Every request that needs the model (a trace, a question, the .npz's logit lens, the start-up trace) comes here as a
job with a key, and names its caller (`callers.Caller`): a job without one is a programming error, refused.

- **Computed once.** A key kept in the store is answered from it; a key being computed is answered by that
  computation's future; only a new key joins the line. Values are kept with their encoded form (`Encoded`, made
  once in the worker thread), least recently used out beyond `max_bytes` (`cachetools.LRUCache`); failures never.
- **One line.** The jobs waiting are a priority queue ordered by place: arrival, plus `patience_s` per priority
  level (a class's traces, 0, before the questions about them, 1, for at most that long), with each address's jobs
  `job_s` apart, so a script's flood lines up behind itself and a student on another address goes after its first
  few. `workers` slots (the CPUs this process may use: `available_cpus`) run batches in an executor.
- **Fair slots.** While more than one address is at the model (it asked within `RECENT_S`, or holds a slot), none
  holds more than `workers - 1`; one address alone (a hall behind its router) uses them all. A slot takes the first
  job in line that may go, and batches it with its group's jobs (one model's traces, one model's questions): every
  job of the same address, and the first job of each other address that holds no slot, so a class batches whole and
  a flood never rides in a student's batch. Values leave one by one as the batch yields them.
- **People before crowds.** `turns.Turns` pauses a crowd's running batch between its layers while a person's runs.
  A person who finds every slot held by crowds borrows one slot beyond them at once.

Nothing here outlives an event loop: a batch is a task started when a slot frees and a job may take it, so the
start-up trace (`asyncio.run`, before the server's loop exists) and the server share one line. All state is touched
on the event loop only; worker threads hand their values back with `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from .callers import Caller
from .encoded import Encoded
from .turns import Turns

DEFAULT_MAX_BYTES = 64 * 2**20
DEFAULT_MAX_BATCH = 32  # 100 new sentences at once: 4 batched decodes instead of 7 (bench/class_open.py)
PATIENCE_S = 5.0  # what a question yields to traces that came after it (a class's traces: ~1-2 s, class_open)
JOB_S = 0.05  # the place one job takes in its address's line: about what a job in a batch costs
RECENT_S = 3.0  # an address that asked this recently is still at the model (a student stepping through sentences)
MAX_ADDRESSES = 4096  # addresses remembered before those whose line is behind them are forgotten

log = logging.getLogger("explorer.scheduler")
RunBatch = Callable[[list], Iterable[Any]]  # jobs -> one value per job, in order (a generator: each as it is ready)
Encode = Callable[[Any], Encoded]  # a value -> what is sent for it


def available_cpus(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The CPUs this process may use: its affinity, capped by the cgroup's CPU quota (v2 `cpu.max`, v1
    `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up; at least 1. A container sees the host's `os.cpu_count()`;
    a free Space is 2 vCPUs of quota."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    for quota_file, period_file in (("cpu.max", None), ("cpu/cpu.cfs_quota_us", "cpu/cpu.cfs_period_us")):
        try:
            words = (cgroup / quota_file).read_text().split()
            if period_file:
                words.append((cgroup / period_file).read_text().strip())
            quota, period = words[0], words[1]
            if quota not in ("max", "-1") and int(period) > 0:
                return max(1, min(cpus, -(-int(quota) // int(period))))
        except (OSError, ValueError, IndexError):
            continue
    return max(1, cpus)


@dataclass(order=True)
class Job:
    """One key's computation, waiting for a slot; ordered by its place in line."""

    place: float
    ticket: int
    who: str = field(compare=False)  # the caller's address
    key: Hashable = field(compare=False)
    work: Any = field(compare=False)  # what `run_batch` computes the value from
    group: Hashable = field(compare=False)  # jobs one `run_batch` computes together
    run_batch: RunBatch = field(compare=False)
    encode: Encode = field(compare=False)
    future: asyncio.Future = field(compare=False)


class Scheduler:
    def __init__(
        self,
        max_bytes: int = DEFAULT_MAX_BYTES,
        workers: int | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        clock: Callable[[], float] = time.monotonic,
        patience_s: float = PATIENCE_S,
        job_s: float = JOB_S,
        turns: Turns | None = None,
    ):
        self.workers = workers or available_cpus()
        self.max_batch, self.clock, self.patience_s, self.job_s = max_batch, clock, patience_s, job_s
        self.turns = turns or Turns()  # which running batch computes: `watch` a served model
        self.store: LRUCache[Hashable, tuple[Any, Encoded]] = LRUCache(max_bytes, getsizeof=_size)
        self._inflight: dict[Hashable, asyncio.Future] = {}
        self._line: list[Job] = []
        self._tickets = itertools.count()
        self._free, self._lent = self.workers, False  # slots free; whether the one beyond them is lent
        self._held: Counter[str] = Counter()  # slots held, by address
        self._next: dict[str, float] = {}  # each address's next place in line
        self._asked: dict[str, float] = {}  # when each address last asked
        self._batches: set[asyncio.Task] = set()
        self._executor = ThreadPoolExecutor(self.workers + 1, thread_name_prefix="model")  # + the borrowed slot
        self.hits = self.computed = self.batches = 0

    # ----- what callers see --------------------------------------------------------------------------------
    def peek(self, key: Hashable) -> tuple[Any, Encoded] | None:
        """(value, encoded) if `key` is kept now, else None; never waits."""
        entry = self.store.get(key)
        self.hits += entry is not None
        return entry

    async def aentry(
        self,
        key: Hashable,
        work,
        run_batch: RunBatch,
        caller: Caller,
        group: Hashable = None,
        encode: Encode = Encoded.json,
        priority: int = 0,
    ) -> tuple[Any, Encoded]:
        """(value, encoded) of `key`: kept, being computed, or `work` computed in `caller`'s place in line (batched
        with `group`'s jobs). A request that goes away leaves its job computing: others may wait for the same key."""
        if not isinstance(caller, Caller):
            raise TypeError(f"the model line needs the Caller who asks, not {caller!r}")
        entry = self.peek(key)
        if entry is not None:
            return entry
        future = self._inflight.get(key)
        if future is None:
            future = self._inflight[key] = asyncio.get_running_loop().create_future()
            future.add_done_callback(lambda f: f.cancelled() or f.exception())  # an error nobody awaits is not logged
            self._join(key, work, run_batch, caller.address, group, encode, priority, future)
            self._dispatch()
        return await asyncio.shield(future)

    def waiting(self) -> int:
        """Jobs in line for a slot."""
        return len(self._line)

    def computing(self) -> int:
        """Keys asked and not answered yet (in line, or in a running batch)."""
        return len(self._inflight)

    def holders(self) -> dict[str, int]:
        """Slots held now, by address."""
        return dict(self._held)

    async def idle(self) -> None:
        """Return once no batch runs. A batch hands its values back as it makes them, so a caller can hold its answer
        before the batch's slot is free again."""
        while self._batches:
            await asyncio.gather(*self._batches, return_exceptions=True)

    # ----- the line (event loop) ---------------------------------------------------------------------------
    def _join(self, key, work, run_batch, who, group, encode, priority, future) -> None:
        now = self.clock()
        start = max(now, self._next.get(who, now))  # behind this address's own earlier jobs, not everyone's
        self._next[who], self._asked[who] = start + self.job_s, now
        if len(self._next) > MAX_ADDRESSES:
            self._next = {k: v for k, v in self._next.items() if v > now}
            self._asked = {k: v for k, v in self._asked.items() if v > now - RECENT_S}
        self.turns.asked(who)  # its load says whether it is a person, who may borrow a slot
        place = start + priority * self.patience_s
        self._line.append(Job(place, next(self._tickets), who, key, work, group, run_batch, encode, future))

    def _may_hold(self, who: str) -> bool:
        recent = self.clock() - RECENT_S
        others = any(w != who and t > recent for w, t in self._asked.items()) or any(w != who for w in self._held)
        return self._free > 0 and self._held[who] < (max(1, self.workers - 1) if others else self.workers)

    def _may_borrow(self, who: str) -> bool:
        """The slot beyond `workers`: every slot held, none by `who`, and `who` a person while every batch running is
        a crowd's (`Turns`: they wait for its own between their layers)."""
        return not self._free and not self._lent and who not in self._held and self.turns.may_borrow(who)

    def _dispatch(self) -> None:
        """Start a batch for each slot a job in line may take."""
        while self._line:
            ordered = sorted(self._line)
            job = next((j for j in ordered if self._may_hold(j.who)), None)
            borrowed = job is None
            if borrowed:
                job = next((j for j in ordered if self._may_borrow(j.who)), None)
            if job is None:
                return
            batch = self._batch(job, ordered)
            taken = {id(j) for j in batch}
            self._line = [j for j in self._line if id(j) not in taken]
            self._held[job.who] += 1
            self.batches += 1
            if borrowed:
                self._lent = True
            else:
                self._free -= 1
            task = asyncio.get_running_loop().create_task(self._compute(batch, job, borrowed))
            self._batches.add(task)
            task.add_done_callback(self._batches.discard)

    def _batch(self, job: Job, ordered: list[Job]) -> list[Job]:
        """`job`, then its group's jobs in line order: its address's, and the first of each other address that holds
        no slot, up to `max_batch`."""
        batch, seen = [job], {job.who}
        for other in ordered:
            if len(batch) >= self.max_batch:
                break
            if other is job or other.group != job.group:
                continue
            if other.who == job.who or (other.who not in seen and other.who not in self._held):
                batch.append(other)
                seen.add(other.who)
        return sorted(batch)

    async def _compute(self, batch: list[Job], holder: Job, borrowed: bool) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._executor, self._run, batch, holder.run_batch, loop)
        except Exception:  # a bug of the line itself: said, never lost
            log.exception("a model batch failed outside its jobs")
        finally:
            self._held[holder.who] -= 1
            if not self._held[holder.who]:
                del self._held[holder.who]
            if borrowed:
                self._lent = False
            else:
                self._free += 1
            self._dispatch()

    def _settle(self, job: Job, entry: tuple[Any, Encoded] | None, error: BaseException | None) -> None:
        self._inflight.pop(job.key, None)
        if job.future.done():
            return
        if error is not None:
            job.future.set_exception(error)
            return
        self.computed += 1
        if _size(entry) <= self.store.maxsize:
            self.store[job.key] = entry
        job.future.set_result(entry)

    # ----- a batch (worker thread) -------------------------------------------------------------------------
    def _run(self, batch: list[Job], run_batch: RunBatch, loop: asyncio.AbstractEventLoop) -> None:
        with self.turns.running(job.who for job in batch):
            self._values(batch, run_batch, loop)

    def _values(self, batch: list[Job], run_batch: RunBatch, loop: asyncio.AbstractEventLoop) -> None:
        """Each value, encoded, handed back as `run_batch` yields it; if the batch fails, each job left is computed
        alone, so one bad job fails only itself."""
        done = 0
        try:
            for job, value in zip(batch, run_batch([job.work for job in batch]), strict=True):
                self.turns.wait_turn()  # its encoding waits for a person's batch too
                self._answer(job, loop, (value, job.encode(value)), None)
                done += 1
        except Exception as exc:  # noqa: BLE001 - every waiter gets an answer
            rest = batch[done:]
            for job in rest:
                if len(rest) > 1:
                    self._values([job], run_batch, loop)
                else:
                    self._answer(job, loop, None, exc)

    def _answer(self, job: Job, loop: asyncio.AbstractEventLoop, entry, error) -> None:
        self.turns.answered(job.who)
        try:
            loop.call_soon_threadsafe(self._settle, job, entry, error)
        except RuntimeError:  # its loop closed meanwhile (a shutdown): nobody waits for it
            pass


def _size(entry: tuple[Any, Encoded]) -> int:
    value, body = entry
    return body.size + getattr(value, "nbytes", 0)
