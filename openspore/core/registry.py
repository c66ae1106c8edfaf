"""The primitive table, and the one way code inside openspore gets a primitive instance: `prim`.

`prim(P.MatMul, transpose_b=True)` returns the shared instance for (class, attributes); `prim("MatMul", ...)`
looks the class up by its registered name (backward rules use names to avoid import cycles). The functional
API, Tensor methods, indexing and backward rules call primitives thousands of times per training step with a
handful of attribute sets, so building a fresh instance (and re-running its attribute checks) every call is
waste. Shared instances are never mutated: code that renames or re-attributes a primitive (a Cell member,
`add_prim_attr`) builds its own with `P.X(...)`.

The signatures PyNative has already checked with `infer` (core/dispatch.py) are kept per (class, attributes)
too, so equal instances, shared or not, check a call signature once between them.

This module imports nothing from openspore: `primitive` (the base class) and `dispatch` (bind) both build on it.

>>> import openspore as ms
>>> from openspore.core.registry import prim
>>> prim(ms.ops.MatMul, transpose_b=True) is prim("MatMul", transpose_b=True)
True
"""

PRIMITIVES = {}  # name -> Primitive subclass, in registration order

_INSTANCES = {}  # (class or name, attribute items as given) -> the shared instance
_CANONICAL = {}  # (class, attribute items sorted, frozen) -> the shared instance
_SIGNATURES = {}  # (class, attribute items sorted, frozen) -> signatures `infer` accepted (dispatch.py)
_LIMIT = 4096  # shared instances (and signature sets) kept before starting over


def register(cls):
    """Add a Primitive subclass to the table (class decorator)."""
    if cls.name in PRIMITIVES and PRIMITIVES[cls.name] is not cls:
        raise ValueError(f"Primitive '{cls.name}' is registered twice ({PRIMITIVES[cls.name].__module__} and {cls.__module__}).")
    if not cls.differentiable and not cls.nondiff_reason:
        raise ValueError(f"Primitive '{cls.name}' is marked non-differentiable without a reason.")
    PRIMITIVES[cls.name] = cls
    return cls


def primitive_table():
    """name → Primitive class for every registered primitive."""
    return dict(PRIMITIVES)


def prim(kind, **attrs):
    """The shared instance of primitive `kind` (a Primitive class or a registered name) with these attributes.

    Attributes are keywords; an attribute value that cannot be hashed even as a tuple gets a fresh instance.
    """
    # the types are part of the key: 1, 1.0 and True are equal (and hash alike) but are different attributes
    key = (kind, tuple(attrs.items()), tuple(map(type, attrs.values()))) if attrs else kind
    try:
        return _INSTANCES[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable value in the attributes (a list): the canonical key freezes it
        key = None
    if isinstance(kind, str):
        try:
            cls = PRIMITIVES[kind]
        except KeyError:
            raise ValueError(f"There is no primitive named {kind!r} in the primitive table.") from None
    else:
        cls = kind
    canonical = _attr_key(cls, attrs)
    if canonical is None:
        return cls(**attrs)
    instance = _CANONICAL.get(canonical)
    if instance is None:
        if len(_CANONICAL) >= _LIMIT:  # attributes computed from data (pads, shapes) could grow it forever
            _start_over()
        instance = _CANONICAL[canonical] = cls(**attrs)
        instance.__dict__["_shared"] = True  # add_prim_attr refuses: every user of the instance would see it
    if key is not None:
        _INSTANCES[key] = instance
    return instance


def _start_over():
    """Drop the shared instances, except random ones: a seeded random primitive owns a stream that must keep
    advancing across calls (`ops.uniform(..., seed=1)` twice gives two different draws)."""
    for table in (_CANONICAL, _INSTANCES):
        kept = {key: instance for key, instance in table.items() if instance.random}
        table.clear()
        table.update(kept)


def accepted_signatures(instance):
    """The set of call signatures `infer` has accepted for instances equal to this one (shared between them),
    attached to the instance; False when the class's `infer` reads values (every call is checked)."""
    if not instance.infer_reads_signature_only:
        found = False
    else:
        key = _attr_key(type(instance), instance.attrs)
        if key is None:  # attributes we cannot key on: this instance keeps its own set
            found = set()
        else:
            found = _SIGNATURES.get(key)
            if found is None:
                if len(_SIGNATURES) >= _LIMIT:
                    _SIGNATURES.clear()
                found = _SIGNATURES[key] = set()
    instance.__dict__["_checked"] = found
    return found


def forget_accepted_signatures():
    """Check every signature again on its next call (after redefining a primitive's `infer`, e.g. in a test)."""
    for accepted in _SIGNATURES.values():
        accepted.clear()


def _attr_key(cls, attrs):
    try:
        key = (cls, tuple(sorted((name, _freeze(value)) for name, value in attrs.items())))
        hash(key)
    except TypeError:
        return None
    return key


def _freeze(value):
    """A hashable stand-in for an attribute value; lists and tuples stay apart (attributes compare by ==, and a
    list never equals a tuple)."""
    if type(value) is list:
        return (list, tuple(_freeze(v) for v in value))
    if type(value) is tuple:
        return tuple(_freeze(v) for v in value)
    if type(value) is dict:
        return (dict, tuple(sorted((k, _freeze(v)) for k, v in value.items())))
    return (type(value), value)
