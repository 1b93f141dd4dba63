"""The app's logic, testable without a browser: the API and its limits, the models and the model line
(`scheduler.py`), the wire format the browser reads, server-drawn figures, in-app training runs. May import `model`,
`interpret` and `training`; never gradio."""

from pathlib import Path

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
# the models the app serves, the first the one it opens on: the lecture translator (the Tatoeba model continued on
# lecture text, explorer/training/recipes/lecture_en_de.py), and the Tatoeba model it started from, to compare
SHIPPED_MODELS = (CHECKPOINTS / "lecture-en-de", CHECKPOINTS / "tatoeba-en-de")
SHIPPED_CHECKPOINT = SHIPPED_MODELS[0]  # the default: the app, the benches and the shipped-model tests open on it
