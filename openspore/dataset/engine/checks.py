"""Argument checks worded as MindSpore's dataset API words them (scripts and tests match on these sentences).

>>> check_type(3, (int,), "num_shards")
>>> check_interval(0, 1, 2147483647, "num_shards")
Traceback (most recent call last):
...
ValueError: Input num_shards is not within the required interval of [1, 2147483647].
"""
import os

INT32_MAX = 2147483647


def _shown(value):
    return '""' if value == "" else value


def check_type(value, types, name):
    """TypeError unless value is one of types (bool is not an int here: True is no row count)."""
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, tuple(types))
    if not ok:
        raise TypeError(f"Argument {name} with value {_shown(value)} is not of type {list(types)}, but got "
                        f"{type(value)}.")


def engine_dtype_name(array):
    """The dtype name MindSpore's engine reports: numpy's for numbers, `string` for str, `bytes` for bytes."""
    return {"U": "string", "S": "bytes"}.get(array.dtype.kind, array.dtype.name)


FLOAT32_LIMIT = 16777216  # MindSpore bounds its float arguments by 2**24


def check_interval(value, low, high, name, left_open=False, right_open=False):
    """ValueError unless value lies in [low, high] (an open end excludes its bound)."""
    above = value > low if left_open else value >= low
    below = value < high if right_open else value <= high
    if not (above and below):
        raise ValueError(f"Input {name} is not within the required interval of {'(' if left_open else '['}{low}, "
                         f"{high}{')' if right_open else ']'}.")


def check_num_parallel_workers(value):
    """None or an int of at least 1 (MindSpore words the bound with the machine's CPU count)."""
    if value is None:
        return
    check_type(value, (int,), "num_parallel_workers")
    if value < 1:
        raise ValueError(f"num_parallel_workers exceeds the boundary between 1 and {os.cpu_count() or 1}!")


def check_max_rowsize(value, pair=True):
    """`max_rowsize` in MB: None, -1 (the default size) or an int >= 0; for map and batch also [in_MB, out_MB].
    Gives the size one worker slot needs (the larger of a pair), None for the default."""
    if value is None:
        return None
    types = (int, list) if pair else (int,)
    check_type(value, types, "max_rowsize")
    if isinstance(value, int):
        check_interval(value, -1, INT32_MAX, "max_rowsize")
        return None if value == -1 else value
    if len(value) != 2:
        raise TypeError("max_rowsize should be a single integer or a list[in_rowsize, out_rowsize] of length 2.")
    for k, size in enumerate(value):
        check_type(size, (int,), f"max_rowsize[{k}]")
        check_interval(size, -1, INT32_MAX, f"max_rowsize[{k}]")
    return None if -1 in value else max(value)


def check_nonzero_int32(value, name):
    """An int in [-2**31, 0) or (0, 2**31 - 1]."""
    check_type(value, (int,), name)
    if value == 0 or not -INT32_MAX - 1 <= value <= INT32_MAX:
        raise ValueError(f"Input {name} is not within the required interval of [{-INT32_MAX - 1}, 0) and "
                         f"(0, {INT32_MAX}].")


def check_float32(value, name):
    """An int or float in [-2**24, 2**24]."""
    check_type(value, (float, int), name)
    check_interval(value, -FLOAT32_LIMIT, FLOAT32_LIMIT, name)


def check_shards(num_shards, shard_id):
    """num_shards in [1, INT32_MAX] and shard_id in [0, num_shards - 1], when given."""
    if num_shards is not None:
        check_type(num_shards, (int,), "num_shards")
        check_interval(num_shards, 1, INT32_MAX, "num_shards")
    if shard_id is not None:
        check_type(shard_id, (int,), "shard_id")
        if num_shards is not None:
            check_interval(shard_id, 0, num_shards - 1, "shard_id")


def check_column_names(names, name="column_names"):
    """A non-empty list of non-empty str (a single str is one name)."""
    if isinstance(names, str):
        names = [names]
    check_type(names, (list, tuple), name)
    if not names:
        raise ValueError(f"{name} should not be empty.")
    for i, column in enumerate(names):
        check_type(column, (str,), f"{name}[{i}]")
        if not column:
            raise ValueError(f"{name}[{i}] should not be empty.")
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate column names are not allowed in {name}: {list(names)}.")
    return list(names)
