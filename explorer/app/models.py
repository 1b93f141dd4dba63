"""The models the server holds and the one way to trace, encode and question a decode with any of them.

The shipped models are served under their keys (`checkpoints/lecture-en-de` as "lecture-en-de"; the first is
the default, which a request may also name "shipped"); a model trained in the app (`training_job.py`) is registered
under an unguessable key that only its trainer's page learns (the run's state names it), and is dropped
`MODEL_IDLE_S` after its last use. Every route of the API comes here, so a trace is computed once per
(model, request) whoever asks, in batches, and kept encoded (`scheduler.Scheduler`, the model line). Each call
names its caller (`callers.Caller`): the line places it by the caller's address.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import threading
from dataclasses import dataclass

from cachetools import TTLCache

from ..errors import UserError
from ..interpret.handle import ModelHandle, load_handle
from ..interpret.request import TraceRequest
from ..interpret.trace import DecodeTrace, build_traces, plan_trace
from ..model.formats import key_name
from . import questions
from .callers import SERVER, Caller
from .encoded import Encoded
from .questions.roles import stored_roles
from .rate_limits import Fairness
from .scheduler import Scheduler
from .schemas import SHIPPED, ServedModel, Translation
from .uploads import Uploads
from .wire import languages, to_wire

MAX_OWN_MODELS = 64  # trained models held at once
MODELS_PER_ADDRESS = MAX_OWN_MODELS // 2  # trained models one address holds: a lab behind one router, not everyone's
MODEL_IDLE_S = 2 * 3600  # a trained model nobody asked about for this long is dropped
log = logging.getLogger("explorer.models")


@dataclass(frozen=True)
class Traced:
    """A decode as the model line keeps it: the typed trace (the questions and the .npz read it at full precision) and
    its wire form (what is sent)."""

    trace: DecodeTrace
    wire: dict

    @property
    def nbytes(self) -> int:
        t = self.trace
        return sum(a.nbytes for a in (t.encoder_self, t.decoder_self, t.cross, t.decoder_self_scores))

    def encode(self) -> Encoded:
        return Encoded.json(self.wire)


def load_served(paths, device="cpu") -> dict[str, ModelHandle]:
    """The checkpoints the server serves to everyone, by key (the folder's name: "lecture-en-de"), in order."""
    served: dict[str, ModelHandle] = {}
    for path in paths:
        key = re.sub(r"[^A-Za-z0-9_-]", "-", key_name(str(path)))[:60] or "model"
        while key in served or key == SHIPPED:
            key += "-2"
        served[key] = load_handle(path, device=device)
    return served


class UnknownModel(UserError):
    """A model key the server does not hold (any more) (404)."""

    status = 404


class ServerFull(UserError):
    """No room for another trained model (409)."""

    status = 409


class ModelRegistry:
    """The shipped models, the trained ones by key, the model line, and the uploaded training files."""

    def __init__(
        self,
        shipped: ModelHandle | dict[str, ModelHandle],
        scheduler: Scheduler | None = None,
        model_idle_s: float = MODEL_IDLE_S,
    ):
        # the shipped models by key, the default first; one handle alone is served as "shipped"
        self.served = dict(shipped) if isinstance(shipped, dict) else {SHIPPED: shipped}
        if not self.served:
            raise ValueError("the server needs at least one model to serve")
        self.default_key = next(iter(self.served))
        self.shipped = self.served[self.default_key]  # the default model: the page opens on it
        self.scheduler = scheduler if scheduler is not None else Scheduler()
        for handle in self.served.values():  # a person's batch computes first (`turns`)
            self.scheduler.turns.watch(handle.model)
        # trained models by key, each kept MODEL_IDLE_S after its last use (`get` starts its time again)
        self.own: TTLCache[str, ModelHandle] = TTLCache(maxsize=MAX_OWN_MODELS, ttl=model_idle_s)
        self.owners: dict[str, list[str]] = {}  # each address's trained models' keys, oldest first
        self.lock = threading.RLock()
        self.fairness = Fairness()  # the one limiter of the API's callers
        self.uploads = Uploads()  # the Train tab's own training files, by id

    def register(self, handle: ModelHandle, owner: str = "") -> str:
        """Hold a model `owner` (an address) trained; returns the key its trainer's page (and whoever it gives the
        key) will use. Nobody's model is pushed out by a newcomer."""
        with self.lock:
            self.room_for_one(owner)
            key = secrets.token_urlsafe(18)
            self.own[key] = handle
            self.owners.setdefault(owner, []).append(key)
            self.scheduler.turns.watch(handle.model)
        return key

    def room_for_one(self, owner: str = "") -> None:
        """Refuse (409) when the server holds `MAX_OWN_MODELS` trained models already, or `owner` holds
        `MODELS_PER_ADDRESS`, none unused for long."""
        with self.lock:
            self.own.expire()
            kept = {who: [key for key in keys if key in self.own] for who, keys in self.owners.items()}
            self.owners = {who: keys for who, keys in kept.items() if keys}
            held = len(self.owners.get(owner, ()))
            if owner and held >= MODELS_PER_ADDRESS:
                raise ServerFull(
                    f"This address ({owner}) already holds {held} trained models, half the server's; try again when "
                    f"one has been unused for {self.own.ttl / 3600:g} hours."
                )
            if len(self.own) >= MAX_OWN_MODELS:
                raise ServerFull(
                    f"The server already holds {MAX_OWN_MODELS} trained models; try again when one has been unused "
                    f"for {self.own.ttl / 3600:g} hours."
                )

    def unregister(self, key: str | None) -> None:
        with self.lock:
            self.own.pop(key, None)

    def key_of(self, handle: ModelHandle) -> str:
        served = next((k for k, h in self.served.items() if h is handle), None)
        if served is not None:
            return served
        with self.lock:
            key = next((k for k, h in self.own.items() if h is handle), None)
        if key is None:  # a trained model dropped while its request ran: never labelled as another model
            raise UnknownModel("That model is not on the server any more (it was unused too long); train a new one.")
        return key

    def get(self, key: str) -> ModelHandle:
        if key == SHIPPED:
            return self.shipped
        if key in self.served:
            return self.served[key]
        with self.lock:
            handle = self.own.get(key)
            if handle is not None:
                self.own[key] = handle  # used: kept MODEL_IDLE_S from now
        if handle is None:
            raise UnknownModel(
                f"The model {key[:40]!r} is not on the server any more, or never was: the models served to everyone "
                f"are {', '.join(map(repr, self.served))}; a model trained here goes {self.own.ttl / 3600:g} hours "
                "after its last use, or when the server restarts. Choose one of the served models (the header's "
                "switch, or model= in a link), or train a new one in the Train tab."
            )
        return handle

    async def awarm(self) -> None:
        """Each served model's per-model answers (its head roles), asked in the model line at start: a class that
        arrives finds them kept, instead of its first student waiting seconds for them."""
        for key in self.served:
            for what, entry in questions.REGISTRY.items():
                if entry.per_model:
                    asked = questions.Ask.model_validate(
                        {"trace": {"sentence": "warm", "model": key}, "question": {"what": what}}
                    )
                    try:
                        await self.aanswer(asked, SERVER)
                    except Exception:  # never stops the server: the first person to ask computes it then
                        log.exception("could not warm %s of %s", what, key)

    def listing(self) -> list[ServedModel]:
        """The shipped models, the default first: what `GET /models` lists and the page offers."""
        return [
            ServedModel(
                key=key,
                name=h.name,
                languages=languages(h),
                default=key == self.default_key,
                parameters=h.model.num_parameters(),
                layers=[h.config.n_encoder_layers, h.config.n_decoder_layers],
                heads=h.config.n_heads,
                best_head=list(h.best_head[1:]) if h.best_head else None,
                roles=stored_roles(h),
            )
            for key, h in self.served.items()
        ]

    # ----- traces: every one in the model line, as its caller's -----------------------------------------------
    def _trace_job(self, handle: ModelHandle, request: TraceRequest) -> dict:
        """What the line needs to compute `request` with `handle`'s model (a bad request is refused here, before it
        waits for the model)."""
        key = self.key_of(handle)
        request = request.with_model(key)  # "shipped" and the default's own key are one decode, echoed by its key
        plan = plan_trace(handle, request)

        def run_batch(plans):  # every wire form made before any is sent (sent one by one, a class waits longer for the
            traced = []  # next batch: bench/class_open.py); a person's batch may go between two of them (`turns`)
            for t in build_traces(handle, plans):
                self.scheduler.turns.wait_turn()
                traced.append(Traced(t, to_wire(t, handle) | {"model_key": key}))
            return traced

        cached_as = (handle.fingerprint, request)  # as `cache_key` makes it, the model's key looked up once
        return dict(key=cached_as, work=plan, run_batch=run_batch, group=handle.fingerprint, encode=Traced.encode)

    def cache_key(self, handle: ModelHandle, request: TraceRequest) -> tuple:
        """The line's key of `request` with `handle`'s model: its fingerprint and the request as its key names it (the
        key is part of the kept answer: its `model_key`, its request's echo)."""
        return (handle.fingerprint, request.with_model(self.key_of(handle)))

    async def _aentry(self, handle: ModelHandle, request: TraceRequest, caller: Caller):
        return await self.scheduler.aentry(**self._trace_job(handle, request), caller=caller)

    async def atraced(self, handle: ModelHandle, request: TraceRequest, caller: Caller) -> Traced:
        """The decode of `request` with `handle`'s model, typed and on the wire, kept or computed in `caller`'s
        place in the line."""
        return (await self._aentry(handle, request, caller))[0]

    async def atrace_encoded(self, handle: ModelHandle, request: TraceRequest, caller: Caller) -> Encoded:
        return (await self._aentry(handle, request, caller))[1]

    async def atranslation(self, query: TraceRequest, caller: Caller) -> Translation:
        """The translation of `query` (its decode's output): a trace, so batched and kept like one."""
        wire = (await self.atraced(self.get(query.model), query, caller)).wire
        return Translation(sentence=query.sentence, translation=wire["outputs"][-1], model=wire["model"]["name"])

    # ----- questions ------------------------------------------------------------------------------
    async def aanswer(self, asked: questions.Ask, caller: Caller) -> Encoded:
        """The answer to one of the viewer's questions, serialised once (`aanswered`'s, as sent)."""
        return (await self.aanswered(asked, caller))[1]

    async def aanswered(self, asked: questions.Ask, caller: Caller) -> tuple[questions.Answer, Encoded]:
        """The answer to one of the viewer's questions about the trace of `asked.trace`, serialised once
        (`explorer.app.questions.encoded`), computed once per (model, request, question) whoever asks and kept in the
        model line's store: a class asking *Heads that matter* about the same example costs one computation, and the
        students who ask while it runs wait for that one. A question that asks the models itself (a second trace) is
        answered by them."""
        entry = questions.REGISTRY[asked.question.what]
        if entry.asks_models:
            answer = await entry.compute(self, asked, caller)
            return answer, await asyncio.to_thread(questions.encoded, answer)  # off the event loop
        handle = self.get(asked.trace.model)
        if entry.per_model:  # the model's answer whatever the sentence: one key, one computation, per model
            key = ("answer", handle.fingerprint, asked.question)
        else:
            key = ("answer", *self.cache_key(handle, asked.trace), asked.question)  # questions are frozen: hashable
        cached = self.scheduler.peek(key)
        if cached is not None:  # answered already: the trace it was about is not needed (nor decoded again if evicted)
            return cached

        def run_batch(jobs):  # one model's questions, each about its own trace, each answer sent as it is ready
            return (questions.answer(handle, trace, q) for trace, q in jobs)

        job = (None if entry.per_model else (await self.atraced(handle, asked.trace, caller)).trace, asked.question)
        # after the traces waiting for a model slot: a student sees their own sentence before anyone's answer (and
        # what the page asks by itself after what people asked: the entry's priority)
        group = ("answer", handle.fingerprint)
        return await self.scheduler.aentry(
            key, job, run_batch, caller, group=group, priority=entry.priority, encode=questions.encoded
        )
