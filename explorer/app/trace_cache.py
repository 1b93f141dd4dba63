"""A bounded, shared cache of wire traces that batches the computations a class asks for at once.

A class opening the same example costs one decode, not sixty: the first request for a key computes it,
requests for the same key that arrive meanwhile wait for that one result, and later ones are answered
from memory without waiting for anything. Keys that miss queue their job by group (the model's
fingerprint); a request that gets one of `workers` model slots (so model work never oversubscribes the
cores) takes every job of its group waiting at that moment, up to `max_batch`, and computes them in one
batched call; each value leaves as it is ready (a batch's questions one by one), and the owners of the jobs a batch
took wait for those answers, not for a slot. Sixty students typing sixty sentences cost a few batched decodes, not
sixty decodes. A slot that frees goes to the waiting job of the lowest `priority` (a class's traces before the
questions about them), first come first served within one; a job that has waited `PATIENCE_S` per priority level goes
before those that came after that, so a steady stream of traces delays a question by at most that, never for good.
First come first served is fair between addresses (`who`, from `callers.ASKING`): each address's jobs take places
`JOB_S` apart, so a script's flood of a hundred jobs lines up behind itself, and a student on another address who
asks meanwhile goes before all but its first; a batch takes the jobs first in line. While batches run, a person's
computes first and a crowd's (a script, a hall behind its router) waits between its layers (`turns.Turns`, out of
one allowance); a person who finds every slot held by crowds borrows one beyond them, so a script's flood does not
make a student wait for the rest of its batch in flight.
Each value is kept with its JSON serialized and compressed once (`Encoded`, made by the caller's `encode`: a
decode keeps its typed trace for the questions and sends its wire form), so a hit sent over HTTP costs no
serialization. Entries are dropped least-recently-used beyond `max_bytes` (the JSON, plus the value's own
`nbytes` when it reports one); failures are never cached.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import threading
import time
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .callers import ASKING
from .encoded import Encoded
from .turns import Turns

DEFAULT_MAX_BYTES = 64 * 2**20
DEFAULT_MAX_BATCH = 32  # 100 new sentences at once: 4 batched decodes instead of 7 (bench/class_open.py)
PATIENCE_S = 5.0  # what a question yields to traces that came after it (a class's traces: ~1-2 s, class_open)
JOB_S = 0.05  # the place one job takes in its address's line: about what a job in a batch costs
RECENT_S = 3.0  # an address that asked this recently is still at the model (a student stepping through sentences)

log = logging.getLogger("explorer.trace_cache")
RunBatch = Callable[[list], Iterable[Any]]  # jobs -> one value per job, in order (a generator: each as it is ready)
Encode = Callable[[Any], Encoded]  # a value -> what is sent for it


@dataclass(eq=False)
class Waiter:
    """A job's owner in the line for a model slot."""

    place: float  # arrival, plus the patience of its priority
    ticket: int  # first come first served at one place
    gate: threading.Event = field(default_factory=threading.Event)  # opens when it leaves the line
    slot: bool = False  # handed a slot; else, once its gate is open, withdrawn: its job is in another's batch
    who: str = ""  # the address whose job it is
    loop: asyncio.AbstractEventLoop | None = None  # an event loop's waiter: `opened` resolves there
    opened: asyncio.Future | None = None

    def __lt__(self, other: Waiter) -> bool:
        return (self.place, self.ticket) < (other.place, other.ticket)

    def gone(self) -> bool:
        """An event loop's waiter whose loop has closed: nobody will take a slot it is handed."""
        return self.loop is not None and self.loop.is_closed()

    def open(self) -> None:
        """Out of the line (with a slot or withdrawn): its thread, or its event loop, goes on."""
        self.gate.set()
        if self.loop is not None:
            try:
                self.loop.call_soon_threadsafe(lambda: self.opened.done() or self.opened.set_result(None))
            except RuntimeError:  # its loop closed meanwhile (a shutdown): nobody waits for it
                pass


