"""MindRecord's exception types (`mindspore.mindrecord.common.exceptions` names), all RuntimeError or ValueError
subclasses so that generic handlers still catch them."""


class MindRecordException(Exception):
    """Base of the MindRecord errors."""


class ParamValueError(MindRecordException, ValueError):
    """An argument has the right type but a wrong value."""


class ParamTypeError(MindRecordException, TypeError):
    """An argument has the wrong type."""


class MRMInvalidSchemaError(MindRecordException, ValueError):
    """The schema given to add_schema is not a valid MindRecord schema."""


class MRMDefineIndexError(MindRecordException, ValueError):
    """add_index named a field that cannot be indexed."""


class MRMOpenError(MindRecordException, RuntimeError):
    """A MindRecord file could not be opened or is not a valid MindRecord file."""


class MRMValidateDataError(MindRecordException, RuntimeError):
    """No row of a write matched the schema."""
