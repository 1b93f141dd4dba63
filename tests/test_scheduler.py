"""The model line (`explorer/app/scheduler.py`): computed once, batched, fair between addresses, people before crowds.

No test here sleeps. The line takes a fake clock, so places in line are set, not raced for; a batch that must hold
a slot waits on a `threading.Event` the test sets; `one_step()` lets the tasks already created take their first
step (an `aentry` joins the line synchronously in it). Assertions read the line's public counters.
"""

from __future__ import annotations

import asyncio
import threading
import types

import pytest

from explorer.app.callers import Caller
from explorer.app.encoded import Encoded
from explorer.app.scheduler import Scheduler, available_cpus
from explorer.app.turns import ONE_PERSON, Allowance, Turns
from explorer.errors import UserError

CROWD = ONE_PERSON + 1  # jobs asked and not answered: a script, or a hall behind its router
# what any event is waited for at most: a failing test fails, it never hangs (5 s ran out once on a loaded machine)
WAIT_S = 15


@types.coroutine
def one_step():
    """Let every task already created run until it first waits (what `asyncio.sleep(0)` does, with no timer)."""
    yield


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Model:
    """A stand-in for a model's `run_batch`: notes its batches (and how many run at once); a batch with a job named in
    `held` waits until that job is released; `started` is set when a batch begins."""

    def __init__(self, *held: str):
        self.gates = {job: threading.Event() for job in held}
        self.batches, self.running, self.peak = [], 0, 0
        self.started, self.lock = threading.Event(), threading.Lock()

    def __call__(self, jobs):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.batches.append(list(jobs))
        self.started.set()
        for job in jobs:
            if job in self.gates:
                assert self.gates[job].wait(WAIT_S)
        with self.lock:
            self.running -= 1
        if "bad" in jobs:
            raise UserError("bad job")
        return [{"key": job} for job in jobs]

    def release(self, *jobs: str) -> None:
        """Let the batches holding `jobs` (all held jobs when none is named) end."""
        for job in jobs or self.gates:
            self.gates[job].set()


class Line:
    """A scheduler on a fake clock and the tasks asked of it: `ask` creates one and lets it join the line."""

    def __init__(self, model: Model, **options):
        self.clock = Clock()
        self.scheduler = Scheduler(clock=self.clock, **options)
        self.model, self.tasks = model, {}

    async def ask(self, key: str, address: str = "10.0.0.1", priority: int = 0, at: float | None = None, **kw):
        if at is not None:
            self.clock.now = at
        run = kw.pop("run_batch", self.model)
        group = kw.pop("group", "model")
        coro = self.scheduler.aentry(key, key, run, Caller(address, None), group=group, priority=priority, **kw)
        self.tasks[key] = asyncio.ensure_future(coro, loop=None)
        await one_step()
        return self.tasks[key]

    async def answers(self) -> dict:
        """Every answer asked, once each batch that made them has freed its slot too."""
        done = await asyncio.wait_for(asyncio.gather(*self.tasks.values(), return_exceptions=True), WAIT_S)
        await asyncio.wait_for(self.scheduler.idle(), WAIT_S)
        return dict(zip(self.tasks, done))


async def started(model: Model) -> None:
    assert await asyncio.to_thread(model.started.wait, WAIT_S)
    model.started.clear()


def test_each_key_is_computed_once_what_waits_is_batched_and_at_most_workers_batches_run():
    async def scenario():
        line = Line(Model(), workers=2, max_batch=16)
        keys = [str(i % 25) for i in range(60)]  # 60 students, 25 different sentences
        tasks = [asyncio.ensure_future(line.scheduler.aentry(k, k, line.model, Caller("10.0.0.1", None))) for k in keys]
        values = await asyncio.wait_for(asyncio.gather(*tasks), WAIT_S)
        assert [v for v, _ in values] == [{"key": k} for k in keys]
        assert sorted(sum(line.model.batches, []), key=int) == [str(i) for i in range(25)]  # each key once
        assert line.model.peak <= 2 and all(len(b) <= 16 for b in line.model.batches)
        assert len(line.model.batches) < 25  # what waited for a slot was decoded together
        hits = line.scheduler.hits
        assert (await line.scheduler.aentry("3", "3", Model(), Caller("x", None)))[0] == {"key": "3"}
        assert line.scheduler.hits == hits + 1 and line.scheduler.computed == 25 and line.scheduler.computing() == 0

    asyncio.run(scenario())


