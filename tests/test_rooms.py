"""Classroom rooms (explorer/app/rooms.py, room_api.py): only the lecturer's key drives a room, followers get the
state first and every change after, each student answers a question once and not after the reveal, rooms and
followers are bounded, and every refusal names what it refuses. Over HTTP, with the streaming route too."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from explorer.app import http_api, room_api
from explorer.app.models import ModelRegistry
from explorer.app.rooms import CODE_LENGTH, CODE_LETTERS, RoomError, Rooms

VIEW = {
    "trace": {"sentence": "The dog sees the cat."},
    "step": 3,
    "kind": "cross",
    "layer": 1,
    "head": 2,
    "view": "heatmap",
}


@pytest.fixture
def app(mini_handle):
    rooms = Rooms(max_rooms=3, max_followers=2)
    # one event loop for every request, as under uvicorn: a room's queues belong to the server's loop
    with TestClient(Starlette(routes=http_api.routes(ModelRegistry(mini_handle), rooms=rooms))) as client:
        yield client, rooms


def lecture(client) -> tuple[str, dict]:
    made = client.post("/ae/api/room").json()
    return made["code"], {"x-ae-lecturer": made["key"]}


def test_a_room_has_a_short_code_and_only_its_lecturer_key_drives_it(app):
    client, _ = app
    code, lecturer = lecture(client)
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    assert client.post(f"/ae/api/room/{code}/view", json=VIEW, headers=lecturer).status_code == 200
    for headers in ({}, {"x-ae-lecturer": "forged"}):  # a student's page has no key
        refused = client.post(f"/ae/api/room/{code}/view", json=VIEW, headers=headers)
        assert (
            refused.status_code == 403
            and f"Only the lecturer's browser can change room {code}" in refused.json()["error"]
        )
    unknown = client.post("/ae/api/room/ZZZZ/view", json=VIEW, headers=lecturer)
    assert unknown.status_code == 404 and "no room 'ZZZZ'" in unknown.json()["error"]
    odd = client.post(
        f"/ae/api/room/{code}/view", json=VIEW, headers={"x-ae-lecturer": "clé".encode()}
    )  # not ASCII: no 500
    assert odd.status_code == 403 and "no valid key" in odd.json()["error"]
    bad = client.post(f"/ae/api/room/{code}/view", json=VIEW | {"kind": "sideways"}, headers=lecturer)
    assert bad.status_code == 400 and "sideways" in bad.json()["error"]


def test_a_follower_gets_the_state_first_then_every_change_and_a_reconnect_catches_up():
    async def run():
        rooms = Rooms()
        room = rooms.create()
        rooms.show(room, {"step": 1})
        _, first, queue = rooms.follow(room.code)
        event, state, frame = await queue.get()
        assert event == "state" and state["view"] == {"step": 1} and state["following"] == 1
        head = f"id: {state['token']}\nevent: state\ndata: {{".encode()  # its id: what a reconnect names
        assert frame.startswith(head) and json.loads(frame.split(b"data: ")[1]) == state
        rooms.show(room, {"step": 2})
        events = [queue.get_nowait()[:2] for _ in range(queue.qsize())]
        assert ("view", {"step": 2}) in events
        rooms.leave(room, first)
        _, _, again = rooms.follow(room.code)  # reconnected: where the class is now, no history needed
        event, state, _ = again.get_nowait()
        assert event == "state" and state["view"] == {"step": 2}
        rooms.ask(room, 2, 0, 1, 5)
        for step in range(100):  # a page that does not read: its queue is replaced by one fresh state, nothing lost
            rooms.send(room, "following", {"following": step})
        rooms.show(room, {"step": 99})
        kept = [again.get_nowait() for _ in range(again.qsize())]
        assert len(kept) <= 16 and kept[0][0] == "state" and kept[0][1]["question"]["id"] == 1
        assert kept[0][1]["token"] in room.tokens  # the page can still answer, and reconnect as itself
        assert kept[0].frame.startswith(f"id: {kept[0][1]['token']}\n".encode())
        kept = [event[:2] for event in kept]
        assert kept[-1] == ("view", {"step": 99})
        _, _, watcher = rooms.follow(room.code, room.key)  # the lecturer's own page: gets the events, not counted
        assert watcher.get_nowait()[1]["following"] == 1
        with pytest.raises(RoomError, match="no valid key"):
            rooms.follow(room.code, "forged")

    asyncio.run(run())


def test_the_class_is_told_when_the_lecturers_page_goes_and_when_one_comes_back():
    """Issue 50 #2: a lecturer's reload or closed lid left the class on a frozen view without a word."""

    async def run():
        rooms = Rooms()
        room = rooms.create()
        _, _, student = rooms.follow(room.code)
        assert student.get_nowait()[1]["lecturer"] is False  # made by a POST; no lecturer's page watches yet
        room_, first, _ = rooms.follow(room.code, room.key)
        _, second, _ = rooms.follow(room.code, room.key)  # a second tab of the lecturer's
        assert student.get_nowait()[:2] == ("lecturer", {"present": True})  # told once, by the first page
        rooms.leave(room_, first)
        assert student.empty()  # one of the lecturer's pages is still open: nothing to say
        rooms.leave(room_, second)
        assert student.get_nowait()[:2] == ("lecturer", {"present": False})
        _, _, late = rooms.follow(room.code)  # a student who arrives now learns it from the state
        assert late.get_nowait()[1]["lecturer"] is False
        _, _, watcher = rooms.follow(room.code, room.key)  # the reloaded page
        told = [student.get_nowait()[:2] for _ in range(student.qsize())]
        assert told == [("lecturer", {"present": True})]  # how many follow is the lecturer's to read
        assert watcher.get_nowait()[1]["following"] == 2

    asyncio.run(run())


