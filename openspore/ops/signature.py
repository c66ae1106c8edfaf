"""`mindspore.ops.signature`: the input signatures a Primitive may declare (`__mindspore_signature__`).

A signature names an input and says whether it is read or written (`sig_rw`: a RW_WRITE input is updated in
place, as `Assign`'s variable), how it is passed (`sig_kind`), and its dtype group (`sig_dtype`: inputs in one
group T..T9 are promoted to one dtype). `make_sig` builds one; a Primitive subclass lists them in
`__mindspore_signature__`. openspore records the signatures for scripts that declare them; its primitives
carry their own type rules.

>>> from openspore.ops import signature as sig
>>> s = sig.make_sig("x", sig.sig_rw.RW_WRITE, dtype=sig.sig_dtype.T)
>>> s.name, s.rw, s.dtype
('x', <signature_rw.RW_WRITE: 1>, <signature_dtype.T: 0>)
"""
from enum import IntEnum


class signature_rw(IntEnum):  # noqa: N801  (MindSpore's enum names)
    RW_READ = 0
    RW_WRITE = 1
    RW_REF = 2
    RW_EMPTY_DEFAULT_VALUE = 3


class signature_kind(IntEnum):  # noqa: N801
    KIND_POSITIONAL_KEYWORD = 0
    KIND_VAR_POSITIONAL = 1
    KIND_KEYWORD_ONLY = 2
    KIND_VAR_KEYWARD = 3
    KIND_EMPTY_DEFAULT_VALUE = 4


signature_dtype = IntEnum("signature_dtype", [(f"T{i}" if i else "T", i) for i in range(10)]
                          + [("T_EMPTY_DEFAULT_VALUE", 10)])
signature_dtype.__module__ = __name__

sig_rw, sig_kind, sig_dtype = signature_rw, signature_kind, signature_dtype


class Signature:
    """One input's signature: name, rw, kind, default value and dtype group."""

    def __init__(self, name, rw, kind, default, dtype):
        self.name, self.rw, self.kind, self.default, self.dtype = name, rw, kind, default, dtype

    def __repr__(self):
        return (f"Signature(name={self.name!r}, rw={self.rw.name}, kind={self.kind.name}, default={self.default!r}, "
                f"dtype={self.dtype.name})")


def make_sig(name="var", rw=sig_rw.RW_READ, kind=sig_kind.KIND_POSITIONAL_KEYWORD,
             default=sig_kind.KIND_EMPTY_DEFAULT_VALUE, dtype=sig_dtype.T_EMPTY_DEFAULT_VALUE):
    """A `Signature` (the defaults: a positional-or-keyword input, read only, no default, no dtype group)."""
    if not isinstance(name, str):
        raise TypeError(f"For 'make_sig', 'name' must be a str, but got {type(name).__name__}.")
    return Signature(name, sig_rw(rw), sig_kind(kind), default, sig_dtype(dtype))
