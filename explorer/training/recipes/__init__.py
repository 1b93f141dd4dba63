"""Training recipes, one module per model: `python -m explorer.training.train --recipe NAME --out DIR`."""
