"""`mindspore.dataset.text.utils`: `Vocab`, the text enums (`JiebaMode`, `NormalizeForm`, ...) and `to_str` /
`to_bytes`, answered from `dataset.text`.

>>> import numpy as np
>>> from openspore.dataset.text import utils
>>> utils.to_str(np.array([b"ab", b"c"])).tolist()
['ab', 'c']
"""
from . import *  # noqa: F401,F403
