"""One person's session on the server: a model they trained, its running training job, its files, its fair share.

The session lives in a `gr.State` (see `explorer/ui/common.py`): Gradio creates it on a browser session's first
event, keeps it while events come (each one restarts its time-to-live of `idle_s`) and calls `close` when it
deletes it, which deletes the session's files and drops its model. Everything that depends on the sentence
and the decoding options is a `TraceRequest` answered from the shared `TraceCache`; what the browser shows
(the chosen model, presentation mode) comes with each event, so a session that expired loses only what it
alone held (a trained model), and says so when the browser asks for it.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from ..interpret.handle import ModelHandle
from ..interpret.request import TraceRequest, UserError
from . import markdown
from .callers import ASKING
from .fairness import ADDRESS_IN_FLIGHT, MAX_IN_FLIGHT
from .limits import flag
from .models import ModelRegistry
from .trace_cache import TraceCache

SESSION_IDLE_S = 2 * 3600  # a session without any event for this long is deleted, its trained model and files with it
USE_OWN_LABEL = "Explore my trained model (instead of the shipped one)"


class ExplorerSession:
    """Per-session state and actions; the shipped model and the trace cache are shared, a trained model is private."""

    def __init__(
        self,
        shipped: ModelHandle,
        cache: TraceCache | None = None,
        idle_s: float = SESSION_IDLE_S,
        models: ModelRegistry | None = None,
    ):
        self.lock = threading.RLock()
        self.shipped = shipped
        self.models = models if models is not None else ModelRegistry(shipped, cache)
        self.cache = self.models.cache
        self.idle_s = idle_s
        self.own: ModelHandle | None = None  # a model this session trained
        self.own_key: str | None = None  # its key in `models`, which this session's viewer uses
        self.training = None  # the Trainer of this session's running training job, if any
        self.events = 0  # events admitted so far
        self.lost_own_model = False  # the browser asked for a trained model this session never had: it expired
        self._files: tempfile.TemporaryDirectory | None = None
        self.closed = False

    def __deepcopy__(self, memo):
        # Gradio deep-copies a State's initial value for each browser session: the copy is a new session that shares
        # the shipped model and the trace cache (read-only, shared on purpose) and nothing a person made.
        return ExplorerSession(self.shipped, self.cache, self.idle_s, self.models)

    # ----- lifecycle --------------------------------------------------------------------------
    @contextmanager
    def admit(self, address: str = ""):
        """Run one event of this session from `address`, refused with a message beyond `fairness.MAX_IN_FLIGHT` at
        once for the session or `ADDRESS_IN_FLIGHT` for the address (the limiter the API's callers share); its model
        work waits in the line as that address's."""
        counted = [(f"session:{id(self)}", MAX_IN_FLIGHT, "This session")]
        if address:
            counted.append((f"address:{address}", ADDRESS_IN_FLIGHT, f"This address ({address})"))
        self.models.fairness.enter(counted)
        ASKING.set(address)  # in this event's own context (Gradio runs each in a copy): never reset across threads
        try:
            with self.lock:
                self.events += 1
            yield self
        finally:
            self.models.fairness.leave(counted)

    @property
    def files(self) -> Path:
        """This session's own temporary directory (exports, training runs), deleted by `close`."""
        with self.lock:
            if self._files is None:
                self._files = tempfile.TemporaryDirectory(prefix="explorer-session-")
            return Path(self._files.name)

    def new_training_dir(self) -> Path:
        """A fresh directory for a training run; a session keeps the files of its latest run only."""
        for earlier in self.files.glob("train-*"):
            shutil.rmtree(earlier, ignore_errors=True)
        return Path(tempfile.mkdtemp(prefix="train-", dir=self.files))

    def end_training(self, workdir: Path) -> None:
        """A run ended: delete its working files, keep the checkpoint zip handed out (`close` deletes that)."""
        for item in workdir.iterdir() if workdir.exists() else ():
            if item.is_dir():
                shutil.rmtree(item, ignore_errors=True)
            elif item.suffix != ".zip":
                item.unlink()

    def close(self) -> None:
        """The session ends (Gradio deleted its state): stop its training, drop its model, delete its files."""
        with self.lock:
            self.closed = True
            if self.training is not None:
                self.training.stop()
            self.own = None
            self.models.unregister(self.own_key)
            self.own_key = None
            if self._files is not None:
                self._files.cleanup()
                self._files = None

    # ----- model choice ----------------------------------------------------------------------
    def handle(self, use_own=False) -> ModelHandle:
        """The model to explore: the shipped one, or this session's trained one when the browser asks for it."""
        if not flag(use_own, USE_OWN_LABEL):
            return self.shipped
        if self.own is not None:
            return self.own
        if self.events <= 1 or self.lost_own_model:  # the first event of this session already asks for its model
            self.lost_own_model = True
            hours = self.idle_s / 3600
            idle = f"{hours:g} hour{'s' if hours != 1 else ''}" if hours >= 1 else f"{self.idle_s / 60:g} minutes"
            raise UserError(
                f"Your session expired (nothing happened in it for {idle}, or the server restarted), and the model "
                f"you trained in it went with it. Untick '{USE_OWN_LABEL}' in the Train tab to go on with the shipped "
                "model (your sentence is still here), or train a new model."
            )
        raise UserError(
            f"You have not trained a model in this session yet: use the Train tab first, or untick '{USE_OWN_LABEL}'."
        )

    def choose_model(self, use_own) -> str:
        return f"Exploring **{markdown.escape(self.handle(use_own).name)}**. Press Translate & step to decode with it."

    def set_own_model(self, handle: ModelHandle) -> None:
        with self.lock:
            if not self.closed:
                key = self.models.register(handle)  # first: if the server holds too many, nothing changes
                self.models.unregister(self.own_key)
                self.own, self.own_key = handle, key
                self.lost_own_model = False

    # ----- the decode trace -------------------------------------------------------------------
    def trace(self, request: TraceRequest, use_own=False) -> dict:
        """The wire trace of `request` with the chosen model, from the shared cache when it has it."""
        return self.models.trace(self.handle(use_own), request)

    def stop_training(self) -> str:
        trainer = self.training
        if trainer is None:
            return "No training is running in this session."
        trainer.stop()
        return "Stopping after the current step…"
