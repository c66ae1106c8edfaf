"""Reading a pipeline node through its cache: placement rules, the pipeline fingerprint, the cached pass.

A cached node (a source, or a map over a chain of map / project / rename down to a source) yields
the rows of its source's sampler order. Rows are keyed by their source index, so a cache serves every
shard and order of the same pipeline. For each pass: look the keys up a few at a time, read the hits
from the server (shared memory when local), and run the node's own work only on the misses, whose
rows go back to the server from a background thread. Order and values are those of the uncached pass.
"""
import functools
import types
import warnings
import zlib

import numpy as np

from . import wire
from .client import RowWriter, ServerLost, warn_fallback

# attributes that choose which rows are read or how fast, not what a row is
_NOT_IDENTITY = {"children", "parent", "cache", "sampler", "num_samples", "shuffle_flag", "num_shards", "shard_id",
                 "num_parallel_workers", "python_multiprocessing", "max_rowsize", "callbacks", "offload"}


def _node_name(node):
    name = type(node).__name__
    return (name[:-len("Dataset")] if name.endswith("Dataset") else name) + "Node"


def _is_random(op):
    marked = getattr(op, "random", None)  # set by `transforms.not_random` (or by a transform's author)
    if isinstance(marked, bool):
        return marked
    if type(op).__name__.startswith("Random"):
        return True
    inner = getattr(op, "transforms", None)
    return isinstance(inner, (list, tuple)) and any(_is_random(t) for t in inner)


def check_placement(node):
    """MindSpore's rules for what may sit at and below a cache; returns the source the cache keys rows by."""
    from ..engine.ops import MapDataset, ProjectDataset, RenameDataset
    from ..sources.generator import GeneratorDataset
    from ..sources.mappable import MappableDataset
    current = node
    while True:
        if current is not node and current.cache is not None:
            raise RuntimeError("Nested cache operations are not supported: a dataset below a cached dataset has a "
                               "cache too (the same cache instance cannot be used at two places of one pipeline).")
        if isinstance(current, GeneratorDataset):
            raise RuntimeError("There is currently no support for GeneratorOp under cache.")
        if isinstance(current, MappableDataset):
            return current
        if isinstance(current, MapDataset):
            if any(_is_random(op) for op in current.operations):
                raise RuntimeError("MapNode containing random operation is not supported as a descendant of cache.")
        elif not isinstance(current, (ProjectDataset, RenameDataset)):
            raise RuntimeError(f"{_node_name(current)} is not supported as a descendant operator under a cache.")
        current = current.children[0]


def _canon(value, depth=0):
    """A text that is the same for equal configurations in any process (never an id or address)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, np.ndarray):
        data = value.tobytes() if value.dtype.kind != "O" else repr(value.tolist()).encode()
        return f"nd({value.dtype.str},{value.shape},{zlib.crc32(data)})"
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canon(v, depth) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_canon(k, depth)}:{_canon(v, depth)}" for k, v in
                              sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, functools.partial):
        return f"partial({_canon(value.func, depth)},{_canon(value.args, depth)},{_canon(value.keywords, depth)})"
    if isinstance(value, (types.FunctionType, types.MethodType)):
        func = getattr(value, "__func__", value)
        # no module name: a script's functions live in __main__ in one process and in a module in another
        code = func.__code__
        consts = [c for c in code.co_consts if not isinstance(c, types.CodeType)]
        return (f"fn({func.__qualname__},{zlib.crc32(code.co_code)},{_canon(consts, depth + 1)},"
                f"{_canon(func.__defaults__, depth + 1)})")
    if isinstance(value, type):
        return f"type({value.__module__}.{value.__qualname__})"
    name = f"{type(value).__module__}.{type(value).__qualname__}"
    if depth >= 3 or not hasattr(value, "__dict__"):
        return name
    fields = {k: v for k, v in vars(value).items() if not k.startswith("_")}
    return f"{name}({_canon(fields, depth + 1)})"


def fingerprint(node):
    """The pipeline's identity below (and at) a cache: a uint32 of what every node is and does."""
    parts = []
    current = node
    while True:
        fields = {k: v for k, v in vars(current).items() if k not in _NOT_IDENTITY and not k.startswith("_")}
        parts.append(f"{type(current).__name__}{_canon(fields)}{current.get_col_names()}")
        if not current.children:
            break
        current = current.children[0]
    return zlib.crc32("|".join(parts).encode())


class _Plan:
    """What the cache holds for each position of one pass, looked up `chunk` keys at a time, ahead as needed."""

    MISS, SHM, FETCH = 0, 1, 2

    def __init__(self, keys, conn, cache_id, chunk):
        self.keys, self.conn, self.cache_id, self.chunk = keys, conn, cache_id, chunk
        self.kind = np.zeros(len(keys), dtype=np.int8)
        self.where = {}  # position -> (offset, nbytes, meta) of a row in shared memory
        self.looked = 0
        self.uncached_from = None  # after the server was lost (fallback): every later row is a miss

    def ensure(self, pos):
        while self.looked <= pos < len(self.keys):
            lo, hi = self.looked, min(len(self.keys), self.looked + self.chunk)
            if self.uncached_from is None:
                header, _ = self.conn.call("lookup", cache_id=self.cache_id, keys=self.keys[lo:hi],
                                           local=self.conn.shm is not None)
                for p, found in enumerate(header["rows"], lo):
                    self.kind[p] = found[0]
                    if found[0] == self.SHM:
                        self.where[p] = (found[1], found[2], found[3])
            self.looked = hi

    def misses(self, start):
        """The source indices of the misses from position `start` on, looked up lazily."""
        for pos in range(start, len(self.keys)):
            self.ensure(pos)
            if self.kind[pos] == self.MISS:
                yield self.keys[pos]

    def go_uncached(self, pos):
        self.uncached_from = pos
        self.kind[pos:] = self.MISS
        self.looked = max(self.looked, pos)


