"""`mindspore.dataset.vision.transforms`: MindSpore's module for the vision transform classes; they live in this
package's topic modules, so every public name of `dataset.vision` is answered here too.

>>> from openspore.dataset.vision import transforms
>>> transforms.HWC2CHW is __import__("openspore").dataset.vision.HWC2CHW
True
"""
from . import *  # noqa: F401,F403
