"""Errors of graph capture. Both name the user's `file:line` first, then the reason, as MindSpore's do.

* `GraphSyntaxError`: the source uses syntax outside the graph subset (`try`, `yield`, `with`, ...), found
  while rewriting the function, before anything runs.
* `GraphCaptureError`: tracing met something that needs a tensor's value (`int(x)`, `x.asnumpy()`,
  `range(x)`), a tensor escaping the branch that computed it, or branches / loop iterations that disagree.
"""
import linecache

from ...common.errors import user_frame

SYNTAX_HELP = "More details please refer to syntax support at https://www.mindspore.cn"
NO_SOURCE_HELP = ("This is probably why: the code comes from {filename}, which has no source file (typed at the "
                  "interactive prompt, piped to stdin, or run with exec), and graph mode needs the source to compile "
                  "Python control flow on tensors (if/while/for). Put the code in a .py file, or run it in "
                  "PYNATIVE_MODE.")


class GraphSyntaxError(RuntimeError):
    """Python syntax that graph mode does not compile (MindSpore raises RuntimeError for these)."""


class GraphCaptureError(RuntimeError):
    """Something in the traced code needs a value that is only known when the graph runs."""


class GraphTypeError(GraphCaptureError, TypeError):
    """A traced tensor where graph code needs a Python int (`range(x)`, an index): MindSpore raises TypeError."""


class GraphValueError(GraphCaptureError, ValueError):
    """A traced tensor converted with int()/float() (a shape made of tensors): MindSpore raises ValueError."""


class GraphUnboundLocalError(GraphCaptureError, UnboundLocalError):
    """A variable assigned in one branch only, or only inside a loop body, used after it: MindSpore raises
    UnboundLocalError ("The local variable 'z' is not defined in false branch, but defined in true branch.")."""


class GraphSyntaxTypeError(GraphSyntaxError, TypeError):
    """Syntax MindSpore's parser rejects with a TypeError (a comprehension over two iterators)."""


def frame_location(frame):
    """'file:line' of a frame ('' for None)."""
    if frame is None:
        return ""
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def user_location():
    """'file:line' of the innermost frame outside the openspore package."""
    return frame_location(user_frame(2))


def located(message, loc=None):
    """`file:line: message`, followed by the source line when it can be read."""
    if loc is None:
        loc = user_location()
    if not loc:
        return message
    text = f"{loc}: {message}"
    filename, _, lineno = loc.rpartition(":")
    if lineno.isdigit():
        line = linecache.getline(filename, int(lineno)).strip()
        if line:
            text += f"\n    {line}"
        elif filename.startswith("<") and not filename.startswith("<frozen") and not linecache.getlines(filename):
            text += "\n" + NO_SOURCE_HELP.format(filename=filename)
    return text


def syntax_error(filename, lineno, what, reason="", kind=GraphSyntaxError):
    """GraphSyntaxError (or `kind`) for an AST node kind outside the subset (`what`: "statement 'Try'")."""
    if reason and not reason.endswith("."):
        reason += "."
    message = f"Unsupported {what}." + (f" {reason}" if reason else "") + f" {SYNTAX_HELP}"
    return kind(located(message, f"{filename}:{lineno}"))
