"""`mindspore.common.parameter`: the module path of Parameter and ParameterTuple (re-exported from core).

>>> from openspore.common.parameter import Parameter
>>> Parameter(1.0, name="p").name
'p'
"""
from ..core.parameter import Parameter, ParameterTuple  # noqa: F401

__all__ = ["Parameter", "ParameterTuple"]
