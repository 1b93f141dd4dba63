"""Classroom rooms: a lecturer's view, followed live by the students who joined, and the class's guesses.

A room has a short code that students type or scan, and a secret lecturer key that only the lecturer's browser holds:
only that key changes the room. The room keeps the lecturer's current view (the trace request, the model, the step,
kind, layer, head and view: a few hundred bytes) and its open question; each follower gets every change on its own
bounded queue, and a follower that (re)connects first gets the current state, so nobody needs a history. A question
asks which source token a head will attend to most at the next step: each student answers once, answers after the
reveal are refused, and the reveal sends the class's guesses as counts per source token. Every page is told how
many answered at most every `TALLY_S`; how many follow, only the lecturer's pages are told (a student's shows none).

The room tells its followers when no lecturer's page is open on it any more ("lecturer" {"present": false}: a
reload, a closed lid) and when one is again, so a class never waits on a frozen view without a word.

Nothing personal is kept: a follower is an anonymous browser id, used only to count one answer per question. A
page's answer is its stream's: when the stream goes (a phone that lost the network, a reload), its answer still counts,
but each address keeps `DEPARTED_PER_ADDRESS` such answers at most, so a script that reconnects to answer again gains
that many and no more; a page that reconnects names its answer's old token and moves it to its new one, and its
browser names its old stream (`Last-Event-ID`), which goes at once: the page is never counted twice. Rooms and
followers are bounded (`MAX_ROOMS`, `MAX_FOLLOWERS`), and one address holds at most `MAX_ROOMS_PER_ADDRESS` rooms and
half a room's followers (what a whole room held until a review of issue 51): a script can take neither every room nor
a class's. A room ends when its lecturer ends it, `EMPTY_S` after no page (the lecturer's or a student's) is on it any
more, or after `IDLE_S` without a change.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import UserError

MAX_ROOMS = 50
# a lecturer's room and a spare or two; a department whose lecturers share one address sets AE_ROOMS_PER_ADDRESS
MAX_ROOMS_PER_ADDRESS = int(os.environ.get("AE_ROOMS_PER_ADDRESS", "3"))
MAX_FOLLOWERS = 1000  # per room: one address may hold half (a lecture hall behind one router, two devices each)
DEPARTED_PER_ADDRESS = 4  # answers of an address's pages whose streams went, kept for the reveal (the newest)
MAX_WATCHERS = 8  # the lecturer's own pages (tabs) of one room
EMPTY_S = 60.0  # a room no page has been on for this long ends (made and left; a reload comes back within it)
IDLE_S = 3 * 3600.0  # a room nobody changed for this long ends
TALLY_S = 0.25  # how often at most every page is told the count of answers (200 answers were 200 × 200 events)
QUEUE_SIZE = 16  # events waiting for one slow follower; beyond, its oldest are dropped (the newest view wins)
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a projector, they look like 1 and 0
CODE_LENGTH = 4


class Event(NamedTuple):
    """One event for a room's pages: its name, its data, and the server-sent-events frame that carries them, encoded
    once for every follower of a change (`bench/classroom.py`)."""

    name: str
    data: dict
    frame: bytes

    @classmethod
    def of(cls, name: str, data: dict, id: str | None = None) -> Event:
        """`id`: the event's id, which the browser keeps and names (`Last-Event-ID`) when it reconnects by itself."""
        frame = f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        return cls(name, data, (f"id: {id}\n" + frame if id else frame).encode())


GONE = Event.of("gone", {})  # the end of a stream its page replaced by reconnecting: never sent


class RoomError(UserError):
    """A room request refused: the message names the room, the key or the answer."""

    status = 400


class NoRoom(RoomError):
    status = 404


class NotLecturer(RoomError):
    status = 403


class RoomFull(RoomError):
    status = 429


