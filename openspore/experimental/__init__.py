"""`mindspore.experimental`: PyTorch-style APIs (`experimental.optim` optimizers and learning-rate schedulers)."""
