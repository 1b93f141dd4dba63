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
