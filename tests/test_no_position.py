"""Why positional encoding (explorer/interpret/no_position.py): without it the encoder is permutation equivariant,
exactly (to float rounding), and with it it is not; through the API as the view asks."""

from __future__ import annotations

import numpy as np
import torch
from conftest import tiny_config
from starlette.applications import Starlette
from starlette.testclient import TestClient

from explorer.app import http_api
from explorer.app.models import ModelRegistry
from explorer.app.questions.no_position import NoPositionAnswer
from explorer.interpret.no_position import reversal, without_position
from explorer.model.transformer import Transformer

SOURCE = [5, 6, 7, 8, 9, 10, 3]


def test_without_positions_the_encoders_maps_are_the_same_maps_permuted():
    torch.manual_seed(0)
    model = Transformer(tiny_config()).eval()
    found = without_position(model, SOURCE)
    assert reversal(SOURCE) == found.order == [5, 4, 3, 2, 1, 0, 6]  # reversed, </s> kept last
    order = found.order
    for layer in range(2):
        for head in range(4):
            a, b = found.original[layer, head], found.reversed[layer, head]
            for i in range(len(SOURCE)):
                for j in range(len(SOURCE)):
                    assert abs(b[i, j] - a[order[i], order[j]]) < 1e-6  # B[i, j] = A[π(i), π(j)]
    assert found.gap_without < 1e-6
    assert found.gap_with > 1e-3  # with the encoding, order changes what attends to what
    assert set(found.translations) == {"with", "without", "reversed_without"}


def test_the_api_answers_the_question(mini_handle):
    client = TestClient(Starlette(routes=http_api.routes(ModelRegistry(mini_handle))), headers={"x-ae-client": "t"})
    body = {"trace": {"sentence": "The dog sees the cat."}, "question": {}}
    answer = client.post("/ae/api/ask/no_position", json=body)
    assert answer.status_code == 200, answer.text[:300]
    parsed = NoPositionAnswer.model_validate(answer.json())
    S = len(parsed.source_tokens)
    assert np.array(parsed.original).shape == (2, 4, S, S) and parsed.gap_without < 1e-5


def test_the_sentence_the_view_offers_makes_its_point_with_the_shipped_model():
    """Issue 66 #7: on the opening example, No positions changes nothing (a student sees no point), so the view offers
    a sentence whose meaning is in its word order (nopos.js `offer`): without positions the shipped model loses who
    does what."""
    import re
    from pathlib import Path

    from explorer.app import SHIPPED_CHECKPOINT
    from explorer.app.examples import OPENING_EXAMPLE
    from explorer.interpret.handle import load_handle

    view = (Path(__file__).parents[1] / "explorer" / "ui" / "static" / "nopos.js").read_text(encoding="utf-8")
    offered = re.search(r'offer: \{ sentence: "([^"]+)"', view).group(1)
    handle = load_handle(SHIPPED_CHECKPOINT)

    def translations(sentence: str) -> dict[str, str]:
        found = without_position(handle.model, handle.tokenizer.encode(sentence))
        return {k: handle.tokenizer.decode(v) for k, v in found.translations.items()}

    opening, offer = translations(OPENING_EXAMPLE), translations(offered)
    assert opening["with"] == opening["without"]  # the opening example makes no point here
    assert offer["with"] == "Der Hund beißt den Mann."
    assert offer["without"].startswith("Der Hund beißt den Hund.")  # the man is gone: order was his only mark