def test_each_following_page_answers_once_and_not_after_the_reveal(app):
    client, rooms = app
    code, lecturer = lecture(client)
    # two following pages: each stream's first event gives that page its answer token
    tokens = [rooms.follow(code)[2].get_nowait()[1]["token"] for _ in range(2)]
    asked = client.post(
        f"/ae/api/room/{code}/question", json={"step": 2, "layer": 1, "head": 0, "sources": 5}, headers=lecturer
    ).json()

    def answer(pick, token, question=asked["id"]):
        return client.post(f"/ae/api/room/{code}/answer", json={"question": question, "pick": pick, "token": token})

    assert answer(3, tokens[0]).json()["answered"] == 1
    second = answer(3, tokens[0])
    assert second.status_code == 400 and "answered question 1 already" in second.json()["error"]
    stranger = answer(3, "made-up")  # a page that does not follow the room (or a script making up ids)
    assert stranger.status_code == 400 and f"Only a page following room {code} can answer" in stranger.json()["error"]
    missing = answer(9, tokens[1])
    assert (
        missing.status_code == 400
        and "Source token 9 does not exist: this sentence has tokens 0 to 4" in missing.json()["error"]
    )
    answer(1, tokens[1])
    assert client.post(f"/ae/api/room/{code}/reveal", headers={}).status_code == 403  # a student cannot reveal
    revealed = client.post(f"/ae/api/room/{code}/reveal", headers=lecturer).json()
    assert revealed["counts"] == [0, 1, 0, 1, 0] and revealed["answered"] == 2
    late = answer(2, tokens[1])
    assert late.status_code == 400 and "has been revealed: answers are closed" in late.json()["error"]
    stale = answer(0, tokens[1], question=7)
    assert stale.status_code == 400 and "has no question 7 open" in stale.json()["error"]


def test_rooms_and_followers_are_bounded(app):
    client, rooms = app
    codes = [lecture(client)[0] for _ in range(3)]
    full = client.post("/ae/api/room")
    assert full.status_code == 429 and "already holds 3 rooms, its limit" in full.json()["error"]
    rooms.follow(codes[0])
    rooms.follow(codes[0])
    with pytest.raises(RoomError, match=f"Room {codes[0]} has 2 followers already"):
        rooms.follow(codes[0])
    ended = Rooms(idle_s=0.0)
    room = ended.create()
    with pytest.raises(RoomError, match="no room"):  # idle for longer than its limit: gone
        ended.get(room.code)


def test_one_address_holds_half_a_rooms_followers_at_most():
    """A review of issue 51: 500 sockets from one address that never read took every place in a class's room."""
    rooms = Rooms(max_followers=4)
    room = rooms.create()
    rooms.follow(room.code, address="10.0.0.1")
    _, second, _ = rooms.follow(room.code, address="10.0.0.1")
    with pytest.raises(RoomError, match=r"has 2 followers from this address \(10.0.0.1\) already"):
        rooms.follow(room.code, address="10.0.0.1")
    rooms.follow(room.code, address="10.0.0.2")  # the class still gets in
    rooms.leave(room, second)
    rooms.follow(room.code, address="10.0.0.1")  # a place of its own that it left


