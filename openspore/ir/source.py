"""Where a node came from in the user's code: the `loc` of an IR node.

A traced node's `loc` is a `SourceLocation`: it reads (prints, compares, splits) as `"file:line"` of the
innermost user frame, as error messages want it, and it carries the whole user call stack at the time the node
was made in `frames`, innermost first, each a `SourceFrame(file, line, function)`. Passes copy `loc` into the
nodes they make (`Node.clone`, `loc=n.loc`), so a node made by a pass keeps its origin's stack with no pass
knowing about stacks. A backward node gets the `loc` of the forward node it differentiates (the tracer does that).

Frames inside openspore are left out (a user's `x = self.conv1(x)` is the frame that matters, not
`nn.Conv2d.construct`), and so are the frames above the traced function: what remains is the code of the
compiled function, as in MindSpore's graph files. A node made wholly by openspore code inside the compiled
function (an optimizer update of a `TrainOneStepCell`) gets the user's line that called the compiled function.

>>> loc = SourceLocation([SourceFrame("/home/net.py", 22, "construct"), SourceFrame("/home/train.py", 9, "step")])
>>> loc, loc.rpartition(":")[2], str(loc.frames[1])
('/home/net.py:22', '22', '/home/train.py:9:step')
>>> stack_of("/home/net.py:7")
(SourceFrame(file='/home/net.py', line=7, function=''),)
"""
import sys
from collections import namedtuple

from ..common.errors import is_user_file


class SourceFrame(namedtuple("SourceFrame", "file line function")):
    """One frame of a user call stack; `str()` is `file:line:function` (or `file:line` without a function)."""

    def __str__(self):
        return f"{self.file}:{self.line}" + (f":{self.function}" if self.function else "")


class SourceLocation(str):
    """`"file:line"` of `frames[0]` (the innermost user frame), with the whole stack in `frames`."""

    def __new__(cls, frames):
        frames = tuple(frames)
        self = super().__new__(cls, f"{frames[0].file}:{frames[0].line}" if frames else "")
        self.frames = frames
        return self

    def __reduce__(self):  # pickles (compile caches, copies) keep the frames
        return (SourceLocation, (self.frames,))


def capture(skip=1, boundary=None):
    """The user frames of the current call stack, from `skip` frames above the caller up to the frame
    `boundary` (the tracer's entry: frames above it called the compiled function, they are not in it); when
    there is none below it, the first user frame above it (the call of the compiled function)."""
    frames = []
    frame = sys._getframe(skip + 1)
    inside = True
    while frame is not None:
        if frame is boundary:
            if frames:
                break
            inside = False
        code = frame.f_code
        if is_user_file(code.co_filename):
            frames.append(SourceFrame(code.co_filename, frame.f_lineno, code.co_name))
            if not inside:
                break
        frame = frame.f_back
    return SourceLocation(frames)


def stack_of(loc):
    """The frames of a node's `loc`, innermost first: a SourceLocation's own, or the one frame a plain
    `"file:line"` string names (graphs parsed from text), or none."""
    frames = getattr(loc, "frames", None)
    if frames is not None:
        return frames
    path, _, line = (loc or "").rpartition(":")
    return (SourceFrame(path, int(line), ""),) if path and line.isdigit() else ()
