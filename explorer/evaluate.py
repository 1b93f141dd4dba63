"""Old entry point: `python -m explorer.evaluate` runs `python -m explorer.training.evaluate`."""

import sys

from .training.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
