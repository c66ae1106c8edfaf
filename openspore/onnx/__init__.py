"""`openspore.onnx` (MindSpore's `mindspore.onnx`): ONNX export.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> ms.onnx.export(nn.Dense(4, 3), ms.Tensor(np.ones((2, 4), np.float32)), file_name="dense")  # doctest: +SKIP

The `onnx` package is imported only when exporting (`pip install openspore[onnx]`).
"""


def export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None):
    """export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
    keep_initializers_as_inputs=False, dynamic_axes=None): write `net` (switched to eval mode for the
    export) as `file_name.onnx`; returns the file's path."""
    from ..serialization.onnx_export import export_onnx
    return export_onnx(net, inputs, file_name, where="onnx.export", input_names=input_names,
                       output_names=output_names, export_params=export_params,
                       keep_initializers_as_inputs=keep_initializers_as_inputs, dynamic_axes=dynamic_axes)
