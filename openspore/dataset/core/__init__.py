"""`mindspore.dataset.core`: the package of MindSpore's `config` module (`dataset.core.config`)."""
