"""Issue 51: a script's flood stops between its layers while a student's batch runs (`explorer/app/turns.py`), and a
student who finds every model slot held by the flood borrows one (`explorer/app/trace_cache.py`)."""

from __future__ import annotations

import threading
import time

import torch

from explorer.app.callers import ASKING
from explorer.app.trace_cache import TraceCache
from explorer.app.turns import Turns
from explorer.model.transformer import pad_batch


class Layers:
    """A thread that runs `model.encode` inside a batch of `who`'s (or outside any batch) and notes each layer it
    enters; `done` is set when the encode returns."""

    def __init__(self, turns: Turns, model, who: str | None):
        self.entered, self.done = [], threading.Event()
        for i, layer in enumerate(model.encoder.layers):  # after the turn's hook: a layer noted is a layer computing
            layer.register_forward_pre_hook(lambda *_, i=i: self.entered.append(i))
        self.thread = threading.Thread(target=self.run, args=(turns, model, who))
        self.thread.start()

    def run(self, turns, model, who):
        with torch.no_grad():
            if who is None:
                model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
            else:
                with turns.running(who):
                    model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
        self.done.set()


class Held:
    """A batch of `who`'s held open in a thread of its own until `release`."""

    def __init__(self, turns: Turns, who: str):
        self.gate, self.started = threading.Event(), threading.Event()

        def hold():
            with turns.running(who):
                self.started.set()
                self.gate.wait(10)

        self.thread = threading.Thread(target=hold)
        self.thread.start()
        assert self.started.wait(5)

    def release(self):
        self.gate.set()
        self.thread.join(5)


def loaded(turns: Turns, **jobs: int) -> Turns:
    for who, n in jobs.items():
        for _ in range(n):
            turns.asked(who)
    return turns


def test_a_heavier_addresss_batch_waits_between_its_layers_while_a_lighter_ones_runs(tiny_model):
    turns = loaded(Turns(), script=30, student=1)
    turns.watch(tiny_model)
    student = Held(turns, "student")
    script = Layers(turns, tiny_model, "script")
    assert not script.done.wait(0.5) and script.entered == []  # stopped before its first layer
    student.release()
    assert script.done.wait(5) and script.entered == [0, 1]


def test_a_batch_stops_at_the_next_layer_not_the_end_of_its_batch(tiny_model):
    """The student arrives while the script's batch is between its layers: the script computes no further layer."""
    turns = loaded(Turns(), script=30, student=1)
    turns.watch(tiny_model)
    gate = threading.Event()

    def inside_layer_0(*_):  # the script's batch, between its layers 0 and 1 until the student has come
        gate.wait(5)

    tiny_model.encoder.layers[0].register_forward_hook(inside_layer_0)
    script = Layers(turns, tiny_model, "script")
    time.sleep(0.2)
    student = Held(turns, "student")
    gate.set()
    assert not script.done.wait(0.5) and script.entered == [0]  # layer 1 waits for the student's batch
    student.release()
    assert script.done.wait(5) and script.entered == [0, 1]


def test_addresses_of_equal_load_and_threads_outside_a_batch_compute_side_by_side(tiny_model):
    turns = loaded(Turns(), student=1, classmate=1, script=30)
    turns.watch(tiny_model)
    student = Held(turns, "student")
    try:
        assert Layers(turns, tiny_model, "classmate").done.wait(5)  # as light as the student: never waits
        assert Layers(turns, tiny_model, None).done.wait(5)  # training, a test: not a batch, never waits
        assert Layers(turns, tiny_model, "student").done.wait(5)  # its own address's second batch
    finally:
        student.release()


def test_a_batch_waits_its_yield_at_most_so_a_heavy_class_is_not_held_for_good(tiny_model):
    turns = loaded(Turns(yield_s=0.3), hall=30, student=1)
    turns.watch(tiny_model)
    student = Held(turns, "student")
    t0 = time.monotonic()
    hall = Layers(turns, tiny_model, "hall")
    try:
        assert hall.done.wait(5) and 0.25 < time.monotonic() - t0 < 3  # the student still runs
    finally:
        student.release()


def test_a_load_is_the_jobs_asked_and_not_answered():
    turns = loaded(Turns(), script=3, student=1)
    assert turns.lighter("student", {"script"}) and not turns.lighter("script", {"student"})
    for _ in range(3):
        turns.answered("script")
    assert not turns.lighter("student", {"script"}) and turns._load == {"student": 1}
    turns.answered("student")
    assert turns._load == {}


class Line:
    """A cache with `workers` model slots; a batch with `held` in it runs until `release`, any other encodes a sentence
    with `model` when one is given (its served model). Jobs are asked from addresses, each in a thread (`ASKING` as
    the API sets it), 50 ms apart; `batches` as they ran, `answered` by key."""

    def __init__(self, held: str, workers: int = 1, model=None):
        self.cache, self.gate, self.held, self.model = TraceCache(workers=workers), threading.Event(), held, model
        self.batches, self.answered, self.threads = [], {}, []
        if model is not None:
            self.cache.turns.watch(model)

    def run(self, jobs):
        if self.held in jobs:
            self.gate.wait(10)
        elif self.model is not None:
            time.sleep(0.2)  # its first layer after the jobs asked meanwhile: the script's load is all of them
            with torch.no_grad():
                self.model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
        self.batches.append(list(jobs))
        return [{"key": job} for job in jobs]

    def ask(self, key: str, address: str) -> threading.Thread:
        def asking():
            ASKING.set(address)
            self.answered[key] = self.cache.get(key, key, self.run, group="model")

        self.threads.append(threading.Thread(target=asking))
        self.threads[-1].start()
        time.sleep(0.05)
        return self.threads[-1]

    def release(self) -> None:
        self.gate.set()
        for t in self.threads:
            t.join(10)
        assert not self.cache._inflight and self.cache.turns._load == {}  # every job answered, every load back to 0


def test_a_student_borrows_a_slot_from_a_flood_holding_them_all():
    """One slot, held by a script's batch that does not finish; the script has more jobs waiting. A student on another
    address is answered at once (a slot beyond the one), not after the script's batch."""
    line = Line(held="flood 0")
    for n in range(4):
        line.ask(f"flood {n}", "10.0.0.66")
    line.ask("student", "10.0.0.7").join(5)
    try:
        assert line.answered.get("student") == {"key": "student"} and line.batches == [["student"]]
        assert "flood 0" not in line.answered  # the flood's batch still runs
    finally:
        line.release()
    assert len(line.answered) == 5


def test_a_student_as_heavy_as_the_holder_waits_in_line_as_before():
    """No slot is borrowed by an address that has asked as much as the holder: it waits for the slot."""
    line = Line(held="held")
    line.ask("held", "10.0.0.1")
    line.ask("student", "10.0.0.7")
    time.sleep(0.3)
    try:
        assert line.batches == []  # waiting for the one slot
    finally:
        line.release()
    assert line.batches == [["held"], ["student"]]


def test_the_caches_batches_take_turns_a_floods_batch_waits_for_a_students_in_the_other_slot(tiny_model):
    """Two slots: a student's batch holds one (until released); a script with three jobs asked gets the other, and its
    batch stops before the model's first layer until the student's is done."""
    line = Line(held="student", workers=2, model=tiny_model)
    line.ask("student", "10.0.0.7")
    for n in range(3):
        line.ask(f"flood {n}", "10.0.0.66")
    time.sleep(0.5)
    try:
        assert line.batches == [] and line.answered == {}  # the flood's batch waits at its first layer
    finally:
        line.release()
    assert line.batches[0] == ["student"] and len(line.answered) == 4
