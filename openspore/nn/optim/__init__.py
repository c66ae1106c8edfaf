"""Optimizers (`mindspore.nn.optim`): each is a Cell applying one fused update primitive per parameter."""
from .optimizer import Optimizer
from .momentum import Momentum
from .sgd import SGD
from .adam import Adam, AdamWeightDecay
from .rmsprop import RMSProp
from .adagrad import Adagrad
from .lamb import Lamb
from .adafactor import AdaFactor
from .more import ASGD, Adadelta, AdaMax, Rprop, ProximalAdagrad, FTRL, LazyAdam, AdamOffload, LARS

__all__ = ["AdaFactor", "Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "RMSProp", "Adagrad", "Lamb", "ASGD", "Adadelta",
           "AdaMax", "Rprop", "ProximalAdagrad", "FTRL", "LazyAdam", "AdamOffload", "LARS"]