def test_a_page_whose_stream_goes_keeps_its_answer_and_reconnecting_never_answers_twice():
    """A review of issue 51: closing the stream and following again gave a new token each time, and each answered
    again (300 answers from one address). A page whose stream went still counts (a phone that lost the network just
    before the reveal), but an address keeps `DEPARTED_PER_ADDRESS` such answers at most; a page that reconnects moves
    its answer to its new token."""
    from explorer.app.rooms import DEPARTED_PER_ADDRESS

    rooms = Rooms()
    room = rooms.create()
    question = rooms.ask(room, 2, 0, 1, 5)

    def follow(address="10.0.0.1"):
        _, follower, queue = rooms.follow(room.code, address=address)
        return follower, queue.get_nowait()[1]["token"]

    for _ in range(50):  # a script reconnecting to answer again
        follower, token = follow()
        rooms.answer(room.code, question.id, token, 0)
        rooms.leave(room, follower)
    assert question.public()["answered"] == DEPARTED_PER_ADDRESS == 4
    phone, token = follow("10.0.0.2")  # a student answers, loses the network, comes back: counted once
    rooms.answer(room.code, question.id, token, 3)
    rooms.leave(room, phone)
    assert question.public()["answered"] == 5
    _, again = follow("10.0.0.2")
    rooms.answer(room.code, question.id, again, 3, previous=token)
    assert question.public()["answered"] == 5
    late, late_token = follow("10.0.0.3")  # answers, and its stream goes just before the reveal: still counted
    rooms.answer(room.code, question.id, late_token, 1)
    rooms.leave(room, late)
    assert rooms.reveal(room).public()["counts"] == [4, 1, 0, 1, 0]


def test_a_page_that_reconnects_by_itself_is_counted_once_while_its_old_connection_lingers():
    """The state event's id is the page's answer token, which a browser names (`Last-Event-ID`) when it reconnects by
    itself. Its old stream goes then, though its connection may be half-open still (a phone that lost its network,
    noticed by the server minutes later): the class counts the page once, the old stream ends unsent, and the
    page's answer moves to its new token as before. A token no page of the room has replaces nothing."""
    from explorer.app.rooms import GONE

    rooms = Rooms()
    room = rooms.create()
    question = rooms.ask(room, 2, 0, 1, 5)
    _, old, old_queue = rooms.follow(room.code, address="10.0.0.2")
    first = old_queue.get_nowait()
    token = first.data["token"]
    assert first.frame.startswith(f"id: {token}\nevent: state\n".encode())
    rooms.answer(room.code, question.id, token, 3)
    _, new, queue = rooms.follow(room.code, address="10.0.0.2", last=token)
    assert list(room.followers) == [new] and old_queue.get_nowait() is GONE and old_queue.empty()
    state = queue.get_nowait().data
    assert state["following"] == 1 and state["token"] != token
    rooms.answer(room.code, question.id, state["token"], 3, previous=token)
    assert question.public()["answered"] == 1
    rooms.leave(room, old)  # the old stream's own end, when it comes: nothing more happens
    assert list(room.followers) == [new] and question.public()["answered"] == 1
    for forged in ("forged", "", None):
        rooms.follow(room.code, address="10.0.0.3", last=forged)
    assert len(room.followers) == 4


