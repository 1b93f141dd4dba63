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


def test_a_student_borrows_a_slot_from_a_flood_holding_them_all():
    """One slot, held by a script's batch that does not finish; the script has more jobs waiting. A student on another
    address is answered at once (a slot beyond the one), not after the script's batch."""
    cache, gate, batches = TraceCache(workers=1), threading.Event(), []

    def run(jobs):
        if "flood 0" in jobs:
            gate.wait(10)
        batches.append(list(jobs))
        return [{"key": job} for job in jobs]

    answered = {}

    def ask(key, address):
        ASKING.set(address)
        answered[key] = cache.get(key, key, run, group="model")

    threads = [threading.Thread(target=ask, args=(f"flood {n}", "10.0.0.66")) for n in range(4)]
    for t in threads:
        t.start()
        time.sleep(0.05)
    threads.append(threading.Thread(target=ask, args=("student", "10.0.0.7")))
    threads[-1].start()
    threads[-1].join(5)
    try:
        assert answered.get("student") == {"key": "student"} and batches == [["student"]]
        assert not gate.is_set() and "flood 0" not in answered  # the flood's batch still runs
    finally:
        gate.set()
        for t in threads:
            t.join(10)
    assert len(answered) == 5 and not cache._inflight and cache.turns._load == {}


def test_a_student_as_heavy_as_the_holder_waits_in_line_as_before():
    """No slot is borrowed by an address that has asked as much as the holder: it waits for the slot."""
    cache, gate, batches = TraceCache(workers=1), threading.Event(), []

    def run(jobs):
        if "held" in jobs:
            gate.wait(10)
        batches.append(list(jobs))
        return [{"key": job} for job in jobs]

    def ask(key, address):
        ASKING.set(address)
        cache.entry(key, key, run, group="model")

    threads = [threading.Thread(target=ask, args=("held", "10.0.0.1"))]
    threads[0].start()
    time.sleep(0.1)
    threads.append(threading.Thread(target=ask, args=("student", "10.0.0.7")))
    threads[-1].start()
    time.sleep(0.3)
    assert batches == []  # waiting for the one slot
    gate.set()
    for t in threads:
        t.join(10)
    assert batches == [["held"], ["student"]] and cache.turns._load == {}
