"""The app's logic, testable without a browser: per-session state, the shared trace cache, the wire format the
browser reads, server-drawn figures, in-app training. May import `model`, `interpret` and `training`; never gradio."""