def test_a_page_counts_once_however_its_stream_reconnects_and_whenever_the_reveal_comes():
    """A second review: the reconnect put the old stream's answer among the departed (4 kept per address), so a hall
    behind one router whose pages reconnected just before the reveal lost half its answers; and a page whose re-sent
    answer was slower than its next reconnect counted twice (a third review: also when the server had seen its old
    connections close first). The answer moves with the stream, from among the departed too, and the page's re-send
    finds it there."""
    rooms = Rooms()
    room = rooms.create()
    question = rooms.ask(room, 2, 0, 1, 5)

    def follow(address="10.0.0.1", last=None):
        _, _, queue = rooms.follow(room.code, address=address, last=last)
        return queue.get_nowait().data["token"]

    hall = [follow() for _ in range(8)]  # one router
    for token in hall:
        rooms.answer(room.code, question.id, token, 2)
    hall = [follow(last=token) for token in hall]  # the wifi blinks: every page reconnects by itself
    assert question.public()["answered"] == 8 and len(room.followers) == 8
    t1 = follow("10.0.0.2")  # a phone on a bad network
    rooms.answer(room.code, question.id, t1, 4)
    t2 = follow("10.0.0.2", last=t1)
    t3 = follow("10.0.0.2", last=t2)  # again, before its re-send under t2 arrived
    with pytest.raises(RoomError, match="Only a page following"):
        rooms.answer(room.code, question.id, t2, 4, previous=t1)  # the page ignores this refusal: its token moved on
    rooms.answer(room.code, question.id, t3, 4, previous=t2)
    with pytest.raises(RoomError, match="answered question 1 already"):
        rooms.answer(room.code, question.id, t3, 1, previous=t2)  # a re-send never changes the answer
    u1 = follow("10.0.0.4")  # another phone, whose closed connections the server notices first
    rooms.answer(room.code, question.id, u1, 0)
    rooms.leave(room, room.tokens[u1])  # its answer among the departed
    u2 = follow("10.0.0.4", last=u1)  # its re-send under u2 is slow...
    rooms.leave(room, room.tokens[u2])
    u3 = follow("10.0.0.4", last=u2)
    with pytest.raises(RoomError, match="Only a page following"):
        rooms.answer(room.code, question.id, u2, 0, previous=u1)  # ...and refused: ignored by the page
    rooms.answer(room.code, question.id, u3, 0, previous=u2)
    assert rooms.reveal(room).public()["counts"] == [1, 0, 8, 0, 1]


def test_an_answer_that_changes_no_count_is_told_to_no_page():
    """The second review: an accepted re-send was told to every page, so one stream re-sending cost a core with 300
    pages following (two streams naming each other as `previous` did on the first design too)."""
    rooms = Rooms()
    room = rooms.create()
    question = rooms.ask(room, 2, 0, 1, 5)
    _, _, student = rooms.follow(room.code)
    student.get_nowait()
    _, _, a = rooms.follow(room.code, address="10.0.0.9")
    _, _, b = rooms.follow(room.code, address="10.0.0.9")
    a, b = a.get_nowait().data["token"], b.get_nowait().data["token"]
    rooms.answer(room.code, question.id, a, 1)
    assert student.get_nowait()[:2] == ("answered", {"id": 1, "answered": 1})
    for _ in range(50):
        rooms.answer(room.code, question.id, a, 1, previous="x")  # a re-send
        rooms.answer(room.code, question.id, b, 1, previous=a)  # two streams passing one answer between them
        rooms.answer(room.code, question.id, a, 1, previous=b)
    assert student.empty() and question.public()["answered"] == 1


@pytest.mark.slow
def test_a_class_answering_together_is_told_the_count_a_few_times_a_second_and_the_last_one_soon():
    """Each answer was told to every page at once: a class of 200 answering made 200 × 200 events, and a script that
    answered from stream after stream made every page pay for each. The count goes out at most every `TALLY_S`, the
    last one within `TALLY_S` of the last answer."""
    from explorer.app.rooms import TALLY_S

    async def run():
        rooms = Rooms()
        room = rooms.create()
        question = rooms.ask(room, 2, 0, 1, 5)
        queues = [rooms.follow(room.code)[2] for _ in range(100)]
        tokens = [queue.get_nowait().data["token"] for queue in queues]
        _, _, lecturer = rooms.follow(room.code, room.key)
        lecturer.get_nowait()
        assert queues[0].get_nowait().name == "lecturer"
        started = time.monotonic()
        for token in tokens:  # over about a second
            rooms.answer(room.code, question.id, token, 1)
            await asyncio.sleep(0.01)
        answering = time.monotonic() - started
        await asyncio.sleep(TALLY_S + 0.05)
        for queue in (lecturer, queues[0]):
            told = [queue.get_nowait() for _ in range(queue.qsize())]
            assert all(event.name == "answered" for event in told), told  # never so many that a page falls behind
            assert 2 <= len(told) <= answering / TALLY_S + 2, len(told)
            assert told[-1].data == {"id": 1, "answered": 100}

    asyncio.run(run())