class MissIndices:
    """The indices a cache asks its source to read: iterated lazily, indexable for error messages."""

    def __init__(self, indices):
        self._it = iter(indices)
        self._seen = []

    def __iter__(self):
        for i in self._it:
            self._seen.append(i)
            yield i

    def __getitem__(self, k):
        return self._seen[k]


def cached_rows(node, ctx, run_uncached):
    """The rows of one pass of `node`, served by `node.cache`; `run_uncached(ctx)` is the node's own pass."""
    source = check_placement(node)
    cache = node.cache
    if "cache_crc" not in node._meta:
        node._meta["cache_crc"] = fingerprint(node)
    try:
        conn, cache_id = cache._attach(node._meta["cache_crc"])
    except ServerLost:
        cache._forget()
        if not cache.fallback:
            raise
        warn_fallback(f"The cache server of session {cache.session_id} is unreachable.")
        ctx.cache_forced[id(source)] = MissIndices(int(i) for i in source._epoch_indices(ctx))
        yield from run_uncached(ctx)
        return
    keys = [int(i) for i in source._epoch_indices(ctx)]
    plan = _Plan(keys, conn, cache_id, cache.rows_per_request)
    writer = RowWriter(conn, cache_id)
    fetched = {}

    def start_inner(pos):
        ctx.cache_forced[id(source)] = MissIndices(plan.misses(pos))
        return run_uncached(ctx)

    inner = start_inner(0)
    pos = 0
    try:
        while pos < len(keys):
            try:
                row = _next_row(plan, pos, inner, fetched, writer, conn, cache_id)
            except ServerLost as exc:
                cache._forget()  # let go of the lost server's memory; a later run connects again
                if not cache.fallback:
                    raise ServerLost(f"{exc} (lost at row {pos} of pass {ctx.pass_count(source)}, read through the "
                                     f"cache of session {cache.session_id}; the rows delivered before are correct; "
                                     f"DatasetCache(..., fallback=True) reads on without the cache instead)") from None
                warn_fallback(f"The cache server of session {cache.session_id} was lost at row {pos} of the pass.")
                inner.close()
                plan.go_uncached(pos)
                fetched.clear()
                writer.error = exc
                inner = start_inner(pos)
                continue
            yield row
            pos += 1
        if plan.uncached_from is None:
            writer.close()
            if isinstance(writer.error, ServerLost) and not cache.fallback:
                raise writer.error
            if writer.error is not None:  # e.g. the session was destroyed meanwhile: rows stay uncached
                warnings.warn(f"Rows of this pass could not be cached: {writer.error}", RuntimeWarning, stacklevel=2)
    finally:
        inner.close()
        if writer._thread.is_alive():  # closed early (a break, or an error): send what was queued
            writer.close()
        ctx.cache_forced.pop(id(source), None)


def _next_row(plan, pos, inner, fetched, writer, conn, cache_id):
    plan.ensure(pos)
    kind = plan.kind[pos]
    if kind == plan.MISS:
        row = next(inner)
        if plan.uncached_from is None and wire.cacheable(row):
            meta, body = wire.encode_row(row)
            writer.put(plan.keys[pos], meta, body)
        return row
    if kind == plan.SHM:
        offset, _, meta = plan.where.pop(pos)
        row = wire.decode_row(meta, conn.shm, offset)
        if not wire.tag_matches(conn.shm, offset, cache_id, plan.keys[pos]):
            raise RuntimeError(f"The cached row of source index {plan.keys[pos]} was dropped from cache {cache_id} "
                               f"while the pipeline read it (was its session destroyed?).")
        return row
    if pos not in fetched:
        _fetch_ahead(plan, pos, fetched, conn, cache_id)
    meta, blob = fetched.pop(pos)
    if meta is None:
        raise RuntimeError(f"The cached row of source index {plan.keys[pos]} disappeared from cache {cache_id} "
                           f"while the pipeline read it (was its session destroyed?).")
    return wire.decode_row(meta, blob, 0)


def _fetch_ahead(plan, pos, fetched, conn, cache_id):
    positions = []
    p = pos
    while p < len(plan.keys) and len(positions) < plan.chunk:
        plan.ensure(p)
        if plan.kind[p] == plan.FETCH:
            positions.append(p)
        p += 1
    header, blobs = conn.call("fetch", cache_id=cache_id, keys=[plan.keys[q] for q in positions])
    for q, meta, blob in zip(positions, header["metas"], blobs):
        fetched[q] = (meta, blob)


