"""`python -m openspore <command>`: the same as the `openspore` console script."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
