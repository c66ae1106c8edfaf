"""`python -m openspore.serving.server.worker ...`: the worker process entry point (started by the master)."""
import sys

from ._worker import run

sys.exit(run())
