"""MindRecord's exception types (`mindspore.mindrecord.common.exceptions` names), all RuntimeError or ValueError
subclasses so that generic handlers still catch them."""


class MindRecordException(Exception):
    """Base of the MindRecord errors. As MindSpore's, the message reads `[ClassName]: <title> <detail>`
    (MindSpore's tests match on these sentences)."""

    _title = ""

    def __init__(self, detail=""):
        super().__init__(" ".join(part for part in (f"[{type(self).__name__}]:", self._title, detail) if part))


class ParamValueError(MindRecordException, ValueError):
    """An argument has the right type but a wrong value."""

    _title = "Invalid parameter value."


class ParamTypeError(MindRecordException, TypeError):
    """An argument has the wrong type."""

    _title = "Invalid parameter type."


class MRMInvalidSchemaError(MindRecordException, ValueError):
    """The schema given to add_schema is not a valid MindRecord schema."""

    _title = "Schema format is error."


class MRMGetMetaError(MindRecordException, RuntimeError):
    """The writer has no meta information yet (add_index before add_schema)."""

    _title = "Failed to get meta info."


class MRMDefineIndexError(MindRecordException, ValueError):
    """add_index named a field that cannot be indexed."""


class MRMOpenError(MindRecordException, RuntimeError):
    """A MindRecord file could not be opened or is not a valid MindRecord file."""


class MRMValidateDataError(MindRecordException, RuntimeError):
    """No row of a write matched the schema."""
