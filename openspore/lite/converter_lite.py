"""`converter_lite` / `python -m openspore.lite.converter_lite`: the converter command (see converter.py)."""
import sys

from .converter import main

if __name__ == "__main__":
    sys.exit(main())
