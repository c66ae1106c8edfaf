"""`mindspore.log`: MindSpore's Python logging API (`from mindspore import log as logger`).

Messages go to stderr in MindSpore's format, `[LEVEL] ME(pid:tid,process):YYYY-MM-DD-HH:MM:SS.mmm.000
[file:line] message`, filtered by the `GLOG_v` level (0 debug, 1 info, 2 warning — the default, 3 error,
4 critical), which is read once by `openspore.context`.

>>> from openspore import log as logger
>>> logger.get_level()
'2'
>>> logger.info("not shown at the default level")
"""
import datetime
import logging
import os
import sys
import threading

from . import context

__all__ = ["get_level", "get_log_config"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR, "4": logging.CRITICAL}
_NAMES = {logging.DEBUG: "DEBUG", logging.INFO: "INFO", logging.WARNING: "WARNING", logging.ERROR: "ERROR",
          logging.CRITICAL: "CRITICAL"}


class _MindSporeFormatter(logging.Formatter):
    def format(self, record):
        now = datetime.datetime.fromtimestamp(record.created)
        stamp = now.strftime("%Y-%m-%d-%H:%M:%S.") + f"{now.microsecond // 1000:03d}.000"
        where = f"{os.path.basename(record.pathname)}:{record.lineno}"
        text = (f"[{_NAMES.get(record.levelno, record.levelname)}] ME({record.process}:{threading.get_ident()},"
                f"{record.processName}):{stamp} [{where}] {record.getMessage()}")
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def _make_logger():
    # a logger of its own: turning off propagation here must not hide other openspore loggers from the root
    logger = logging.getLogger("openspore.log")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_MindSporeFormatter())
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(_LEVELS.get(get_level(), logging.WARNING))
    return logger


def get_level():
    """The log level as MindSpore reports it: the `GLOG_v` string ('0'…'4'; default '2')."""
    level = context.log_config().get("GLOG_v", "2")
    return level if level in _LEVELS else "2"


def get_log_config():
    """The logging settings (GLOG_* environment values) in effect, as a dict of strings."""
    return dict(context.log_config())


def debug(msg, *args, **kwargs):
    """Log `msg % args` at DEBUG level (shown when GLOG_v=0)."""
    _LOGGER.debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs):
    """Log `msg % args` at INFO level (shown when GLOG_v<=1)."""
    _LOGGER.info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs):
    """Log `msg % args` at WARNING level (shown by default)."""
    _LOGGER.warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs):
    """Log `msg % args` at ERROR level."""
    _LOGGER.error(msg, *args, stacklevel=2, **kwargs)


def critical(msg, *args, **kwargs):
    """Log `msg % args` at CRITICAL level."""
    _LOGGER.critical(msg, *args, stacklevel=2, **kwargs)


def exception(msg, *args, **kwargs):
    """Log `msg % args` at ERROR level with the current exception's traceback."""
    _LOGGER.exception(msg, *args, stacklevel=2, **kwargs)


_LOGGER = _make_logger()