class Slots:
    """`n` model slots, handed out by priority (0 first), first come first served within one. A waiter's place is its
    arrival time plus `patience_s` per priority level: a question that has waited that long goes before the traces that
    came later, so none waits for good. A slot that frees goes straight to the first in line, whose own gate opens: no
    other waiter wakes. A waiter whose job another slot took into its batch is withdrawn from the line: it waits for
    that answer, not for a slot it would spend on other jobs.

    Fair between addresses (`who`): each address's jobs take places `job_s` apart (a flood lines up behind itself), and
    while more than one address is at the model (asking within `RECENT_S`), none holds more than `n - 1` slots: a
    student on another address finds one free, however much a script asks. One address alone (a lecture hall behind
    its router) uses all `n`. A person (`turns`) who finds every slot held by crowds' batches borrows one slot beyond
    `n` at once: their batches wait between their layers while its batch runs."""

    def __init__(
        self,
        n: int,
        patience_s: float = PATIENCE_S,
        clock: Callable[[], float] = time.monotonic,
        job_s: float = JOB_S,
        turns: Turns | None = None,
    ):
        self._n = self._free = n
        self.turns = turns or Turns()
        self._line: list[Waiter] = []  # a heap
        self._held: Counter[str] = Counter()  # slots held, by address
        self._tickets = itertools.count()
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}  # each address's next place in line
        self._asked: dict[str, float] = {}  # when each address last asked
        self.patience_s, self._clock, self.job_s = patience_s, clock, job_s

    def _may_hold(self, who: str) -> bool:
        """Whether `who` may take one more slot now (the lock held)."""
        recent = time.monotonic() - RECENT_S  # real time, whatever clock places the line
        others = any(w != who and t > recent for w, t in self._asked.items()) or any(w != who for w in self._held)
        return self._held[who] < (max(1, self._n - 1) if others else self._n)

    def _may_borrow(self, who: str) -> bool:
        """Whether `who` may take the one slot beyond `n` now (the lock held): every slot is held, none by `who`, none
        borrowed, and `who` is a person while every batch running is a crowd's (`Turns`: they wait for its own)."""
        return self._free == 0 and who not in self._held and self.turns.may_borrow(who)

    def holders(self) -> set[str]:
        """The addresses holding a slot now."""
        with self._lock:
            return set(self._held)

    def _hand(self, waiter: Waiter) -> None:
        self._free -= 1
        self._held[waiter.who] += 1
        waiter.slot = True
        waiter.open()

    def join(self, priority: int = 0, who: str = "", loop: asyncio.AbstractEventLoop | None = None) -> Waiter:
        """In line for a slot (`who`: the address asking; `loop`: an event loop's waiter, which awaits `opened`), or
        handed a free one at once."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next.get(who, now))  # behind this address's own earlier jobs, not everyone's
            self._next[who] = start + self.job_s
            self._asked[who] = time.monotonic()
            if len(self._next) > 4096:  # addresses whose line is behind them hold no place
                self._next = {k: v for k, v in self._next.items() if v > now}
                self._asked = {k: v for k, v in self._asked.items() if v > time.monotonic() - RECENT_S}
            waiter = Waiter(start + priority * self.patience_s, next(self._tickets), who=who, loop=loop)
            if loop is not None:
                waiter.opened = loop.create_future()
            if self._free > 0 and not self._line and self._may_hold(who):
                self._hand(waiter)
            elif self._may_borrow(who):
                self._hand(waiter)  # one slot beyond `n`: the crowds' batches wait between their layers
            else:
                heapq.heappush(self._line, waiter)
                self._hand_free()
        return waiter

    def wait(self, waiter: Waiter) -> bool:
        """Until `waiter` is handed a slot (True: `give` it back) or withdrawn (False)."""
        try:
            waiter.gate.wait()
        except BaseException:  # interrupted while waiting: out of the line, or the slot it was handed given on
            self.withdraw(waiter)
            if waiter.slot:
                self.give(waiter.who)
            raise
        return waiter.slot

    def withdraw(self, waiter: Waiter) -> None:
        """Out of the line without a slot; one already handed a slot keeps it."""
        with self._lock:
            if not waiter.gate.is_set():
                self._line.remove(waiter)
                heapq.heapify(self._line)
                waiter.open()
                self._hand_free()

    def give(self, who: str = "") -> None:
        """A slot of `who`'s back: to the first in line that may hold one, else free; the slot beyond `n`, to the first
        person in line who may borrow it."""
        with self._lock:
            self._held[who] -= 1
            if self._held[who] <= 0:
                del self._held[who]
            self._free += 1
            lent = self._free == 0  # every slot held again: one had been lent
            self._hand_free()
            if lent:
                people = [w for w in self._line if not w.gone() and self._may_borrow(w.who)]
                if people:
                    self._line.remove(first := min(people))
                    heapq.heapify(self._line)
                    self._hand(first)

    def _hand_free(self) -> None:
        """Free slots to the first in line that may hold them (the lock held)."""
        skipped = []
        while self._free > 0 and self._line:
            waiter = heapq.heappop(self._line)
            if waiter.gone():
                waiter.gate.set()  # out of the line, handed nothing
            elif self._may_hold(waiter.who):
                self._hand(waiter)
            else:
                skipped.append(waiter)
        for waiter in skipped:
            heapq.heappush(self._line, waiter)


Job = tuple[Hashable, object, Future, Encode, Waiter]  # key, job, its future, how its value is sent, its owner


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
        self._waiting: dict[Hashable, list[Job]] = defaultdict(list)
        self._lock = threading.Lock()
        self.turns = Turns()  # which running batch computes: `watch` a served model
        self._slots = Slots(self.workers, turns=self.turns)
        # the slot holders' batches, and one borrowed slot's (`Slots`)
        self._executor = ThreadPoolExecutor(self.workers + 1, thread_name_prefix="model")
        self._owning: set[asyncio.Future] = set()
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
        entry, future, owner = self._find(key)
        if entry is not None:
            return entry
        if owner:
            waiter = self._line_up((key, job, future, encode), group, priority)
            if self._slots.wait(waiter):  # a slot: this job, unless another slot took it, and those waiting with it
                self._hold(group, waiter, run_batch)
        return future.result()

    async def aentry(
        self,
        key: Hashable,
        job,
        run_batch: RunBatch,
        group: Hashable = None,
        encode: Encode = Encoded.json,
        priority: int = 0,
    ) -> tuple[Any, Encoded]:
        """`entry` for an event loop: the wait for a slot is in the line, not in a parked thread; only a slot's batch
        runs in a thread (one of `workers`). An owner whose request goes away still computes its job (others may
        be waiting for the same key, and it is cached)."""
        entry, future, owner = self._find(key)
        if entry is not None:
            return entry
        if owner:
            loop = asyncio.get_running_loop()
            waiter = self._line_up((key, job, future, encode), group, priority, loop)
            if waiter.slot:  # a free slot at once: the batch runs now (shielded: a request that goes away leaves it)
                await asyncio.shield(loop.run_in_executor(self._executor, self._hold, group, waiter, run_batch))
            else:

                async def own():
                    await waiter.opened
                    if waiter.slot:
                        await loop.run_in_executor(self._executor, self._hold, group, waiter, run_batch)

                task = asyncio.ensure_future(own())
                self._owning.add(task)  # kept until done: a request that goes away does not take its job with it
                task.add_done_callback(self._owned)
        if future.done():  # computed already (this request's own batch): no hop through the loop for it
            return future.result()
        return await asyncio.wrap_future(future)

    def _line_up(self, item: tuple, group: Hashable, priority: int, loop=None) -> Waiter:
        """An owner's job in its group's waiting list, and the owner in line for a slot as the address asking."""
        who = ASKING.get()
        self.turns.asked(who)  # before it joins the line: its load says whether it may borrow a slot
        waiter = self._slots.join(priority, who, loop)
        with self._lock:
            self._waiting[group].append((*item, waiter))
        return waiter

    def _owned(self, task: asyncio.Future) -> None:
        self._owning.discard(task)
        if not task.cancelled() and task.exception() is not None:  # a bug in the line itself: said, never lost
            log.error("a model slot's batch failed", exc_info=task.exception())

    def _find(self, key: Hashable) -> tuple[tuple[Any, Encoded] | None, Future | None, bool]:
        """(the cached entry, None, False) on a hit; else (None, the key's future, whether this caller owns its job:
        nobody was computing it)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry, None, False
            future = self._inflight.get(key)
            if future is not None:
                return None, future, False
            future = self._inflight[key] = Future()
            future.set_running_or_notify_cancel()  # shared by every asker: one going away cannot cancel it for all
            return None, future, True

    def _hold(self, group: Hashable, waiter: Waiter, run_batch: RunBatch) -> None:
        """With a slot: take the jobs first in line of `group` (by their owners' places; `waiter`'s own among them
        unless another slot took it): every job of `waiter`'s address, and the first of each other address's that holds
        no slot, so a script's flood never rides in a student's batch, and a class still batches whole.
        Run them as one batch, and give the slot back."""
        try:
            with self._lock:
                waiting = self._waiting[group]
                waiting.sort(key=lambda job: job[4])
                busy = self._slots.holders()
                own = [job for job in waiting if job[4] is waiter]  # the holder's own job first, always
                batch, seen = own[:], {waiter.who}
                for job in waiting:  # the holder's address's jobs, and the first of each other one not at the model
                    who = job[4].who
                    if job in own or len(batch) >= self.max_batch:
                        continue
                    if who == waiter.who or (who not in seen and who not in busy):
                        batch.append(job)
                        seen.add(who)
                batch.sort(key=lambda job: job[4])  # computed in the order of the line
                taken = {id(job) for job in batch}
                waiting[:] = [job for job in waiting if id(job) not in taken]
            for *_, other in batch:  # their owners wait for these answers, not for a slot
                if other is not waiter:
                    self._slots.withdraw(other)
            if batch:
                with self.turns.running(job[4].who for job in batch):
                    self._run(batch, run_batch)
        finally:
            self._slots.give(waiter.who)

    def _run(self, batch: list[Job], run_batch: RunBatch) -> None:
        """Each value is stored and handed to its waiters as `run_batch` yields it: questions, computed one after
        another, leave one by one; a batched decode's traces all at once."""
        done = 0
        try:
            for item, value in zip(batch, run_batch([job for _, job, *_ in batch]), strict=True):
                self.turns.wait_turn()  # its encoding waits for a person's batch too
                self._settle(item, value, None)
                done += 1
        except BaseException as exc:  # noqa: BLE001 - every waiter gets an answer
            rest = batch[done:]
            if len(rest) > 1 and isinstance(exc, Exception):  # one bad job must not fail the others
                for item in rest:
                    self._run([item], run_batch)
                return
            for item in rest:
                self._settle(item, None, exc)
        with self._lock:
            self.batches += 1

    def _settle(self, item: Job, value, exc: BaseException | None) -> None:
        """One job's outcome: its value kept and given to its waiters, or its error given to them (never kept)."""
        key, _, future, encode, owner = item
        body = encode(value) if exc is None else None  # if it fails, nothing is settled yet: `_run` settles it again
        with self._lock:
            self._inflight.pop(key, None)
            if exc is None:
                self.computed += 1
                self._store(key, (value, body))
        if exc is None:
            future.set_result((value, body))
        else:
            future.set_exception(exc)
        self.turns.answered(owner.who)

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
