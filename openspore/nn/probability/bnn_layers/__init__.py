"""MindSpore's `nn.probability.bnn_layers`: Bayesian layers with Normal weight posteriors, and their loss wrapper."""
from .bnn_cell_wrapper import WithBNNLossCell
from .layer_distribution import NormalPosterior, NormalPrior
from .variational import ConvReparam, DenseLocalReparam, DenseReparam

__all__ = ["DenseReparam", "DenseLocalReparam", "ConvReparam", "NormalPrior", "NormalPosterior", "WithBNNLossCell"]
