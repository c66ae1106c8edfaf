"""MindSpore's `nn.probability`: distributions and bijectors (the two submodules MindSpore 2.10 has)."""
from . import bijector, distribution

__all__ = ["bijector", "distribution"]
