"""Classroom mode in headless Chromium, two pages: a lecturer presents, a student follows each change live, answers
the class question and sees the reveal; the lecturer sees the count and the histogram; a student who explores on
their own stops following, and nothing a student does reaches the room."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager

import pytest
from browser_fixtures import TIMEOUT_MS, open_page, outlined_cells, settle, shot, shown

pytestmark = pytest.mark.browser


def state(page) -> list:
    """The view a page shows: its step, kind, layer, head and view, as a person reads them."""
    s = shown(page)
    return [s["step"], s["kind"], s["layer"], s["head"], s["view"]]


def at_step(page, step: int) -> None:
    """Wait until the page shows step `step`."""
    from playwright.sync_api import expect

    expect(page.locator(".ae-step")).to_have_text(re.compile(rf"Step {step} / "))
    settle(page)


def showing(page, sentence: str) -> None:
    """Wait until the page shows the trace of `sentence` (its sentence box holds the sentence on screen), drawn."""
    from playwright.sync_api import expect

    expect(page.locator("#sentence textarea")).to_have_value(sentence)
    settle(page)


def same_view(student, lecturer) -> None:
    """Wait until the student's page shows what the lecturer's shows."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while state(student) != state(lecturer) or shown(student)["lesson"] != shown(lecturer)["lesson"]:
        assert time.monotonic() < deadline, (shown(student), shown(lecturer))
        student.wait_for_timeout(50)
    settle(student)


@contextmanager
def room(browser, app_url, student_url: str | None = None):
    """(lecturer, student, code): the lecturer presents, the student opens the room's address (on `student_url`, by
    default the lecturer's) and follows: its page says so once its stream has given it its token (the room's state),
    so a test that drops the student's network next knows the page will name it when it reconnects."""
    from playwright.sync_api import expect

    lecturer = open_page(browser, app_url)
    student = None
    try:
        lecturer.locator(".ae-tools button", has_text="Present to class").click()
        expect(lecturer.locator(".ae-room-code")).to_have_text(re.compile(r"Room [A-Z]{4}"))
        code = lecturer.locator(".ae-room-code").text_content().split()[-1]
        student = open_page(browser, (student_url or app_url) + "?room=" + code)
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        yield lecturer, student, code
    finally:
        lecturer.context.close()
        if student is not None:
            student.context.close()


