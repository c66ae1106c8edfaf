"""openspore.serialization: MindSpore-compatible model files (MindIR reading and writing, ONNX export)."""
from .load import load, load_mindir  # noqa: F401
from .mindir_reader import InputInfo, MindIRGraph, read_model  # noqa: F401
from .mindir_values import MindIRError, MindIRFileNotFoundError, UnsupportedOpError  # noqa: F401
from .export import export, save_mindir  # noqa: F401
from .export_graph import ExportError, UnsupportedExportError  # noqa: F401
