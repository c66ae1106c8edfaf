"""`mindspore.experimental.optim`: PyTorch-style optimizers with `param_groups`, driven by `lr_scheduler`.

>>> import numpy as np, openspore as ms
>>> from openspore.experimental import optim
>>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
>>> opt = optim.SGD([w], lr=0.1)
>>> scheduler = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
>>> _ = opt((ms.Tensor(np.ones(2, np.float32)),)); _ = scheduler.step()
>>> w.asnumpy().tolist(), float(scheduler.get_last_lr()[0])
([0.8999999761581421, 0.8999999761581421], 0.05000000074505806)
"""
from .optimizer import Optimizer
from .adam import Adam, AdamW
from .sgd import SGD
from .adaptive import Adadelta, Adagrad, RMSprop
from .adam_variants import Adamax, NAdam, RAdam
from .asgd_rprop import ASGD, Rprop
from . import lr_scheduler

__all__ = ["Optimizer", "Adam", "AdamW", "SGD", "ASGD", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "RMSprop",
           "Rprop", "lr_scheduler"]
