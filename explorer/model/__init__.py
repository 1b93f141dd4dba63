"""The translator itself: its config, layers (attention, masks, positional encoding, dropout), vocabulary and
checkpoint format. Imports nothing else from `explorer`."""
