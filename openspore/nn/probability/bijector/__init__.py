"""MindSpore's `nn.probability.bijector`: invertible transformations as Cells, written in openspore ops."""
from .bijector import Bijector
from .transforms import Exp, GumbelCDF, Invert, PowerTransform, ScalarAffine, Softplus

__all__ = ["Bijector", "Exp", "PowerTransform", "ScalarAffine", "Softplus", "GumbelCDF", "Invert"]