def test_only_the_lecturers_pages_are_told_how_many_follow():
    """A student's page shows no count (its state has one). Told, a class of 200 joining sent 200² events, and a
    script opening and closing streams made every page pay (the second review: 500 a second cost 93% of a core with
    50 pages following)."""
    rooms = Rooms()
    room = rooms.create()
    _, _, lecturer = rooms.follow(room.code, room.key)
    _, _, student = rooms.follow(room.code)
    student.get_nowait()
    assert lecturer.get_nowait().data["following"] == 0 and lecturer.get_nowait()[:2] == ("following", {"following": 1})
    for _ in range(5):
        _, other, _ = rooms.follow(room.code)
        rooms.leave(room, other)
    assert student.empty()
    assert [lecturer.get_nowait()[1]["following"] for _ in range(lecturer.qsize())] == [2, 1] * 5


def test_over_http_a_reconnecting_stream_names_its_token_and_its_old_stream_ends(app):
    client, rooms = app
    code, _ = lecture(client)
    first: list[str] = []
    opened = threading.Event()

    def follow():
        with client.stream("GET", f"/ae/api/room/{code}/events") as stream:
            for line in stream.iter_lines():
                first.append(line)
                opened.set()

    old = threading.Thread(target=follow, daemon=True)
    old.start()
    assert opened.wait(10)
    token = first[0].removeprefix("id: ")
    assert first[0].startswith("id: ") and json.loads(first[2][6:])["token"] == token, first
    with client.stream("GET", f"/ae/api/room/{code}/events", headers={"last-event-id": token}) as again:
        lines = again.iter_lines()
        state = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
        assert state["following"] == 1 and state["token"] != token
        old.join(10)
        assert not old.is_alive(), first  # the old stream ended
        assert len(rooms.get(code).followers) == 1
    refused = client.get(f"/ae/api/room/{code}/events", headers={"last-event-id": "x" * 65})
    assert refused.status_code == 400
    assert "The last event's id (Last-Event-ID) is 65 characters" in refused.json()["error"]


def test_one_address_cannot_scan_the_codes_for_live_rooms(app):
    """A review of issue 51: the 331,776 codes could be tried in minutes, unknown codes cost nothing."""
    from explorer.app.room_api import UNKNOWN_RATE

    client, _ = app
    code, lecturer = lecture(client)
    assert UNKNOWN_RATE == "30/minute"
    assert [client.get(f"/ae/api/room/NO{i:02d}/events").status_code for i in range(30)] == [404] * 30
    refused = client.post("/ae/api/room/NO99/answer", json={"question": 1, "pick": 0, "token": "t"})
    assert refused.status_code == 429 and "Too many codes that name no room" in refused.json()["error"]
    live = client.get(f"/ae/api/room/{code}/qr.svg", params={"u": f"http://x/?room={code}"})  # answers as a dead one
    assert live.status_code == 429 and live.json() == refused.json()  # (a second review: else the scan went on)
    forged = client.post(f"/ae/api/room/{code}/view", json=VIEW, headers={"x-ae-lecturer": "forged"})
    assert forged.json() == refused.json()
    assert client.post(f"/ae/api/room/{code}/view", json=VIEW, headers=lecturer).status_code == 200  # its lecturer


def test_one_address_cannot_take_every_room_nor_create_them_fast(mini_handle):
    """Issue 51: fifty POSTs took every room for ten minutes and locked every lecturer out. Now an address holds at
    most MAX_ROOMS_PER_ADDRESS, creates at most CREATE_RATE, and a room no page is on ends within a minute."""
    import time

    from explorer.app.room_api import CREATE_RATE
    from explorer.app.rooms import EMPTY_S, MAX_ROOMS_PER_ADDRESS

    rooms = Rooms()
    for _ in range(MAX_ROOMS_PER_ADDRESS):
        rooms.create("10.0.0.66")
    with pytest.raises(RoomError, match=r"This address \(10.0.0.66\) already holds 3 rooms, its limit"):
        rooms.create("10.0.0.66")
    lecturer = rooms.create("10.0.0.7")  # a lecturer on another address is not locked out
    assert EMPTY_S <= 60
    rooms.follow(lecturer.code, lecturer.key)  # the lecturer's page holds theirs
    for room in rooms.rooms.values():  # the script's were made and left: no page has been on them for a minute
        room.last_seen = time.monotonic() - EMPTY_S - 1
    rooms.expire()
    assert list(rooms.rooms) == [lecturer.code]
    with TestClient(Starlette(routes=http_api.routes(ModelRegistry(mini_handle), rooms=Rooms()))) as client:
        for _ in range(6):  # each ended at once, so the address's cap is not what refuses the seventh
            made = client.post("/ae/api/room").json()
            client.post(f"/ae/api/room/{made['code']}/end", headers={"x-ae-lecturer": made["key"]})
        slow = client.post("/ae/api/room")
        assert slow.status_code == 429 and "Too many rooms created from one address" in slow.json()["error"]
        assert CREATE_RATE.startswith("6/")


