"""`transforms.Plugin(lib_path, func_name, user_args=None)`: a transform implemented in a shared library built
against MindSpore's C++ dataset plugin interface.

The arguments are checked as MindSpore checks them. openspore has no C++ dataset engine, so it cannot load
such a library: applying the transform raises RuntimeError ("Fail to load" when the file is missing, as
MindSpore; otherwise that MindSpore dataset plugins are not supported). Write the transform in Python
(`PyFunc`-style callables work in `map`) instead.

>>> from openspore.dataset import transforms
>>> plugin = transforms.Plugin("/no/such/lib.so", "ResizeTwice")
>>> try:
...     plugin(b"x")
... except RuntimeError as exc:
...     print(str(exc).splitlines()[0])
Fail to load:/no/such/lib.so.
"""
import os

from .base import TensorOperation


def _check_str(name, value):
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], but got {type(value)}.")


class Plugin(TensorOperation):
    """A transform from a MindSpore dataset plugin library (not loadable in openspore: see the module note)."""

    def __init__(self, lib_path, func_name, user_args=None):
        _check_str("lib_path", lib_path)
        _check_str("func_name", func_name)
        if user_args is not None:
            _check_str("user_args", user_args)
        self.lib_path, self.func_name, self.user_args = lib_path, func_name, user_args

    def _execute(self, *columns):
        if not os.path.isfile(self.lib_path):
            raise RuntimeError(f"Fail to load:{self.lib_path}.\n{self.lib_path}: cannot open shared object file: No "
                               f"such file or directory")
        raise RuntimeError(f"Plugin {self.func_name!r} from {self.lib_path}: MindSpore's C++ dataset plugins are not "
                           f"supported by openspore (it has no C++ dataset engine); write the transform in Python.")
