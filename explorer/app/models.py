"""The models the server holds and the one way to trace, encode and question a decode with any of them.

The shipped model is `"shipped"`; a model a browser session trains is registered under an unguessable key
that only that session's viewer learns (it travels in the session's own traces), and is dropped when the
session ends. The plain routes (`http_api`) and the Gradio events (`session`) both come here, so a trace
is computed once per (model, request) whoever asks, in batches, and kept encoded (`TraceCache`).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass

from ..interpret.handle import ModelHandle
from ..interpret.request import TraceRequest, UserError
from ..interpret.trace import DecodeTrace, build_traces, plan_trace
from . import probes
from .encoded import Encoded
from .fairness import Fairness
from .schemas import SHIPPED, Ask, Compare, TraceQuery, Translation, validate
from .trace_cache import TraceCache
from .uploads import Uploads
from .wire import to_wire

MAX_OWN_MODELS = 64  # trained models held at once (each belongs to a live browser session)


@dataclass(frozen=True)
class Traced:
    """A decode as the cache keeps it: the typed trace (the questions and the .npz read it at full precision) and
    its wire form (what is sent)."""

    trace: DecodeTrace
    wire: dict

    @property
    def nbytes(self) -> int:
        t = self.trace
        return sum(a.nbytes for a in (t.encoder_self, t.decoder_self, t.cross, t.decoder_self_scores))

    def encode(self) -> Encoded:
        return Encoded.json(self.wire)


class UnknownModel(UserError):
    """A model key the server does not hold (any more) (404)."""

    status = 404


class ModelRegistry:
    """The shipped model, the sessions' trained ones by key, the shared trace cache, and the uploaded training
    files."""

    def __init__(self, shipped: ModelHandle, cache: TraceCache | None = None):
        self.shipped = shipped
        self.cache = cache if cache is not None else TraceCache()
        self.own: dict[str, ModelHandle] = {}
        self.lock = threading.Lock()
        self.fairness = Fairness()  # the one limiter: the API's callers and the tabs' sessions
        self.uploads = Uploads()  # the Train tab's own training files, by id

    def register(self, handle: ModelHandle) -> str:
        """Hold a trained model; returns the key its session's viewer will use."""
        with self.lock:
            if len(self.own) >= MAX_OWN_MODELS:
                raise UserError(
                    f"The server already holds {MAX_OWN_MODELS} trained models; try again when a session has ended."
                )
            key = secrets.token_urlsafe(18)
            self.own[key] = handle
        return key

    def unregister(self, key: str | None) -> None:
        with self.lock:
            self.own.pop(key, None)

    def key_of(self, handle: ModelHandle) -> str:
        if handle is self.shipped:
            return SHIPPED
        with self.lock:
            return next((k for k, h in self.own.items() if h is handle), SHIPPED)

    def get(self, key: str) -> ModelHandle:
        if key == SHIPPED:
            return self.shipped
        with self.lock:
            handle = self.own.get(key)
        if handle is None:
            raise UnknownModel(
                f"The model {key[:12]!r}… is not on the server any more (its session expired, or the server "
                "restarted). Untick 'Explore my trained model' to go on with the shipped model, or train a new one."
            )
        return handle

    # ----- traces ---------------------------------------------------------------------------------
    def _entry(self, handle: ModelHandle, request: TraceRequest):
        plan = plan_trace(handle, request)  # a bad request is refused here, before it waits for the model
        key = self.key_of(handle)

        def run_batch(plans):
            return [Traced(t, to_wire(t, handle) | {"model_key": key}) for t in build_traces(handle, plans)]

        # the key is part of the cached answer (its model_key), so of the cache key too
        cache_key = (handle.fingerprint, key, request)
        return self.cache.entry(cache_key, plan, run_batch, group=handle.fingerprint, encode=Traced.encode)

    def traced(self, handle: ModelHandle, request: TraceRequest) -> Traced:
        """The decode of `request` with `handle`'s model, typed and on the wire, from the shared cache if it has it."""
        return self._entry(handle, request)[0]

    def trace(self, handle: ModelHandle, request: TraceRequest) -> dict:
        """The wire trace of `request` with `handle`'s model, from the shared cache when it has it."""
        return self.traced(handle, request).wire

    def trace_encoded(self, handle: ModelHandle, request: TraceRequest) -> Encoded:
        return self._entry(handle, request)[1]

    def translation(self, query: TraceQuery) -> Translation:
        """The translation of `query` (its decode's output): a trace, so batched and cached like one."""
        wire = self.trace(self.get(query.model), query.to_request())
        return Translation(sentence=query.sentence, translation=wire["outputs"][-1], model=wire["model"]["name"])

    # ----- questions ------------------------------------------------------------------------------
    def answer(self, asked: Ask) -> dict:
        """The answer to one of the viewer's questions about the trace of `asked.trace`, computed once per (model,
        request, question) whoever asks and kept in the shared cache: a class asking *Heads that matter* about the
        same example costs one computation, and the students who ask while it runs wait for that one."""
        handle = self.get(asked.trace.model)
        request = asked.trace.to_request()
        question = asked.question
        if isinstance(question, Compare):
            return self.compare(asked.trace, question, asked.own_model)
        key = ("answer", handle.fingerprint, request, question)  # questions are frozen: hashable, equal by value
        cached = self.cache.peek(key)
        if cached is not None:  # answered already: the trace it was about is not needed (nor decoded again if evicted)
            return cached[0]

        def run_batch(jobs):  # one model's questions, each about its own trace, each answer sent as it is ready
            return (probes.answer(handle, trace, q) for trace, q in jobs)

        job = (self.traced(handle, request).trace, question)
        # after the traces waiting for a model slot: a student sees their own sentence before anyone's answer
        return self.cache.entry(key, job, run_batch, group=("answer", handle.fingerprint), priority=1)[0]

    def compare(self, query: TraceQuery, question: Compare, own_model: str | None) -> dict:
        """The second trace of "compare two": `question.sentence` (or the same) with the request's options,
        with the same model or the other one (the shipped model and the session's trained one)."""
        if question.model == "same":
            other = query.model
        elif query.model != SHIPPED:
            other = SHIPPED
        elif own_model is None:
            raise UserError("There is no other model to compare with: train one in the Train tab first.")
        else:
            other = own_model
        values = query.model_dump() | {"model": other, "forced_ids": (), "prefix": ""}
        if question.sentence.strip():
            values["sentence"] = question.sentence
        second = validate(TraceQuery, values)  # the second sentence is checked like any other
        handle = self.get(other)
        return {"what": "compare", "wire": self.trace(handle, second.to_request())}
