"""`mindspore.dataset.audio.utils`: the audio enums (`ScaleType`, `WindowType`, `NormType`, ...) and the filter-bank
helpers (`create_dct`, `melscale_fbanks`, `linear_fbanks`), answered from `dataset.audio`.

>>> from openspore.dataset.audio import utils
>>> utils.ScaleType.POWER.value
'power'
"""
from . import *  # noqa: F401,F403
