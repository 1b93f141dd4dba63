"""Old entry point: `python -m explorer.train` runs `python -m explorer.training.train`."""

import sys

from .training.train import main

if __name__ == "__main__":
    sys.exit(main())
