"""Issue 51: a script's flood stops between its layers while a student's batch runs (`explorer/app/turns.py`); how
the model line hands out slots, the borrowed one included, is `tests/test_scheduler.py`'s."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from explorer.app.turns import ONE_PERSON, Allowance, Turns
from explorer.model.transformer import pad_batch

CROWD = ONE_PERSON + 1  # jobs asked and not answered: a script, or a hall behind its router


class Layers:
    """A thread that runs `model.encode` inside a batch of jobs of the addresses `whose` (None: outside any batch) and
    notes each layer it enters; `done` is set when the encode returns."""

    def __init__(self, turns: Turns, model, whose: list[str] | None):
        self.entered, self.done, self.in_layer = [], threading.Event(), threading.Event()
        for i, layer in enumerate(model.encoder.layers):  # after the turn's hook: a layer noted is a layer computing
            layer.register_forward_pre_hook(lambda *_, i=i: self.entered.append(i) or self.in_layer.set())
        self.thread = threading.Thread(target=self.run, args=(turns, model, whose))
        self.thread.start()

    def run(self, turns, model, whose):
        with torch.no_grad():
            if whose is None:
                model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
            else:
                with turns.running(whose):
                    model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
        self.done.set()


class Held:
    """A batch of jobs of the addresses `whose` held open in a thread of its own until `release`."""

    def __init__(self, turns: Turns, whose: list[str]):
        self.gate, self.started = threading.Event(), threading.Event()

        def hold():
            with turns.running(whose):
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


def test_a_crowds_batch_waits_between_its_layers_while_a_persons_runs(tiny_model):
    turns = loaded(Turns(), script=30, student=1)
    turns.watch(tiny_model)
    student = Held(turns, ["student"])
    script = Layers(turns, tiny_model, ["script"])
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
    script = Layers(turns, tiny_model, ["script"])
    assert script.in_layer.wait(5)
    student = Held(turns, ["student"])
    gate.set()
    assert not script.done.wait(0.5) and script.entered == [0]  # layer 1 waits for the student's batch
    student.release()
    assert script.done.wait(5) and script.entered == [0, 1]


@pytest.mark.parametrize(
    "held, other",
    [
        (["student"], ["classmate"]),  # two people, side by side
        (["student"], ["student"]),  # one person's second batch
        (["hall"], ["script"]),  # two crowds, side by side as before
        (["student"], ["script", "classmate"]),  # a crowd's batch that carries a person's job is the person's
        (["student"], None),  # training, a test: not a batch
    ],
)
def test_people_crowds_and_threads_outside_a_batch_compute_side_by_side(tiny_model, held, other):
    turns = loaded(Turns(Allowance(stretch_s=30)), student=1, classmate=1, hall=CROWD, script=CROWD)
    turns.watch(tiny_model)
    running = Held(turns, held)
    try:
        assert Layers(turns, tiny_model, other).done.wait(5)  # well before its 30 s of patience
    finally:
        running.release()


def test_a_batch_waits_the_crowds_allowance_at_most_so_a_hall_is_not_held_for_good(tiny_model):
    turns = loaded(Turns(Allowance(stretch_s=0.3)), hall=30, student=1)
    turns.watch(tiny_model)
    student = Held(turns, ["student"])
    t0 = time.monotonic()
    hall = Layers(turns, tiny_model, ["hall"])
    try:
        assert hall.done.wait(5) and 0.25 < time.monotonic() - t0 < 3  # the student still runs
    finally:
        student.release()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_crowds_wait_one_stretch_at_most_then_half_the_time_in_the_long_run():
    clock = Clock()
    allowance = Allowance(stretch_s=3.0, share=0.5, clock=clock)
    clock.now = 100.0  # not waited for long: a whole stretch, no more
    allowance.begin()
    assert allowance.wait_s() == 3.0
    clock.now += 3.0
    allowance.end()
    assert allowance.wait_s() == 0.0  # spent: a crowd computes beside the people
    clock.now += 1.0  # a second computing earns a second of waiting
    assert allowance.wait_s() == 1.0
    waited = 0.0
    for _ in range(200):  # a crowd that waits as long as it may after each 0.1 s layer: half the time
        clock.now += 0.1
        allowance.begin()
        wait = allowance.wait_s()
        clock.now += wait
        waited += wait
        allowance.end()
    assert waited == pytest.approx(200 * 0.1 + 1.0, rel=0.01)


def test_two_crowds_waiting_at_once_spend_the_allowance_once():
    clock = Clock()
    allowance = Allowance(stretch_s=2.0, share=0.5, clock=clock)
    allowance.begin()
    clock.now += 0.5
    allowance.begin()  # a second crowd's batch: its wait ends when the first one's does
    assert allowance.wait_s() == 1.5
    clock.now += 1.5
    allowance.end()
    allowance.end()
    assert allowance.wait_s() == 0.0


class Timed(Allowance):
    """An allowance that adds up how long crowds waited."""

    waited = 0.0

    def begin(self):
        super().begin()
        self.began = time.monotonic()

    def end(self):
        super().end()
        self.waited += time.monotonic() - self.began


@pytest.mark.slow
def test_a_script_that_stays_a_person_for_good_holds_a_hall_back_half_the_time(tiny_model):
    allowance = Timed(stretch_s=0.2)
    turns = loaded(Turns(allowance), hall=30, student=1)
    turns.watch(tiny_model)
    for layer in tiny_model.encoder.layers:  # a layer computes for 20 ms once its turn has come
        layer.register_forward_hook(lambda *_: time.sleep(0.02))
    student = Held(turns, ["student"])  # one long request after another: a person's batch runs throughout
    t0 = time.monotonic()
    try:
        with torch.no_grad(), turns.running(["hall"]):
            for _ in range(20):
                tiny_model.encode(pad_batch([[5, 6, 7, 2]], torch.device("cpu")))
    finally:
        student.release()
    # it waited as long as it did anything else, and its 0.2 s once: about half the time, never all of it
    assert 0.35 < allowance.waited / (time.monotonic() - t0) < 0.7, (allowance.waited, time.monotonic() - t0)


def test_a_person_is_an_address_with_at_most_one_tabs_jobs_and_borrows_only_from_crowds():
    turns = loaded(Turns(), student=1, script=CROWD)
    assert not turns.may_borrow("student")  # nothing runs: nothing to borrow from
    crowd = Held(turns, ["script"])
    try:
        assert turns.may_borrow("student") and not turns.may_borrow("script")
        turns.answered("script")  # now one tab's worth: a person
        assert not turns.may_borrow("student") and turns.load() == {"student": 1, "script": ONE_PERSON}
    finally:
        crowd.release()
    for who, n in (("student", 1), ("script", ONE_PERSON)):
        for _ in range(n):
            turns.answered(who)
    assert turns.load() == {}