def registered_views() -> list[str]:
    """The ids of the views the browser's registry holds (explorer/ui/static/views.js), as Node imports it."""
    if not shutil.which("node"):
        pytest.skip("node is not installed here: `python tests/run.py` says what to install")
    script = (
        "const { VIEWS } = await import('./explorer/ui/static/views.js');"
        "console.log(JSON.stringify(VIEWS.map((v) => v.id)))"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(["node", "--input-type=module", "-e", script], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_registered_view_is_accepted_in_a_room_and_reaches_its_followers(app):
    client, _ = app
    code, lecturer = lecture(client)
    views = registered_views()
    assert "heatmap" in views and len(views) >= 10
    for view in views:
        sent = client.post(f"/ae/api/room/{code}/view", json=VIEW | {"view": view}, headers=lecturer)
        assert sent.status_code == 200, (view, sent.json())
        with client.stream("GET", f"/ae/api/room/{code}/events") as stream:
            state = next(json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: "))
        assert state["view"]["view"] == view
    refused = client.post(f"/ae/api/room/{code}/view", json=VIEW | {"view": "<script>"}, headers=lecturer)
    assert refused.status_code == 400 and "<script>" in refused.json()["error"]


def test_the_stream_sends_the_state_then_the_lecturers_changes_until_the_room_ends(app):
    client, _ = app
    code, lecturer = lecture(client)
    client.post(f"/ae/api/room/{code}/view", json=VIEW, headers=lecturer)
    events = []
    opened = threading.Event()

    def follow():
        with client.stream("GET", f"/ae/api/room/{code}/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            name = None
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    events.append((name, json.loads(line[6:])))
                    opened.set()
                    if name == "end":
                        return

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert opened.wait(10)
    client.post(f"/ae/api/room/{code}/view", json=VIEW | {"step": 4}, headers=lecturer)
    client.post(f"/ae/api/room/{code}/end", headers=lecturer)
    follower.join(10)
    assert not follower.is_alive(), events
    names = [name for name, _ in events]
    assert names[0] == "state" and events[0][1]["view"]["step"] == 3 and names[-1] == "end"
    assert ("view", 4) in [(name, data.get("step")) for name, data in events]
    assert len(json.dumps(events[1][1])) < 600  # a view change is a few hundred bytes
    gone = client.get(f"/ae/api/room/{code}/events")
    assert gone.status_code == 404 and "no room" in gone.json()["error"]


def test_a_quiet_stream_gets_a_comment_now_and_then_so_a_proxy_keeps_it_open(app, monkeypatch):
    monkeypatch.setattr(room_api, "HEARTBEAT_S", 0.1)
    client, _ = app
    code, lecturer = lecture(client)
    lines: list[str] = []
    quiet = threading.Event()

    def follow():
        with client.stream("GET", f"/ae/api/room/{code}/events") as stream:
            for line in stream.iter_lines():
                lines.append(line)
                if line.startswith(":") and lines[0].startswith("id: "):
                    quiet.set()
                if line == "event: end":
                    return

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert quiet.wait(10), lines  # a comment, which EventSource ignores, after the state and nothing else
    client.post(f"/ae/api/room/{code}/end", headers=lecturer)
    follower.join(10)
    assert not follower.is_alive(), lines
    assert [line[7:] for line in lines if line.startswith("event: ")] == ["state", "end"]


def test_the_qr_code_carries_the_students_address_only(app):
    client, _ = app
    code, _ = lecture(client)
    svg = client.get(f"/ae/api/room/{code}/qr.svg", params={"u": f"https://example.org/?room={code}"})
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml") and b"<svg" in svg.content
    for url in ("javascript:alert(1)", "https://example.org/?room=NOPE", "https://x.org/?room=" + code + "x" * 400):
        refused = client.get(f"/ae/api/room/{code}/qr.svg", params={"u": url})
        assert refused.status_code == 400 and f"link to room {code}" in refused.json()["error"]