@dataclass
class Question:
    """Which source token will the head attend to most at `step`?"""

    id: int
    step: int
    layer: int
    head: int
    sources: int  # how many source tokens there are to choose from
    trace: dict | None = None  # the trace request the question is about (the room's view when it was asked)
    answers: dict[str, int] = field(default_factory=dict)  # a following page's token -> source position
    departed: dict[str, dict[str, int]] = field(default_factory=dict)  # by address: answers of pages gone, newest last
    revealed: bool = False

    def picks(self) -> list[int]:
        return [*self.answers.values(), *(pick for gone in self.departed.values() for pick in gone.values())]

    def forget(self, token: str) -> int | None:
        """Take `token`'s answer out, whether its page follows or went; its pick, or None."""
        for gone in self.departed.values():
            if token in gone:
                return gone.pop(token)
        return self.answers.pop(token, None)

    def public(self) -> dict:
        out = {"id": self.id, "step": self.step, "layer": self.layer, "head": self.head, "sources": self.sources}
        out["trace"] = self.trace
        out |= {"answered": len(self.picks()), "revealed": self.revealed}
        if self.revealed:
            counts = Counter(self.picks())
            out["counts"] = [counts.get(j, 0) for j in range(self.sources)]
        return out


@dataclass
class Room:
    code: str
    key: str
    owner: str = ""  # the address that made it
    view: dict | None = None
    question: Question | None = None
    questions: int = 0
    followers: dict[int, asyncio.Queue[Event]] = field(default_factory=dict)
    watchers: dict[int, asyncio.Queue[Event]] = field(default_factory=dict)  # the lecturer's own pages: not counted
    tokens: dict[str, int] = field(default_factory=dict)  # a follower's answer token -> its id (one answer each)
    addresses: dict[int, str] = field(default_factory=dict)  # a follower's id -> the address it follows from
    last_seen: float = field(default_factory=time.monotonic)  # when a page last watched or followed
    last_change: float = field(default_factory=time.monotonic)
    ended: bool = False
    told: float = 0.0  # when the pages were last told the count of answers
    tally: asyncio.TimerHandle | None = None  # the next telling, while one is due

    def state(self) -> dict:
        """What a follower needs to be where the class is: the view and the open question."""
        return {
            "code": self.code,
            "view": self.view,
            "question": self.question.public() if self.question else None,
            "following": len(self.followers),
            "lecturer": bool(self.watchers),  # a lecturer's page is open on the room (it drives it)
        }