def test_a_class_follows_the_lecturer_to_the_gold_alignment(browser, app_url):
    """Issue 38 part 6: G on the lecturer's page decodes the opening example's gold translation (a new trace, its
    pieces forced); each student gets the same trace and sees the same links outlined on the same heatmap."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, _):
        expect(lecturer.locator(".ae-caption")).to_contain_text("Press G")  # the tiny model writes another
        lecturer.keyboard.press("g")
        expect(lecturer.locator(".ae-caption")).to_contain_text("Outlined: the 10 word links")
        settle(lecturer)
        same_view(student, lecturer)
        expect(student.locator(".ae-caption")).to_contain_text("Outlined: the 10 word links")
        assert outlined_cells(student) == outlined_cells(lecturer) != []  # the same links drawn, read from pixels
        expect(student.locator(".ae-caption")).to_contain_text("Outlined: the 10 word links")
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")


def test_a_student_follows_the_lecturer_answers_and_sees_the_reveal(browser, app_url):
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, _):
        expect(lecturer.locator(".ae-room-count")).to_have_text("1 following")
        same_view(student, lecturer)
        lecturer.keyboard.press("ArrowRight")
        head = (shown(lecturer)["head"] + 1) % 4  # another head than the one shown
        lecturer.keyboard.press(str(head))
        same_view(student, lecturer)
        assert shown(student)["head"] == head and shown(student)["step"] == 4
        # a new sentence on the lecturer's page: the student's viewer fetches its trace and follows
        lecturer.fill("#sentence textarea", "The dog sees the cat.")
        lecturer.press("#sentence textarea", "Enter")
        showing(student, "The dog sees the cat.")
        lecturer.keyboard.press("ArrowRight")
        at_step(student, 1)
        # the class question on the shown head: the student answers, the lecturer counts, the reveal shows both
        lecturer.locator(".ae-room button", has_text="Ask the class").click()
        expect(student.locator(".ae-room-ask")).to_contain_text("which source token will step 2 attend to most?")
        student.locator(".ae-source-chips .ae-room-choice").nth(1).click()
        expect(student.locator(".ae-room-question")).to_contain_text("Your guess")
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("1 answered")
        lecturer.locator(".ae-room button", has_text="Reveal").click()
        expect(lecturer.locator(".ae-room-histogram .ae-room-bar").first).to_be_visible()
        expect(student.locator(".ae-room-histogram .ae-room-mine")).to_have_count(1)
        counts = [int(x) for x in lecturer.locator(".ae-room-guesses").all_text_contents()]
        assert counts[1] == 1 and sum(counts) == 1
        expect(lecturer.locator(".ae-room-score")).to_contain_text("of 1 right")
        shot(lecturer, "16-classroom-lecturer")
        shot(student, "16-classroom-student")
        # a student who explores stops following; nothing they do reaches the room
        before = state(lecturer)
        student.keyboard.press("End")
        expect(student.locator(".ae-room-count")).to_have_text("exploring on your own")
        student.wait_for_timeout(300)
        assert state(lecturer) == before
        assert student.locator(".ae-room button", has_text="Ask the class").count() == 0  # no lecturer controls
        lecturer.keyboard.press("ArrowRight")
        student.wait_for_timeout(500)
        assert state(student)[0] != state(lecturer)[0]
        student.locator(".ae-room button", has_text="Follow again").click()
        at_step(student, state(lecturer)[0])
        student.fill("#sentence textarea", "I see a bird.")  # a sentence of their own: exploring again
        student.press("#sentence textarea", "Enter")
        expect(student.locator(".ae-room-count")).to_have_text("exploring on your own")
        showing(student, "I see a bird.")
        lecturer.keyboard.press("ArrowRight")
        student.wait_for_timeout(500)
        assert student.input_value("#sentence textarea") == "I see a bird."


def test_a_following_student_sees_the_lecturers_sentence_and_the_rooms_end(browser, app_url):
    """Issue 36 #7: the student's sentence box kept their old sentence; the end read "ended room null"."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, code):
        lecturer.fill("#sentence textarea", "The dog sees the cat.")
        lecturer.press("#sentence textarea", "Enter")
        showing(student, "The dog sees the cat.")
        lecturer.locator(".ae-room button", has_text="End room").click()
        expect(student.locator(".ae-message")).to_have_text(f"The lecturer ended room {code}.")


def reveal_one_guess(lecturer, student, sentence: str):
    """The lecturer shows `sentence`, asks the class about its first step, a student guesses its second source token,
    and the lecturer reveals: the histogram's bars (drawn)."""
    from playwright.sync_api import expect

    lecturer.fill("#sentence textarea", sentence)
    lecturer.press("#sentence textarea", "Enter")
    showing(student, sentence)
    lecturer.keyboard.press("ArrowRight")
    lecturer.locator(".ae-room button", has_text="Ask the class").click()
    student.locator(".ae-source-chips .ae-room-choice").nth(1).click()
    expect(lecturer.locator(".ae-room-ask")).to_contain_text("1 answered")
    lecturer.locator(".ae-room button", has_text="Reveal").click()
    bars = lecturer.locator(".ae-room-histogram .ae-room-bar")
    expect(bars.first).to_be_visible()
    return bars


def test_after_a_reveal_the_lecturers_controls_stay_in_view(browser, app_url):
    """Issue 36 #7: on a long sentence the class's histogram pushed View, Kind and Layer off a 1366x768 screen."""

    long = "Yesterday my old friend from school, who now lives in Berlin with his wife and two children, called me."
    with room(browser, app_url) as (lecturer, student, _):
        bars = reveal_one_guess(lecturer, student, long)
        assert bars.count() >= 25  # a bar for every source token: the histogram is long
        lecturer.evaluate("window.scrollTo(0, 0)")
        for row in (".ae-view-tabs", ".ae-kinds", ".ae-layers", ".ae-heads"):
            box = lecturer.locator(row).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 768, (row, box)
        shot(lecturer, "16-classroom-reveal-long")


