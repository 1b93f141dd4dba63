"""The API's schemas, in pydantic: what the browser and API users may send (the trace request, the viewer's
questions, the classroom's messages) and what they get back (the wire form of a trace, each answer).

Each limit is declared once, on its field (the trace request, `TraceRequest`, is `explorer.interpret.request`'s),
and every refusal is one sentence that names the field and the value (`refusal`). FastAPI validates the API's
requests with these models and documents them (`/ae/api/openapi.json`, `explorer.app.http_api`); the core validates
here too (`validate`). The answers are held to these schemas by the tests, not on every request.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from ..errors import UserError, shown
from ..interpret.request import (
    LIMITS,
    MAX_CHARS,
    MODEL_KEY,
    SHIPPED,
    Index,
    Kind,
    TraceRequest,
)
from ..model.config import ATTENTION_KINDS
from .limits import MINUTES

Minutes = Annotated[float, Field(ge=MINUTES.low, le=MINUTES.high, title="Training time (minutes)")]
Seed = Annotated[int, *TraceRequest.model_fields["seed"].metadata]  # as a decode's seed


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----- a question about a trace (each question is a module of `explorer.app.questions`) ----------------------
class AskAbout(Strict):
    """A question about the trace of `trace` (the viewer sends the request of the trace it shows)."""

    trace: TraceRequest
    own_model: str | None = Field(None, pattern=MODEL_KEY)  # "compare with the other model": the page's own key


class NpzQuery(TraceRequest):
    """A trace's attention up to `step`, as a .npz download (a link: it names the browser in `client`)."""

    step: Annotated[int, Field(ge=0, lt=10**6, description="the last step whose attention is included")] = 0
    client: str = Field("", max_length=64, description="the browser's id for its fair share (a link sends no header)")

    def trace(self) -> TraceRequest:
        """The trace request this download is of."""
        return TraceRequest.model_validate(self.model_dump(exclude={"step", "client"}))


class Translation(Strict):
    """A whole translation: the greedy decode of `sentence` (with its switched-off heads), cached like a trace."""

    sentence: str
    translation: str
    model: str


class Upload(Strict):
    """A training file the server keeps (`POST /uploads`): the id the Train tab's run names it by, and its size."""

    upload: str
    bytes: int


class TrainRequest(Strict):
    """A training run (`POST /train`): the data (the bundled mini corpus, or an upload's id), the model's size, how
    long, and the seed."""

    corpus: Literal["mini", "upload"] = "mini"
    upload: str = Field("", max_length=64, description='the id `POST /uploads` returned (corpus "upload")')
    preset: str = Field("tiny", max_length=64, description="the model's size: tiny or small")
    minutes: Minutes = MINUTES.default
    seed: Seed = 0


class TrainingStarted(Strict):
    """A training run that started: its id is the secret its events, its stop and its checkpoint are asked by."""

    run: str


class PositionalQuery(Strict):
    """The first `positions` rows of a model's positional-encoding table."""

    positions: Annotated[int, Field(ge=1, le=4096)] = 64
    model: str = Field(SHIPPED, pattern=MODEL_KEY)


class PositionalFigures(Strict):
    """The Positional encoding tab's three charts of a model's table: its first `positions` rows by their first
    `dims` dimensions, the dimensions `waves` names as waves, and the rows' similarity."""

    positions: Annotated[int, Field(ge=2, le=4096)] = 64
    dims: Annotated[int, Field(ge=2, le=4096)] = 128
    waves: str = Field("0, 1, 4, 16", max_length=200, description="dimensions drawn as waves, e.g. 0, 1, 20, 100")
    presentation: bool = False
    model: str = Field(SHIPPED, pattern=MODEL_KEY)


class Positional(Strict):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(...): rows of the model's own buffer."""

    model: str
    d_model: int
    max_len: int
    encoding: list[list[float]]  # [position][dimension]


# ----- a classroom room (explorer/app/rooms.py): what the lecturer sends, what a student answers ---------------
class RoomView(Strict):
    """The lecturer's view, as every follower takes it: the trace request (with its model) and the view state."""

    trace: TraceRequest
    step: Index
    kind: Kind
    layer: Index
    head: Index | Literal["mean", "all", "rollout"]
    # a view's id: the views are the browser's registry (explorer/ui/static/views.js), which a follower's page opens
    # (an id it does not have opens the heatmap); the server keeps no second list of them
    view: str = Field(pattern=r"^[a-z_]{1,32}$", description="a registered view's id, e.g. heatmap, mask")
    lesson: Annotated[int, Field(ge=1, le=32)] | None = None  # the guided lesson's stop (explorer/ui/static/lesson.js)


class RoomQuestion(Strict):
    """Which source token (of `sources`) will cross-attention layer `layer`, head `head` attend to most at `step`?"""

    step: Annotated[int, Field(ge=1, lt=4096)]
    layer: Index
    head: Index
    sources: Annotated[int, Field(ge=1, le=4096)]