def test_jobs_that_wait_while_the_slots_are_held_go_in_one_batch():
    async def scenario():
        line = Line(Model("x", "y"), workers=2)
        await line.ask("x", group="other")
        await line.ask("y", group="other")
        await line.ask("a")
        await line.ask("b")
        assert line.scheduler.waiting() == 2
        line.model.release()
        assert await line.answers() == {k: ({"key": k}, Encoded.json({"key": k})) for k in "xyab"}
        assert line.model.batches[2:] == [["a", "b"]]

    asyncio.run(scenario())


def test_an_answer_reaches_its_asker_while_the_rest_of_its_batch_is_computed():
    """Questions are computed one after another in their batch: the second's asker has its answer before the third is
    computed (the third waits in its thread until the test has seen the second's answer)."""
    second_back, computed = threading.Event(), []

    def one_by_one(jobs):
        for job in jobs:
            if job == "third":
                assert second_back.wait(WAIT_S)
            computed.append(job)
            yield {"key": job}

    async def scenario():
        line = Line(Model("held"), workers=1)
        await line.ask("held", group="other")
        for key in ("first", "second", "third"):
            await line.ask(key, run_batch=one_by_one, group="questions")
        line.model.release()
        await asyncio.wait_for(line.tasks["second"], WAIT_S)
        assert not line.tasks["third"].done() and computed == ["first", "second"]
        second_back.set()
        await line.answers()
        assert computed == ["first", "second", "third"] and line.scheduler.batches == 2

    asyncio.run(scenario())


def test_a_free_slot_goes_to_a_waiting_trace_before_a_waiting_question():
    async def scenario():
        line, order = Line(Model("held"), workers=1), []

        def noting(jobs):
            order.extend(jobs)
            return [{"key": job} for job in jobs]

        await line.ask("held", group="held")
        await line.ask("question", "10.0.0.2", priority=1, run_batch=noting, group="q")
        await line.ask("trace 1", "10.0.0.3", run_batch=noting, group="t1")
        await line.ask("trace 2", "10.0.0.4", run_batch=noting, group="t2")
        line.model.release()
        await line.answers()
        assert order == ["trace 1", "trace 2", "question"]

    asyncio.run(scenario())


def test_a_question_that_has_waited_its_patience_goes_before_traces_that_came_later():
    """Traces first for `patience_s` only: a question at t=0, a trace at t=1 (within its 5 s), one at t=6 (after)."""

    async def scenario():
        line, order = Line(Model("held"), workers=1, patience_s=5.0), []

        def noting(jobs):
            order.extend(jobs)
            return [{"key": job} for job in jobs]

        await line.ask("held", group="held", at=0.0)
        await line.ask("question", "10.0.0.2", priority=1, run_batch=noting, group="q", at=0.0)
        await line.ask("early trace", "10.0.0.3", run_batch=noting, group="t1", at=1.0)
        await line.ask("late trace", "10.0.0.4", run_batch=noting, group="t2", at=6.0)
        line.model.release()
        await line.answers()
        assert order == ["early trace", "question", "late trace"]

    asyncio.run(scenario())


def test_a_flood_waits_behind_itself_and_a_student_rides_in_its_first_batch():
    """Each address's jobs take places `job_s` apart: a student who asks after a script's twelve jobs goes in the
    first batch after the held one, with the flood's first jobs."""

    async def scenario():
        line = Line(Model("held"), workers=1, max_batch=4, job_s=1.0)
        await line.ask("held", "10.0.0.1")
        for n in range(12):
            await line.ask(f"flood {n}", "10.0.0.66")
        await line.ask("student", "10.0.0.7")
        line.model.release()
        await line.answers()
        first = line.model.batches[1]
        assert "student" in first and len(first) == 4, line.model.batches
        assert sum(map(len, line.model.batches)) == 14 and line.scheduler.computing() == 0

    asyncio.run(scenario())


def test_a_slot_holders_own_job_is_always_in_its_batch():
    async def scenario():
        line = Line(Model("held"), workers=1, max_batch=2, job_s=10.0)
        await line.ask("held", "10.0.0.1")
        for key, address in (("flood 0", "10.0.0.66"), ("flood 1", "10.0.0.66"), ("a", "10.0.0.7"), ("b", "10.0.0.8")):
            await line.ask(key, address)
        line.model.release()
        answers = await line.answers()
        assert all(value[0] == {"key": key} for key, value in answers.items()) and line.scheduler.computing() == 0
        assert sorted(sum(line.model.batches, [])) == sorted(["held", "flood 0", "flood 1", "a", "b"])

    asyncio.run(scenario())