class Rooms:
    """Every open room, bounded; its methods run on the server's event loop (no locks needed)."""

    def __init__(self, max_rooms: int = MAX_ROOMS, max_followers: int = MAX_FOLLOWERS, idle_s: float = IDLE_S):
        self.max_rooms, self.max_followers, self.idle_s = max_rooms, max_followers, idle_s
        self.max_per_address = max(1, max_followers // 2)  # followers of one room from one address
        self.rooms: dict[str, Room] = {}
        self._next_follower = 0

    # ----- the lecturer ------------------------------------------------------------------------------
    def create(self, owner: str = "") -> Room:
        """A new room for `owner` (an address), which may hold `MAX_ROOMS_PER_ADDRESS` at once."""
        self.expire()
        held = sum(1 for room in self.rooms.values() if room.owner == owner)
        if owner and held >= MAX_ROOMS_PER_ADDRESS:
            raise RoomFull(
                f"This address ({owner}) already holds {held} rooms, its limit; end one (its End room button) or wait "
                f"for an empty one to close ({EMPTY_S:.0f} s after its last page left)."
            )
        if len(self.rooms) >= self.max_rooms:
            raise RoomFull(
                f"This server already holds {len(self.rooms)} rooms, its limit; end one or try again when a class "
                "has finished."
            )
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                break
        room = self.rooms[code] = Room(code, secrets.token_urlsafe(18), owner)
        return room

    def lecturer(self, code: str, key: str | None) -> Room:
        """The room `code` if `key` is its lecturer key."""
        room = self.get(code)
        if not key or not secrets.compare_digest(str(key).encode(), room.key.encode()):
            raise NotLecturer(
                f"Only the lecturer's browser can change room {room.code}: this request has no valid key."
            )
        room.last_change = time.monotonic()
        return room

    def show(self, room: Room, view: dict) -> None:
        room.view = view
        self.send(room, "view", view)

    def ask(self, room: Room, step: int, layer: int, head: int, sources: int) -> Question:
        room.questions += 1
        trace = (room.view or {}).get("trace")
        room.question = Question(room.questions, step, layer, head, sources, trace)
        self.send(room, "question", room.question.public())
        return room.question

    def reveal(self, room: Room) -> Question:
        question = self.open_question(room, None)
        question.revealed = True
        self.send(room, "question", question.public())
        return question

    def end(self, room: Room) -> None:
        room.ended = True
        self.send(room, "end", {"code": room.code})
        self.rooms.pop(room.code, None)

    # ----- the students ------------------------------------------------------------------------------
    def get(self, code: str) -> Room:
        self.expire()
        room = self.rooms.get(str(code).strip().upper()[:16])
        if room is None:
            raise NoRoom(
                f"There is no room {str(code)[:16]!r} on this server (the code has {CODE_LENGTH} letters; the room "
                "may have ended)."
            )
        return room

    def answer(self, code: str, question_id: int, token: str, pick: int, previous: str | None = None) -> Question:
        """One follower's answer; `token` is the one its stream's first event gave it (anonymous, one answer each).
        `previous`: the token the page answered with before its stream reconnected, whose answer this one replaces
        (sent again: the answer its stream's reconnect moved already stands, counted once)."""
        room = self.get(code)
        if room.tokens.get(str(token)) not in room.followers:
            raise RoomError(
                f"Only a page following room {room.code} can answer its question (open the room's address)."
            )
        follower = str(token)
        question = self.open_question(room, question_id)
        if question.revealed:
            raise RoomError(f"Question {question.id} has been revealed: answers are closed.")
        if not 0 <= pick < question.sources:
            last = question.sources - 1
            raise RoomError(f"Source token {pick} does not exist: this sentence has tokens 0 to {last}.")
        if follower in question.answers and not (previous is not None and question.answers[follower] == pick):
            raise RoomError(f"This page has answered question {question.id} already: one answer each.")
        counted = len(question.picks())
        if previous is not None and previous != follower:
            question.forget(str(previous))
        question.answers[follower] = pick
        if len(question.picks()) != counted:  # a re-send or a moved answer changes no count: every page is spared
            self.count_answers(room)
        return question

    def follow(
        self, code: str, key: str | None = None, address: str = "", last: str | None = None
    ) -> tuple[Room, int, asyncio.Queue[Event]]:
        """A new follower's queue (following from `address`); its first event is the room's state, with the page's
        answer token as its id. With the lecturer's key, the lecturer's own page, which gets the same events but is
        not counted as following. `last`: the id of the last event the page had (its old stream's token, which the
        browser names when it reconnects by itself): that stream is over, whether or not its connection is closed yet
        (a phone that lost its network leaves one the server notices minutes later), and goes now."""
        room = self.get(code)
        room.last_seen = time.monotonic()
        self._next_follower += 1
        queue: asyncio.Queue[Event] = asyncio.Queue(QUEUE_SIZE)
        if key is not None:
            room = self.lecturer(code, key)
            if len(room.watchers) >= MAX_WATCHERS:
                raise RoomFull(f"Room {room.code} is open in {len(room.watchers)} of the lecturer's pages already.")
            if not room.watchers:  # the lecturer's page is back (a reload, a laptop that woke): the class is told
                self.send(room, "lecturer", {"present": True})
            room.watchers[self._next_follower] = queue
            queue.put_nowait(Event.of("state", room.state()))
            return room, self._next_follower, queue
        stale = room.tokens.get(str(last)) if last else None
        stale = stale if stale in room.followers else None  # the page's old stream, its connection maybe half-open
        if len(room.followers) - (stale is not None) >= self.max_followers:
            raise RoomFull(f"Room {room.code} has {len(room.followers)} followers already, its limit.")
        mine = sum(1 for f, other in room.addresses.items() if other == address and f != stale)
        if address and mine >= self.max_per_address:
            raise RoomFull(
                f"Room {room.code} has {mine} followers from this address ({address}) already, the most one address "
                "may have: half the room's."
            )
        question = room.question if room.question is not None and not room.question.revealed else None
        moved = question.forget(str(last)) if question is not None and last else None  # following still, or gone
        if stale is not None:  # it goes now: the page counts once, not twice until its old connection is found closed
            old = room.followers[stale]
            self.leave(room, stale)
            while not old.empty():
                old.get_nowait()
            old.put_nowait(GONE)
        room.followers[self._next_follower] = queue
        room.addresses[self._next_follower] = address
        token = secrets.token_urlsafe(12)
        room.tokens[token] = self._next_follower
        if moved is not None:  # its answer goes with it, counted as it was (the page's re-send finds it there)
            question.answers[token] = moved
        queue.put_nowait(Event.of("state", room.state() | {"token": token}, id=token))  # this page's own token
        self.count(room)
        return room, self._next_follower, queue

    def leave(self, room: Room, follower: int) -> None:
        if room.watchers.pop(follower, None) is not None and not room.watchers and not room.ended:
            self.send(room, "lecturer", {"present": False})  # the class learns the lecturer's page went away
        room.last_seen = time.monotonic()
        gone = [t for t, f in room.tokens.items() if f == follower]
        room.tokens = {t: f for t, f in room.tokens.items() if f != follower}
        address = room.addresses.pop(follower, "")
        question = room.question
        for token in gone if question is not None and not question.revealed else ():  # it still counts, bounded
            if token in question.answers:
                kept = question.departed.setdefault(address, {})
                kept[token] = question.answers.pop(token)
                while len(kept) > DEPARTED_PER_ADDRESS:
                    del kept[next(iter(kept))]
        if room.followers.pop(follower, None) is not None and not room.ended:
            self.count(room)

    # ----- both ------------------------------------------------------------------------------------
    def open_question(self, room: Room, question_id: int | None) -> Question:
        question = room.question
        if question is None or (question_id is not None and question.id != question_id):
            raise RoomError(f"Room {room.code} has no question {question_id if question_id is not None else ''} open.")
        return question

    def send(self, room: Room, event: str, data: dict, followers: bool = True) -> None:
        """Put one event on every follower's queue (with `followers` False, on the lecturer's pages' only). A queue
        that is full (a page that does not read) is replaced by one fresh state: it catches up as a reconnecting page
        does, and no view or question is lost."""
        tokens, change = None, Event.of(event, data)
        for follower, queue in [*(room.followers.items() if followers else ()), *room.watchers.items()]:
            if not queue.full():
                queue.put_nowait(change)
                continue
            while not queue.empty():
                queue.get_nowait()
            if tokens is None:
                tokens = {f: t for t, f in room.tokens.items()}
            mine = {"token": tokens[follower]} if follower in tokens else {}  # the page keeps its answer token
            queue.put_nowait(Event.of("state", room.state() | mine, id=mine.get("token")))

    def count(self, room: Room) -> None:
        """Tell the lecturer's pages how many follow. A student's page shows no count (its state has one): told, a
        class of n joining sent n² events, and a script that opened and closed streams made every page pay for it
        (a review of issue 51: 500 a second cost 93% of a core with 50 pages following)."""
        self.send(room, "following", {"following": len(room.followers)}, followers=False)

    def count_answers(self, room: Room) -> None:
        """Tell every page how many answered the open question: at once if they were not told within `TALLY_S`,
        else once at its end, with the count as it is then. A class answering together, or a script answering from
        stream after stream, costs every page a few events a second, not one an answer. Without a running event loop
        (a script, a test), at once."""
        if room.tally is not None:
            return  # told soon, with this answer counted
        wait = room.told + TALLY_S - time.monotonic()
        try:
            loop = asyncio.get_running_loop() if wait > 0 else None
        except RuntimeError:
            loop = None
        if loop is None:
            return self._tell_answers(room)
        room.tally = loop.call_later(wait, self._tell_answers, room)

    def _tell_answers(self, room: Room) -> None:
        room.tally, room.told = None, time.monotonic()
        if room.question is not None and not room.ended:
            self.send(room, "answered", {"id": room.question.id, "answered": len(room.question.picks())})

    def expire(self) -> None:
        """End the rooms idle for `idle_s`, and those nobody has watched or followed for `EMPTY_S` (made and left)."""
        now = time.monotonic()
        for room in list(self.rooms.values()):
            empty = not room.followers and not room.watchers and now - room.last_seen > min(self.idle_s, EMPTY_S)
            if now - room.last_change > self.idle_s or empty:
                self.end(room)
