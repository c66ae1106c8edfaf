"""openspore.serialization: MindSpore-compatible model files (MindIR reading; export comes with graph capture)."""
from .load import load, load_mindir  # noqa: F401
from .mindir_reader import InputInfo, MindIRGraph, read_model  # noqa: F401
from .mindir_values import MindIRError, MindIRFileNotFoundError, UnsupportedOpError  # noqa: F401