class RoomAnswer(Strict):
    """One student's guess for question `question`: a source position; `token` is the page's, from its stream."""

    question: Annotated[int, Field(ge=1)]
    pick: Annotated[int, Field(ge=0, lt=4096)]
    token: str = Field(max_length=64)
    previous: str | None = Field(None, max_length=64, description="the page's token before its stream reconnected")


# ----- what comes back: the wire form of a trace and each question's answer ----------------------------
class Sent(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Languages(Sent):
    """The language pair a model translates, by code and by English name (explorer/model/languages.py)."""

    source: str  # "en"
    target: str  # "fr"
    source_name: str  # "English"
    target_name: str  # "French"


class HeadRole(Sent):
    """One head's role, measured on the probe set (explorer/app/questions/roles.py)."""

    kind: Kind
    layer: int
    head: int
    role: str | None  # None: unlabelled
    says: str  # the role with its score and rule: "previous token: 0.83 of the mass on the token before"
    scores: dict[str, float]  # every score measured


class HeadRoles(Sent):
    """Every head's role, and how many probe sentences measured them."""

    probe: int
    heads: list[HeadRole]


class ServedModel(Sent):
    """A model the server serves to everyone (`GET /models`): its key for `model=`, its name, and its shape."""

    key: str
    name: str
    languages: Languages
    default: bool  # the page opens on it; a request without `model=` (or with "shipped") uses it
    parameters: int
    layers: list[int]  # [encoder, decoder]
    heads: int
    best_head: list[int] | None  # [layer, head] of the cross-attention that aligns words best, where measured
    roles: HeadRoles | None = None  # every head's role where the checkpoint stores them (else: POST /ask/roles)


class WireArray(Sent):
    """A packed array (explorer/app/wire.py): base64 of little-endian 16-bit integers in C order, times `scale`."""

    shape: list[int]
    dtype: Literal["<u2", "<i2"]
    scale: float
    data: str


class BestHead(Sent):
    kind: Kind
    layer: int
    head: int


class WireModel(Sent):
    name: str
    fingerprint: str
    n_layers: dict[Kind, int]
    n_heads: int
    d_head: int
    best_head: BestHead | None  # the head whose cross-attention best predicts word alignment, if measured
    languages: Languages


class Candidate(Sent):
    token: str
    id: int
    prob: float


class WireStep(Sent):
    token: str
    id: int
    prob: float
    forced: bool
    top: list[Candidate]  # the next-token distribution's best candidates at this step


class WireBeam(Sent):
    text: str
    ids: list[int]
    score: float
    log_prob: float
    finished: bool


class WireLens(Sent):
    """The logit lens (explorer/interpret/lens.py), [layer][step][rank]: each decoder layer's top tokens."""

    top_tokens: list[list[list[str]]]
    top_ids: list[list[list[int]]]
    top_probs: list[list[list[float]]]
    chosen: list[list[float]]  # [layer][step]: the probability each layer gives the token chosen at that step


class WireGold(Sent):
    """The sentence's hand alignment (explorer/app/gold.py) against the trace: its links and each head's AER."""

    target: str  # the gold translation (the hand alignments are English → German)
    target_ids: list[int]  # its pieces: forced, they make the trace write the gold translation
    links: int  # gold word links
    matches: bool  # the trace began with the gold translation: cells and AERs are about it (else they are empty)
    cells: list[tuple[int, int]]  # (row: the step's query that produced the target piece, column: source piece)
    aer: list[list[float]]  # [layer][head], cross-attention, this sentence alone
    aer_mean: list[float]  # [layer]: the mean of the layer's heads


class Wire(Sent):
    """A decode trace as the browser gets it: tokens and steps as values, every attention map packed."""

    version: int
    model: WireModel
    model_key: str  # the model's key in the registry: "shipped", or a trained one's
    request: TraceRequest
    source_tokens: list[str]
    source_ids: list[int]
    target_tokens: list[str]
    target_ids: list[int]
    decoder_input_tokens: list[str]
    outputs: list[str]  # outputs[t]: the translation after t steps
    finished: Literal["eos", "length"]
    notes: list[str]
    beams: list[WireBeam]
    steps: list[WireStep]
    attention: dict[Kind, WireArray]  # (L, H, queries, keys) per kind
    scores: dict[Literal["decoder_self"], WireArray]  # q·k/√d_k, teacher-forced, the future included
    rollout: dict[Literal["encoder_self", "cross"], WireArray]
    lens: WireLens | None = None  # a time-lapse point's own (the server's /ask/lens reads the final model); else asked
    gold: WireGold | None = None  # None for a sentence without a hand alignment


class Refusal(Sent):
    """Any route's answer to a request it refuses: one sentence that names the value."""

    error: str


# ----- refusals ----------------------------------------------------------------------------------------
NAMES = {name: field.title for name, field in TraceRequest.model_fields.items()} | {
    "minutes": "Training time (minutes)",
    "what": "The question",
    "kind": "Attention kind",
    "layer": "Layer",
    "head": "Head",
    "row": "Row",
    "column": "Column",
    "step": "Step",
    "trace": "The trace request",
    "question": "The question",
    "positions": "Positions",
    "own_model": "The other model's key",
    "pick": "The answer",
    "token": "The answer token",
    "previous": "The previous answer token",
    "sources": "Source tokens",
    "corpus": "The data",
    "upload": "The upload id",
    "preset": "The model size",
    "presentation": "Presentation mode",
    "dims": "Dimensions",
    "waves": "Wave dimensions",
    "view": "The view",
    "lesson": "The lesson stop",
    "code": "The room code",
    "key": "The lecturer key",
    "x-ae-lecturer": "The lecturer key",
    "last-event-id": "The last event's id (Last-Event-ID)",
    "run": "The run id",
    "client": "The client id",
    "u": "The address to encode",
}


def validate(schema, data):
    """`data` as `schema`, or a UserError naming the first field that is wrong and the value it got."""
    try:
        return TypeAdapter(schema).validate_python(data)
    except ValidationError as exc:
        raise UserError(refusal(exc.errors(include_url=False), data)) from None


def _item(data, loc):
    """The part of `data` at `loc` up to the list item (`("ablation", 0, 2)` -> data["ablation"][0])."""
    try:
        node = data
        for part in loc[: loc.index("ablation") + 2]:
            node = node[part]
        return node
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _as_typed(value) -> str:
    """A number as the person typed it (a query string's "99" is 99), anything else quoted."""
    if isinstance(value, str) and re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", value.strip(), re.IGNORECASE):
        return value.strip()
    return shown(value)


def _figure(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def refusal(errors: list[dict], data=None) -> str:
    """One sentence for the first of pydantic's (or FastAPI's) `errors` about `data`: the field's name, the value
    given and what it may be. FastAPI's locations start with where the value was ("query", "body")."""
    error = errors[0]
    if error["type"] == "json_invalid":
        return f"The request's body is not JSON ({(error.get('ctx') or {}).get('error', 'it cannot be read')})."
    if error["loc"] and error["loc"][0] in ("query", "body", "path", "header"):
        if error["loc"] == ("body",) and isinstance(error.get("input"), bytes | str):  # sent, but not as JSON
            return "The request's body must be a JSON object, sent with the header content-type: application/json."
        error = error | {"loc": tuple(error["loc"][1:])}
    fields = [part for part in error["loc"] if isinstance(part, str) and part in NAMES]
    name = NAMES.get(fields[-1], fields[-1]) if fields else "The request"
    value, kind, ctx = error.get("input"), error["type"], error.get("ctx") or {}
    if kind == "value_error" and isinstance(ctx.get("error"), UserError):
        return str(ctx["error"])
    loc = error["loc"]
    if "ablation" in loc and len(loc) > 2 and kind not in ("literal_error", "greater_than_equal", "less_than"):
        item = _item(data, loc) if data is not None else value
        return f"{shown(item)} is not a head: give [kind, layer, head], e.g. ['cross', 2, 1]."
    if fields and fields[-1] == "sentence" and kind == "string_type":
        return "Type an English sentence first."
    if kind == "missing" and fields == ["sentence"]:
        return "Name a sentence: the request has no sentence=... (the English text to translate)."
    if kind == "missing":
        return f"{name} is missing."
    if kind == "extra_forbidden":
        return f"{shown(error['loc'][-1])} is not something this request takes."
    if kind == "union_tag_not_found":
        return "The question names no `what`: which question it is (its route names it, e.g. /ask/explain)."
    if kind == "union_tag_invalid":
        return f"Unknown question {shown(ctx.get('tag'))}; the viewer asks one of: {ctx.get('expected_tags')}."
    if kind == "literal_error":
        return f"{name} {shown(value)} is not one of the choices: {ctx.get('expected')}."
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        key = fields[-1] if fields else ""
        limit = (LIMITS | {"minutes": MINUTES}).get(key)
        span = f"choose {_figure(limit.low)} to {_figure(limit.high)}" if limit else error["msg"].lower()
        return f"{name} {_as_typed(value)} is out of range: {span}."
    if kind == "string_too_long" and isinstance(value, str):
        if fields and fields[-1] in ("sentence", "prefix"):  # a huge paste, refused before it is normalized
            return (
                f"{name} is {len(value):,} characters long; the explorer takes up to {MAX_CHARS:,} characters "
                "(a sentence or two). Shorten it and try again."
            )
        return f"{name} is {len(value):,} characters long; it may have at most {ctx.get('max_length'):,}."
    if kind == "too_long":
        return f"{name} lists {len(value):,} items; at most {ctx.get('max_length')} are accepted."
    if kind.startswith(("int_", "float_")):
        return f"{name} must be a {'whole ' if kind.startswith('int_') else ''}number (got {shown(value)})."
    return f"{name} {shown(value)} is not valid: {error['msg']}."


assert set(ATTENTION_KINDS) == set(Kind.__args__)  # one list of kinds: the model's


def trace_request(sentence, strategy="greedy", **options) -> TraceRequest:
    """The request for `sentence` with `options` (the fields of `TraceRequest`), or a UserError naming a bad one."""
    return validate(TraceRequest, {"sentence": sentence, "strategy": strategy} | options)
