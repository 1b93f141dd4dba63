"""The API's schemas, in pydantic: what the browser and API users may send (the trace request, the viewer's
questions, the classroom's messages) and what they get back (the wire form of a trace, each answer).

Each limit is declared once, on its field (the trace request, `TraceRequest`, is `explorer.interpret.request`'s),
and every refusal is one sentence that names the field and the value (`refusal`). FastAPI validates the API's
requests with these models and documents them (`/ae/api/openapi.json`, `explorer.app.http_api`); the core validates
here too (`validate`). The answers are held to these schemas by the tests, not on every request.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
)

from ..interpret.request import (
    LIMITS,
    MAX_CHARS,
    MODEL_KEY,
    SHIPPED,
    Index,
    Kind,
    TraceRequest,
    UserError,
    shown,
)
from ..model.config import ATTENTION_KINDS
from .limits import MINUTES

Minutes = Annotated[float, Field(ge=MINUTES.low, le=MINUTES.high, title="Training time (minutes)")]
Seed = Annotated[int, *TraceRequest.model_fields["seed"].metadata]  # as a decode's seed


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----- the viewer's questions about a trace ----------------------------------------------------------
class Explain(Strict):
    """One attention weight's arithmetic: q, k, q·k/√d_k, the mask, the softmax."""

    what: Literal["explain"] = "explain"
    kind: Kind
    layer: Index
    head: Index
    row: Index
    column: Index


class Heads(Strict):
    """The log-probability the translation loses with each head off alone: estimated to first order in one pass (the
    gradient of a gate on each head's output, Michel et al. 2019), or exact (each head switched off), which comes
    with the estimate beside it and the rank correlation of the two."""

    what: Literal["heads"] = "heads"
    method: Literal["estimate", "exact"] = "exact"


class Attribution(Strict):
    """Step `step`'s token attributed to the source, beside one cross-attention row (a head, the mean, rollout)."""

    what: Literal["attribution"] = "attribution"
    step: Annotated[int, Field(ge=1, lt=4096)]
    layer: Index
    head: Index | Literal["mean", "rollout"]


class BeamTree(Strict):
    """Every hypothesis beam search kept, pruned, finished or cut."""

    what: Literal["beam_tree"] = "beam_tree"


class Compare(Strict):
    """A second trace: another sentence with the same options, or the same one with another model: a model's key,
    "own" (the page's trained model), or "other" (the trained model beside a shipped one, else the next shipped
    model)."""

    what: Literal["compare"] = "compare"
    sentence: str = Field("", max_length=4 * MAX_CHARS)
    model: str = Field(
        "same",
        pattern=MODEL_KEY,
        description='"same", "other", "own" (the trained model), or a model\'s key',
    )


class ValuePathQuestion(Strict):
    """What head `head` of `kind` layer `layer` carries for query `row`: x, LN(x), q/k/v, weights, Σ w·v, the heads
    concatenated, the output projection and the residual."""

    what: Literal["value_path"] = "value_path"
    kind: Kind
    layer: Index
    head: Index
    row: Index


class QKSpaceQuestion(Strict):
    """Head `head` of `kind` layer `layer`: every query and key projected together onto two principal directions."""

    what: Literal["qk_space"] = "qk_space"
    kind: Kind
    layer: Index
    head: Index


class NoPositionQuestion(Strict):
    """The sentence without the positional encoding, as typed and reversed: the encoder's maps, the translations."""

    what: Literal["no_position"] = "no_position"


class Maskless(Strict):
    """The same small model trained without the look-ahead mask, beside its masked twin, on this sentence."""

    what: Literal["maskless"] = "maskless"


class LensQuestion(Strict):
    """The logit lens: what each decoder layer would predict at each step if decoding stopped there."""

    what: Literal["lens"] = "lens"


# every question the viewer asks, once: the union FastAPI validates, the routes (`ASKS`) and their names derive from it
QUESTION_KINDS = (
    Explain, Heads, Attribution, BeamTree, Compare, Maskless, ValuePathQuestion, QKSpaceQuestion, NoPositionQuestion,
    LensQuestion,
)  # fmt: skip
Question = Annotated[Union[QUESTION_KINDS], Field(discriminator="what")]  # noqa: UP007 - a union of a tuple
QUESTIONS = tuple(kind.model_fields["what"].default for kind in QUESTION_KINDS)