def test_one_address_alone_uses_every_slot_and_two_leave_each_other_one():
    async def scenario():
        line = Line(Model("a", "b", "c"), workers=2)
        line.model.release("a", "b")
        await line.ask("a", "10.0.0.1", group="a")
        await line.ask("b", "10.0.0.1", group="b")
        assert line.scheduler.holders() == {"10.0.0.1": 2}  # alone at the model: both slots
        await line.answers()
        await line.ask("c", "10.0.0.2", group="c")  # a second address asked within RECENT_S
        await line.ask("d", "10.0.0.2", group="d")
        assert line.scheduler.holders() == {"10.0.0.2": 1} and line.scheduler.waiting() == 1
        line.model.release()
        await line.answers()

    asyncio.run(scenario())


def test_one_bad_job_fails_alone_and_failures_are_not_kept():
    async def scenario():
        line = Line(Model("held"), workers=1)
        await line.ask("held", group="other")
        for key in ("a", "bad", "c"):
            await line.ask(key)
        line.model.release()
        answers = await line.answers()
        assert str(answers["bad"]) == "bad job" and answers["a"][0] == {"key": "a"} and answers["c"][0] == {"key": "c"}
        assert line.scheduler.peek("bad") is None and line.scheduler.computing() == 0
        value, _ = await line.scheduler.aentry("bad", "fine", Model(), Caller("x", None))
        assert value == {"key": "fine"}  # asked again: computed again

    asyncio.run(scenario())


def test_the_store_is_bounded_in_bytes():
    async def scenario():
        scheduler = Scheduler(max_bytes=100)
        for i in range(10):
            await scheduler.aentry(i, i, lambda jobs: [{"v": "x" * 30} for _ in jobs], Caller("x", None))
        assert scheduler.store.currsize <= 100 and len(scheduler.store) < 10
        assert scheduler.peek(9) is not None and scheduler.peek(0) is None

    asyncio.run(scenario())


def test_a_call_without_a_caller_is_a_programming_error():
    async def scenario():
        with pytest.raises(TypeError, match="needs the Caller"):
            await Scheduler().aentry("k", "k", Model(), "10.0.0.1")
        with pytest.raises(TypeError):
            await Scheduler().aentry("k", "k", Model())  # type: ignore[call-arg]

    asyncio.run(scenario())


def test_a_student_borrows_a_slot_from_a_flood_holding_them_all_and_passes_it_to_the_next_person():
    """One slot, held by a script's batch; the script has a crowd's jobs asked. A student on another address is
    answered at once, on the slot beyond the one; a second student waits for that slot, not for the flood."""

    async def scenario():
        line = Line(Model("flood 0", "first"), workers=1)
        for n in range(CROWD):
            await line.ask(f"flood {n}", "10.0.0.66")
        await started(line.model)
        await line.ask("first", "10.0.0.7")
        await started(line.model)
        assert line.model.batches == [["flood 0"], ["first"]]  # borrowed: the flood's batch still runs
        await line.ask("second", "10.0.0.8")
        assert line.scheduler.waiting() == CROWD  # the flood's four and the second student: the one borrowed is held
        line.model.release("first")  # the first student's batch ends; the flood's still runs
        await asyncio.wait_for(line.tasks["second"], WAIT_S)
        assert line.model.batches[2] == ["second"] and not line.tasks["flood 0"].done()
        line.model.release()
        answers = await line.answers()
        assert all(value[0] == {"key": key} for key, value in answers.items()) and line.scheduler.turns.load() == {}

    asyncio.run(scenario())


def test_a_student_borrows_no_slot_from_a_person_and_waits_in_line():
    async def scenario():
        line = Line(Model("held"), workers=1)
        await line.ask("held", "10.0.0.1")
        await started(line.model)
        await line.ask("student", "10.0.0.7")
        assert line.scheduler.waiting() == 1 and line.model.batches == [["held"]]
        line.model.release()
        await line.answers()
        assert line.model.batches == [["held"], ["student"]]

    asyncio.run(scenario())


class Noted(Allowance):
    """An allowance that says when a crowd's batch begins to wait for a person's."""

    def __init__(self):
        super().__init__(stretch_s=30)
        self.waits = threading.Event()

    def begin(self):
        super().begin()
        self.waits.set()


