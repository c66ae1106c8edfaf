"""Errors that name the op, what it got, what it expected, and the user's source line."""
import linecache
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame(skip=1):
    """The innermost stack frame outside the openspore package (the user's line), or None."""
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR) and not filename.startswith("<frozen"):
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
    msg = f"{exc.args[0] if exc.args else exc}\n\n{where}"
    try:
        new = type(exc)(msg)
    except Exception:  # exotic exception signature: keep the original
        return exc
    new._openspore_located = True
    return new