class Ask(Strict):
    """A question about the trace of `trace` (the viewer sends the request of the trace it shows)."""

    trace: TraceRequest
    question: Question
    own_model: str | None = Field(None, pattern=MODEL_KEY)  # "compare with the other model": the page's own key


# each question's route takes its own body (`POST /ae/api/ask/explain` an `AskExplain`, ...): typed and documented
ASKS = {
    what: create_model(f"Ask{kind.__name__}", __base__=Ask, __doc__=kind.__doc__, question=(kind, ...))
    for what, kind in zip(QUESTIONS, QUESTION_KINDS, strict=True)
}


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


# ----- what comes back: the wire form of a trace and each question's answer ----------------------------
class Sent(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServedModel(Sent):
    """A model the server serves to everyone (`GET /models`): its key for `model=`, its name, and its shape."""

    key: str
    name: str
    default: bool  # the page opens on it; a request without `model=` (or with "shipped") uses it
    parameters: int
    layers: list[int]  # [encoder, decoder]
    heads: int
    best_head: list[int] | None  # [layer, head] of the cross-attention that aligns words best, where measured


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

    target: str  # the gold German
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


class ExplainAnswer(Sent):
    what: Literal["explain"]
    kind: Kind
    layer: int
    head: int
    row: int
    column: int
    row_token: str
    column_token: str
    column_tokens: list[str]
    query: list[float]
    key: list[float]
    dot: float
    scale: float  # √d_k
    scores: list[float | None]  # the row's q·k/√d_k; None where the mask sets −∞
    max_score: float
    denominator: float
    weights: list[float]
    weight: float


class HeadsAnswer(Sent):
    what: Literal["heads"]
    method: Literal["estimate", "exact"]
    drops: dict[Kind, list[list[float | None]]]  # [layer][head]: log p lost with that head off; None: off already
    log_prob: float
    translation: str
    estimate: dict[Kind, list[list[float | None]]] | None  # exact answers: the one-pass estimate, on the same scale
    rho: float | None  # exact answers: Spearman's rank correlation of the estimate with the exact drops


class AttentionRow(Sent):
    which: str
    weights: list[float]


class AttributionMethod(Sent):
    scores: list[float]
    rank_correlation: float | None  # None: undefined (a constant row)
    log_prob: float
    steps: int | None = None  # integrated gradients only
    baseline_log_prob: float | None = None
    completeness_gap: float | None = None


class AttributionAnswer(Sent):
    what: Literal["attribution"]
    step: int
    token: str
    source_tokens: list[str]
    attention: AttentionRow
    methods: dict[Literal["gradient_x_input", "integrated_gradients"], AttributionMethod]


class BeamNode(Sent):
    id: int
    parent: int  # -1: the root <s>
    step: int
    token: str
    token_id: int
    log_prob: float
    status: Literal["kept", "pruned", "finished", "cut"]
    score: float | None


class BeamTreeAnswer(Sent):
    what: Literal["beam_tree"]
    beam_size: int
    alpha: float
    winner: int
    translation: str
    nodes: list[BeamNode]


class CompareAnswer(Sent):
    what: Literal["compare"]
    wire: Wire


class CompanionRun(Sent):
    final_loss: float  # mean training loss over its last logged steps
    valid_loss: float
    chrf: float | None
    steps: int | None


class ForcedAttention(Sent):
    """The maskless model teacher-forced on its twin's translation, as in training: one decoder self-attention head."""

    inputs: list[str]  # decoder inputs: <s> and the translation
    targets: list[str]  # what each position must predict (the next input)
    layer: int
    head: int  # the head that puts the most weight on the next position
    weights: list[list[float]]  # (T, T): row i is input i's query, the future included
    next_weight: float  # mean weight on position i + 1: the word it is asked to predict
    accuracy: float  # teacher-forced next-token accuracy (it reads the answer)


class MasklessAnswer(Sent):
    what: Literal["maskless"]
    runs: dict[Literal["with_mask", "without_mask"], CompanionRun]
    losses: dict[Literal["with_mask", "without_mask"], list[list[float]]]  # [step, training loss]
    translations: dict[Literal["with_mask", "without_mask"], str]  # greedy, of the sentence on screen
    forced: ForcedAttention


class ValuePathAnswer(Sent):
    what: Literal["value_path"]
    kind: Kind
    layer: int
    head: int
    row: int
    row_token: str
    key_tokens: list[str]  # the keys the query may see
    d_model: int
    d_head: int
    norm_first: bool
    embedding: list[float] | None  # embedding · √d_model, at layer 0 of a self-attention
    position: list[float] | None  # PE(row), likewise
    x: list[float]
    normed: list[float]
    query: list[float]
    keys: list[list[float]]
    values: list[list[float]]
    weights: list[float]
    z: list[float]  # Σ_j w_j v_j
    concat: list[float]  # every head's z side by side (the module's own)
    out: list[float]
    residual: list[float]


class QKSpaceAnswer(Sent):
    what: Literal["qk_space"]
    kind: Kind
    layer: int
    head: int
    query_tokens: list[str]
    key_tokens: list[str]
    query_points: list[list[float]]  # [query][x, y]
    key_points: list[list[float]]  # [key][x, y]
    weights: list[list[float]]  # [query][key]
    explained: list[float]  # the share of the variance of each direction
    components: list[list[float]]  # the two directions (d_head each)
    mean: list[float]  # the centre subtracted first


class NoPositionAnswer(Sent):
    what: Literal["no_position"]
    source_tokens: list[str]
    order: list[int]  # position i of the reversed sentence holds piece order[i]
    original: list[list[list[list[float]]]]  # [layer][head][query][key] without PE, as typed
    reversed: list[list[list[list[float]]]]  # the same, the pieces reversed
    gap_without: float  # how far the reversed maps are from the original ones permuted, without PE (rounding only)
    gap_with: float  # the same with PE: the maps change with the order
    translations: dict[Literal["with", "without", "reversed_without"], str]


class LensAnswer(WireLens):
    what: Literal["lens"]


class Refusal(Sent):
    """Any route's answer to a request it refuses: one sentence that names the value."""

    error: str


ANSWERS = {
    "explain": ExplainAnswer,
    "heads": HeadsAnswer,
    "attribution": AttributionAnswer,
    "beam_tree": BeamTreeAnswer,
    "compare": CompareAnswer,
    "maskless": MasklessAnswer,
    "value_path": ValuePathAnswer,
    "lens": LensAnswer,
    "qk_space": QKSpaceAnswer,
    "no_position": NoPositionAnswer,
}


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
    "sources": "Source tokens",
    "corpus": "The data",
    "upload": "The upload id",
    "preset": "The model size",
    "presentation": "Presentation mode",
    "dims": "Dimensions",
    "waves": "Wave dimensions",
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
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f"Unknown question {shown(ctx.get('tag'))}; the viewer asks one of: {', '.join(QUESTIONS)}."
    if kind == "literal_error":
        return f"{name} {shown(value)} is not one of the choices: {ctx.get('expected')}."
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        key = fields[-1] if fields else ""
        limit = (LIMITS | {"minutes": MINUTES}).get(key)
        span = f"choose {_figure(limit.low)} to {_figure(limit.high)}" if limit else error["msg"].lower()
        return f"{name} {_as_typed(value)} is out of range: {span}."
    if kind == "string_too_long" and isinstance(value, str):
        return (
            f"{name} is {len(value):,} characters long; the explorer takes up to {MAX_CHARS:,} characters "
            "(a sentence or two). Shorten it and try again."
        )
    if kind == "too_long":
        return f"{name} lists {len(value):,} items; at most {ctx.get('max_length')} are accepted."
    if kind.startswith(("int_", "float_")):
        return f"{name} must be a {'whole ' if kind.startswith('int_') else ''}number (got {shown(value)})."
    return f"{name} {shown(value)} is not valid: {error['msg']}."


assert set(ATTENTION_KINDS) == set(Kind.__args__)  # one list of kinds: the model's


def trace_request(sentence, strategy="greedy", **options) -> TraceRequest:
    """The request for `sentence` with `options` (the fields of `TraceRequest`), or a UserError naming a bad one."""
    return validate(TraceRequest, {"sentence": sentence, "strategy": strategy} | options)