def test_a_floods_batch_waits_between_its_layers_for_a_students_batch_in_the_other_slot(tiny_model):
    async def scenario():
        allowance = Noted()
        line = Line(Model("student"), workers=2, turns=Turns(allowance))
        line.scheduler.turns.watch(tiny_model)
        encoded = []

        def flood(jobs):
            import torch

            from explorer.model.transformer import pad_batch

            with torch.no_grad():
                tiny_model.encode(pad_batch([[5, 6, 7, 2]]))
            encoded.append(list(jobs))
            return [{"key": job} for job in jobs]

        await line.ask("student", "10.0.0.7", group="s")
        await started(line.model)
        for n in range(CROWD):
            await line.ask(f"flood {n}", "10.0.0.66", run_batch=flood)
        assert await asyncio.to_thread(allowance.waits.wait, WAIT_S)  # at its first layer, not computing
        assert encoded == []
        line.model.release()
        await line.answers()
        assert len(sum(encoded, [])) == CROWD and line.scheduler.turns.load() == {}

    asyncio.run(scenario())


def test_a_job_whose_answer_fails_to_encode_is_answered_once():
    def unsendable(value) -> Encoded:
        raise ValueError("cannot encode this")

    async def scenario():
        scheduler = Scheduler(workers=1)
        scheduler.turns.asked("10.0.0.7")  # the address's other job, not answered yet
        with pytest.raises(ValueError, match="cannot encode this"):
            await scheduler.aentry("odd", "odd", Model(), Caller("10.0.0.7", None), encode=unsendable)
        assert scheduler.turns.load() == {"10.0.0.7": 1} and scheduler.computing() == 0

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "files, cpus",
    [
        ({"cpu.max": "200000 100000\n"}, 2),  # cgroup v2: a quota of 2 CPUs
        ({"cpu.max": "150000 100000\n"}, 2),  # 1.5 CPUs: rounded up
        ({"cpu.max": "50000 100000\n"}, 1),
        ({"cpu.max": "max 100000\n"}, None),  # no quota: the affinity
        ({"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),  # cgroup v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
        ({"cpu.max": "garbage"}, None),
        ({}, None),
    ],
)
def test_the_slots_are_the_cpus_this_process_may_use(tmp_path, files, cpus):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    affinity = len(__import__("os").sched_getaffinity(0))
    assert available_cpus(tmp_path) == (min(cpus, affinity) if cpus else affinity)
    assert Scheduler(workers=3).workers == 3


def test_a_flood_of_npz_downloads_holds_the_line_and_a_victims_trace_is_answered_beside_it(mini_handle, monkeypatch):
    """Issue 67: /npz computed its logit lens beside the line, where nothing could put a victim first. Through the
    API: a script's downloads (a crowd's worth) from one address hold the one slot (their lens batch waits for the
    test); a student's trace from another address is answered meanwhile, on the slot a person borrows from a crowd."""
    import httpx
    from starlette.applications import Starlette

    from explorer.app import http_api
    from explorer.app.models import ModelRegistry
    from explorer.app.questions import lens

    in_lens, gate, real = threading.Event(), threading.Event(), lens.trace_lens

    def held_lens(*args):
        in_lens.set()
        assert gate.wait(WAIT_S)
        return real(*args)

    monkeypatch.setattr(lens, "trace_lens", held_lens)
    app = Starlette(routes=http_api.routes(ModelRegistry(mini_handle, Scheduler(workers=1))))

    def at(address: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app, client=(address, 5000)), base_url="http://t/ae/api")

    async def scenario():
        async with at("10.0.0.66") as script, at("10.0.0.7") as student:
            flood = [
                asyncio.ensure_future(script.get("/npz", params={"sentence": f"I see the sea {n}.", "step": "1"}))
                for n in range(CROWD)
            ]
            assert await asyncio.to_thread(in_lens.wait, WAIT_S)  # the flood's lens batch holds the one slot
            trace = await asyncio.wait_for(student.get("/trace", params={"sentence": "The cat sees the dog."}), WAIT_S)
            assert trace.status_code == 200 and not any(f.done() for f in flood)
            gate.set()
            answers = await asyncio.wait_for(asyncio.gather(*flood), WAIT_S)
            assert all(a.status_code == 200 and a.content.startswith(b"PK") for a in answers)

    asyncio.run(scenario())
