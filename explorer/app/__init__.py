"""The app's logic, testable without a browser: per-session state, the shared trace cache, the wire format the
browser reads, server-drawn figures, in-app training. May import `model`, `interpret` and `training`; never gradio."""

from pathlib import Path

# the model the app, the benches and the shipped-model tests open on
SHIPPED_CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "tatoeba-en-de"
