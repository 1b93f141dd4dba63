"""The translator itself: its config, layers (attention, masks, positional encoding, dropout), vocabularies and
checkpoint format, and the weight formats converted into it (Marian). Imports nothing else from `explorer`."""