def test_the_reveal_shows_every_token_of_a_sentence_on_the_projector(browser, app_url):
    """Issue 50: in presentation mode at 1366x768 the reveal's histogram showed 4 or 5 of a sentence's 9 tokens (it
    scrolled inside a box 15% of the window tall). Now every bar is in the window, the selectors with it."""

    with room(browser, app_url) as (lecturer, student, _):
        lecturer.locator("#presentation input").check()
        bars = reveal_one_guess(lecturer, student, "The dog sees the cat.")
        tokens = lecturer.locator(".ae-source-chips .ae-chip").count()  # the source tokens on screen
        assert bars.count() == tokens >= 8
        seen = lecturer.evaluate(
            """() => { const h = document.querySelector('.ae-room-histogram').getBoundingClientRect();
              return [...document.querySelectorAll('.ae-room-histogram .ae-room-bar')].map((b) => {
                const r = b.getBoundingClientRect();
                return r.top >= Math.max(0, h.top) - 1 && r.bottom <= Math.min(innerHeight, h.bottom) + 1; }); }"""
        )
        shot(lecturer, "16-classroom-reveal-presentation")
        assert all(seen), seen  # every bar in the histogram's box and in the window: nothing scrolled away
        sizes = lecturer.evaluate(  # issue 66 #4: the numbers a class reads off the projector are 16 px or more
            """() => [...document.querySelectorAll('.ae-room-histogram :is(.ae-room-value, .ae-room-token)')]
              .map((e) => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert sizes and min(sizes) >= 16, sizes
        for row in (".ae-view-tabs", ".ae-heads"):
            box = lecturer.locator(row).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 768, (row, box)


def test_a_class_follows_the_lecturers_lesson_stop_by_stop(browser, app_url):
    """Issue 38: the lesson's stop is part of the view the room carries: each student sees the same stop, its view
    and its sentences (built from the same trace, so the same numbers)."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, _):
        lecturer.get_by_role("button", name="Lesson", exact=True).click()
        for stop in (1, 2, 3, 4, 5, 6):
            if stop > 1:
                lecturer.keyboard.press("ArrowRight")
            expect(student.locator(".ae-lesson-title")).to_contain_text(f"Lesson {stop} / 12")
            same_view(student, lecturer)
            said = lecturer.locator(".ae-lesson-text").text_content()
            assert student.locator(".ae-lesson-text").text_content() == said
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        shot(student, "16-classroom-student-lesson")
        lecturer.keyboard.press("Escape")
        expect(student.locator(".ae-lesson")).to_be_hidden()


def test_the_lecturers_reload_drives_the_room_again_and_the_class_is_told_it_was_away(browser, app_url):
    """Issue 50 #2: the lecturer pressed F5 and the room was orphaned (its key left sessionStorage as the page
    unloaded); the students kept "following the lecturer" on a frozen view, with no word."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, code):
        lecturer.reload(wait_until="load")
        expect(lecturer.locator(".ae-room-code")).to_have_text(f"Room {code}")  # the reloaded page leads again
        expect(lecturer.locator(".ae-room button", has_text="End room")).to_be_visible()
        lecturer.keyboard.press("ArrowRight")  # and drives it: the student follows the step
        at_step(student, shown(lecturer)["step"])
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        step = shown(lecturer)["step"]
        lecturer.goto("about:blank")  # the lecturer's page goes (a closed lid, a crash)
        away = student.locator(".ae-room-lecturer")
        expect(away).to_contain_text("the lecturer's page is away", timeout=10_000)
        lecturer.go_back(wait_until="load")  # and comes back
        expect(lecturer.locator(".ae-room-code")).to_have_text(f"Room {code}")
        expect(away).to_have_text("the lecturer is back", timeout=10_000)
        # at the room's step, not the address's: the address, written a moment after each step, may be a step behind,
        # and the page used to open it after taking the room's view and send the class back a step (session 31)
        settle(lecturer)
        assert shown(lecturer)["step"] == step and shown(student)["step"] == step
        lecturer.keyboard.press("ArrowRight")
        at_step(student, shown(lecturer)["step"])
        expect(student.locator(".ae-room-lecturer")).to_have_count(0, timeout=10_000)  # said for a while; class goes on


def test_a_student_who_reloads_follows_the_room_again(browser, app_url):
    """The address of a page following a room stays ?room=CODE, so a reload (or a phone that reloads a tab it had
    discarded) follows the lecturer again instead of exploring a stale sentence alone."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, code):
        lecturer.keyboard.press("ArrowRight")
        assert student.evaluate("window.location.search") == f"?room={code}"
        student.reload(wait_until="load")
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        lecturer.keyboard.press("ArrowRight")
        at_step(student, shown(lecturer)["step"])
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")


def test_a_student_keeps_following_when_a_view_asks_the_server(browser, app_url):
    """A review of session 30: a view that asks the server (the logit lens) put its answer in the student's store, and
    the student's page took that for the student exploring: it stopped following. An answer is not a step."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, _):
        lecturer.locator(".ae-view-tabs button", has_text="Logit lens").click()
        expect(student.locator(".ae-lens .main-svg").first).to_be_attached(timeout=30_000)  # its answer arrived
        settle(student)
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        lecturer.keyboard.press("ArrowRight")
        at_step(student, shown(lecturer)["step"])  # the lecturer's next step still reaches the student
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")


class Network:
    """The student's network: a TCP forwarder on 127.0.0.1 to the app. `drop()` closes every connection through it and
    holds new ones unanswered (a phone that lost the network); `drop(half_open=True)` closes only the page's side,
    leaving the server's open and unanswered, as a connection whose far end vanished stays until the server notices;
    `restore()` forwards them."""

    def __init__(self, app_url: str):
        import socket
        import threading

        self.target = ("127.0.0.1", int(app_url.rstrip("/").rsplit(":", 1)[1]))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/"
        self.open: list = []  # (the page's side, the server's side) of each connection
        self.stranded: set = set()  # the server's sides left open by a half-open drop: read, never answered
        self.held: list | None = None  # while down: the connections waiting for the network
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.held is not None:
                    self.held.append(near)
                    continue
            self.forward(near)

    def forward(self, near):
        import socket
        import threading

        far = socket.create_connection(self.target)
        self.open.append((near, far))
        for a, b in ((near, far), (far, near)):
            threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, source, sink):
        try:
            while data := source.recv(65536):
                if source not in self.stranded:
                    sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            if sock not in self.stranded:
                sock.close()

    def drop(self, half_open: bool = False):
        import socket

        with self.lock:
            self.held = []
        for near, far in self.open:
            if half_open:
                self.stranded.add(far)
            for sock in (near,) if half_open else (near, far):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.open = []

    def restore(self):
        with self.lock:
            held, self.held = self.held or [], None
        for near in held:
            self.forward(near)

    def close(self):
        self.drop()
        for sock in [*(self.held or []), *self.stranded]:
            sock.close()
        self.listener.close()


def test_a_students_guess_counts_once_and_still_counts_after_the_stream_reconnects(browser, app_url):
    """A review of issue 51: a page that closed its stream and followed again answered again (300 answers from one
    address). A page whose stream drops still counts, and when it reconnects its guess moves to its new token: the
    class's count stays one, and the reveal counts it."""
    from playwright.sync_api import expect

    network = Network(app_url)
    try:
        with room(browser, app_url, network.url) as (lecturer, student, _):
            lecturer.fill("#sentence textarea", "The dog sees the cat.")
            lecturer.press("#sentence textarea", "Enter")
            showing(student, "The dog sees the cat.")
            lecturer.keyboard.press("ArrowRight")
            lecturer.locator(".ae-room button", has_text="Ask the class").click()
            student.locator(".ae-source-chips .ae-room-choice").nth(1).click()
            asked, following = lecturer.locator(".ae-room-ask"), lecturer.locator(".ae-room-count")
            expect(asked).to_contain_text("1 answered")
            expect(following).to_have_text("1 following")
            network.drop()  # its stream goes: its guess still counts
            expect(following).to_have_text("0 following")
            student.wait_for_timeout(500)
            assert "1 answered" in asked.text_content()  # while the page cannot reconnect
            network.restore()
            expect(following).to_have_text("1 following", timeout=30_000)  # the page reconnected by itself
            student.wait_for_timeout(1000)  # its guess moved to its new token: still one
            expect(asked).to_contain_text("1 answered")
            expect(student.locator(".ae-room-note")).to_contain_text("Your guess")
            lecturer.locator(".ae-room button", has_text="Reveal").click()
            expect(lecturer.locator(".ae-room-histogram .ae-room-bar").nth(1)).to_contain_text("1")
    finally:
        network.close()


def test_a_student_whose_old_connection_lingers_is_counted_once_when_the_page_reconnects(browser, app_url):
    """A phone that loses its network leaves the server a half-open connection, which it notices minutes later. The
    browser reconnects by itself, naming the id of the last event it had (the page's token): the old stream goes at
    once, and the lecturer's count stays one, not two."""
    from playwright.sync_api import expect

    network = Network(app_url)
    try:
        with room(browser, app_url, network.url) as (lecturer, student, _):
            following, note = lecturer.locator(".ae-room-count"), student.locator(".ae-room .ae-room-note")
            expect(following).to_have_text("1 following")
            network.drop(half_open=True)
            expect(note).to_contain_text("reconnecting")
            student.wait_for_timeout(500)
            expect(following).to_have_text("1 following")  # the server cannot tell yet
            network.restore()
            expect(note).to_have_count(0, timeout=30_000)  # the page reconnected by itself
            student.wait_for_timeout(1000)
            expect(following).to_have_text("1 following")
            expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
    finally:
        network.close()


def test_a_revealed_question_leaves_a_students_screen_at_the_next_sentence_or_when_dismissed(browser, app_url):
    """Issue 66 #5: the revealed question stayed on the students' screens, and after the next sentence it told them to
    "follow again" to see it, though they were following."""
    from playwright.sync_api import expect

    with room(browser, app_url) as (lecturer, student, _):
        reveal_one_guess(lecturer, student, "The dog sees the cat.")
        answer = student.locator(".ae-room-question")
        expect(answer.locator(".ae-room-histogram")).to_be_visible()
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        answer.get_by_role("button", name="✕ Dismiss").click()
        expect(student.locator(".ae-room-question")).to_have_count(0)  # dismissed: gone from this student's screen
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        expect(lecturer.locator(".ae-room-histogram")).to_be_visible()  # the lecturer keeps the record
        lecturer.locator(".ae-room button", has_text="Ask the class").click()  # the next question shows on its own
        expect(student.locator(".ae-room-ask")).to_contain_text("Class question 2")
        student.locator(".ae-source-chips .ae-room-choice").nth(2).click()
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("1 answered")
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        lecturer.locator(".ae-room button", has_text="Reveal").click()
        expect(student.locator(".ae-room-histogram")).to_be_visible()
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")
        lecturer.fill("#sentence textarea", "The cat sees the dog.")  # the next sentence: the answer leaves
        lecturer.press("#sentence textarea", "Enter")
        showing(student, "The cat sees the dog.")
        expect(student.locator(".ae-room-question")).to_have_count(0)
        assert "follow again" not in student.locator(".ae-room").inner_text().lower()
        expect(student.locator(".ae-room-count")).to_have_text("following the lecturer")


def test_a_lecturers_reload_restores_the_class_score_the_open_question_and_the_address(browser, app_url):
    """Issue 66 #2: after F5 only the room came back. The class score was gone, and the address showed the opening
    example until the next step, so a second reload (or a copied link) lost the room's sentence."""
    from playwright.sync_api import expect

    sentence = "The dog sees the cat."
    with room(browser, app_url) as (lecturer, student, code):
        reveal_one_guess(lecturer, student, sentence)
        score = lecturer.locator(".ae-room-score")
        expect(score).to_have_text(re.compile(r"Class score: [01] of 1 right"))
        before = score.text_content()
        lecturer.locator(".ae-room button", has_text="Ask the class").click()  # question 2, open
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("Class question 2")
        student.locator(".ae-source-chips .ae-room-choice").nth(1).click()
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("1 answered")
        step = shown(lecturer)["step"]
        lecturer.reload(wait_until="load")
        expect(lecturer.locator(".ae-room-code")).to_have_text(f"Room {code}")
        showing(lecturer, sentence)
        expect(lecturer.locator(".ae-room-score")).to_have_text(before)  # the record of question 1, counted once
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("Class question 2")  # still open, its count kept
        expect(lecturer.locator(".ae-room-ask")).to_contain_text("1 answered")
        expect(lecturer.locator(".ae-room button", has_text="Reveal")).to_be_visible()
        assert shown(lecturer)["step"] == step
        lecturer.wait_for_function(  # the address holds the room's sentence and step, not the opening example's
            "([s, t]) => { const q = new URLSearchParams(location.search); return q.get('sentence') === s && "
            "q.get('step') === String(t); }",
            arg=[sentence, step],
        )
        lecturer.locator(".ae-room button", has_text="Reveal").click()  # and the score goes on from where it was
        expect(lecturer.locator(".ae-room-score")).to_have_text(re.compile(r"Class score: [0-2] of 2 right"))
