"""The serving master: front ends (gRPC, REST), the dispatcher that batches instances onto workers, and the
worker processes' life cycle."""
from . import context  # noqa: F401
