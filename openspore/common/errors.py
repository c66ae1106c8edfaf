"""Errors that name the op, what it got, what it expected, and the user's source line."""
import linecache
import os
import re
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_user_file(filename):
    """Whether code from `filename` is the user's: outside the openspore package and not frozen importlib."""
    return not filename.startswith(_PACKAGE_DIR) and not filename.startswith("<frozen")


def user_frame(skip=1):
    """The innermost stack frame outside the openspore package (the user's line), or None."""
    frame = sys._getframe(skip)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def user_location(skip=1):
    frame = user_frame(skip + 1)
    if frame is None:
        return ""
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    line = linecache.getline(filename, lineno).strip()
    return f"In file {filename}:{lineno}" + (f"\n    {line}" if line else "")


def with_location(exc):
    """Re-create `exc` (same type) with the user's source line appended to its message."""
    where = user_location(2)
    if not where or getattr(exc, "_openspore_located", False):
        return exc
    msg = user_names(f"{exc.args[0] if exc.args else exc}\n\n{where}")
    try:
        new = type(exc)(msg)
    except Exception:  # exotic exception signature: keep the original
        return exc
    new._openspore_located = True
    return new


# ---- the user's names ---------------------------------------------------------------------------------------------
# A script may reach openspore as `mindspore` (a `mindspore` module alias or compatibility shim registered in
# sys.modules). Messages that name our modules are then written with the name the script used: the package name
# is resolved when the message is formatted, never stored.
def user_package():
    """'mindspore' when `mindspore` in sys.modules is openspore itself (an alias) or a shim marked with
    `__openspore_alias__ = True`; otherwise 'openspore'.

    >>> user_package() in ("openspore", "mindspore")
    True
    """
    alias = sys.modules.get("mindspore")
    if alias is not None and (alias is sys.modules.get("openspore") or getattr(alias, "__openspore_alias__", False)):
        return "mindspore"
    return "openspore"


def user_names(text):
    """`text` with our module paths (`openspore.x`, 'openspore') written as the script imported them.

    >>> user_names("module 'openspore.ops' has no attribute 'x'") in (
    ...     "module 'openspore.ops' has no attribute 'x'", "module 'mindspore.ops' has no attribute 'x'")
    True
    """
    package = user_package()
    if package == "openspore":
        return text
    return re.sub(r"(?<![\w/\\])openspore(?=[.'\"\s:]|$)", package, text)


def did_you_mean(name, candidates):
    """The closest public name to a mistyped `name`, preferring names written the same way: a lowercase name
    gets a functional name (`ops.layernorm` → 'layer_norm', not the primitive class 'LayerNorm'). None if none
    is close.

    >>> did_you_mean("onehot", ["OneHot", "one_hot", "ones"])
    'one_hot'
    >>> did_you_mean("Onehot", ["OneHot", "one_hot"])
    'OneHot'
    """
    import difflib
    public = sorted({c for c in candidates if isinstance(c, str) and c and not c.startswith("_")})
    styled = [c for c in public if (c == c.lower()) == (name == name.lower())]
    squash = name.replace("_", "").lower()
    for pool in (styled, public):
        for candidate in pool:
            if candidate.replace("_", "").lower() == squash:
                return candidate
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
        if close:
            return close[0]
    return None


def missing_attribute(module, name):
    """AttributeError for `module.name`, in the user's names and with a "Did you mean" of ours.

    `name=` is set so that Python treats the error as already explained and adds no suggestion of its own
    (its suggestion ignores naming style)."""
    hint = did_you_mean(name, dir(module))
    text = f"module '{module.__name__}' has no attribute {name!r}" + (f". Did you mean: {hint!r}?" if hint else "")
    return AttributeError(user_names(text), name=name)
