"""The functional API written before this module, gathered in one namespace (`F.where`, `F.matmul`, ...) for the
composite function modules that build on it (`math_extra_func`, `array_extra_func`, `nn_extra_func`)."""
import types

from . import (array_create_func, array_func, loss_func, math_elementwise_func, math_func, math_linalg_func,
               math_reduce_func, nn_func, nn_layer_func, other_func, random_func)

F = types.SimpleNamespace(**{name: getattr(module, name)
                             for module in (math_func, math_elementwise_func, math_reduce_func, math_linalg_func,
                                            array_func, array_create_func, nn_func, nn_layer_func, loss_func,
                                            other_func, random_func)
                             for name in module.__all__})
