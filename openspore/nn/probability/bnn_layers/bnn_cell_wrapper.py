"""`WithBNNLossCell(backbone, loss_fn, dnn_factor=1, bnn_factor=1)`: the variational training objective.

The loss is `dnn_factor * loss_fn(backbone(x), label) + bnn_factor * Σ layer.compute_kl_loss()` over the
backbone's Bayesian layers (every sub-cell with a `compute_kl_loss`), found once at construction.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> from openspore.nn.probability.bnn_layers import DenseReparam, WithBNNLossCell
>>> net = WithBNNLossCell(DenseReparam(4, 2), nn.MSELoss(), dnn_factor=1.0, bnn_factor=1e-3)
>>> net(ms.Tensor(np.ones((3, 4), np.float32)), ms.Tensor(np.zeros((3, 2), np.float32))).shape
()
"""
from ...cell import Cell

__all__ = ["WithBNNLossCell"]


def _factor(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For 'WithBNNLossCell', '{name}' should be an int or float, but got {type(value).__name__}.")
    return value


class WithBNNLossCell(Cell):
    """Backbone plus loss plus the weighted KL terms of its Bayesian layers."""

    def __init__(self, backbone, loss_fn, dnn_factor=1, bnn_factor=1):
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell) or not isinstance(loss_fn, Cell):
            raise TypeError("For 'WithBNNLossCell', 'backbone' and 'loss_fn' should be Cells, but got "
                            f"{type(backbone).__name__} and {type(loss_fn).__name__}.")
        self._backbone = backbone
        self._loss_fn = loss_fn
        self.dnn_factor = _factor("dnn_factor", dnn_factor)
        self.bnn_factor = _factor("bnn_factor", bnn_factor)
        self._bayesian = [cell for _, cell in backbone.cells_and_names() if hasattr(type(cell), "compute_kl_loss")]

    @property
    def backbone_network(self):
        return self._backbone

    def construct(self, x, label):
        loss = self._loss_fn(self._backbone(x), label) * self.dnn_factor
        for layer in self._bayesian:
            loss = loss + layer.compute_kl_loss() * self.bnn_factor
        return loss
