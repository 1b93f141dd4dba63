"""Looking inside the model: forward hooks, step-by-step and batched decoding, the decode trace, word alignment,
and the validated requests that drive them. May import `explorer.model`."""
