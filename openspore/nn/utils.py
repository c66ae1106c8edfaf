"""`mindspore.nn.utils`: `no_init_parameters`, a context manager that defers parameter initialization.

Parameters built from an `initializer(...)` inside the block keep the initializer (`has_init` is True) and draw
their values only when first read (a forward pass, `asnumpy()`, `init_parameters_data()`); loading a checkpoint
over them replaces the values without ever drawing them, which is the point: a large network restored from a
checkpoint does not pay for its random initialization. Parameters built from Tensors or arrays are unaffected.
Blocks may nest (MindSpore 2.10's ends deferral at the first inner exit; here the outermost exit ends it).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> with nn.no_init_parameters():
...     net = nn.Dense(3, 2)
>>> net.weight.has_init, net.bias.has_init
(True, True)
>>> net(ms.Tensor(np.ones((1, 3), np.float32))).shape, net.weight.has_init
((1, 2), False)
"""
from contextlib import contextmanager

from ..core import parameter as _parameter

__all__ = ["no_init_parameters"]


@contextmanager
def no_init_parameters():
    """Defer the initialization of Parameters created (from initializers) inside the `with` block."""
    _parameter.DEFERRED_INIT[0] += 1
    try:
        yield
    finally:
        _parameter.DEFERRED_INIT[0] -= 1
