"""Damaged MindIR files (seeded byte flips, overwrites and truncations of the fixtures) either load — and then
run or fail with a clean ValueError/TypeError/RuntimeError — or fail to load with MindIRError naming the file.
Nothing else: no protobuf, numpy or attribute errors, no hangs."""
import os
import time
from collections import Counter

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.core.primitive import AbstractTensor
from openspore.serialization import MindIRError
from tests.device import use_backend

MODELS = ["mlp", "lenet5", "resblock", "encoder", "branchy"]
CASES_PER_MODEL = 100
MAX_ELEMENTS = 1 << 20  # a mutated attribute may ask for a huge tensor: such graphs are loaded but not run


def _weight_spans(data, model):
    """Byte ranges of the parameters' raw data: flips there only change weights, so half of the mutations avoid
    them to hit the graph structure instead."""
    spans = []
    for gp in [model.graph, *model.functions]:
        for tp in gp.parameter:
            start = data.find(tp.raw_data) if len(tp.raw_data) > 16 else -1
            if start >= 0:
                spans.append((start, start + len(tp.raw_data)))
    return spans


def _structure_position(rng, size, spans):
    for _ in range(100):
        pos = int(rng.integers(size))
        if not any(a <= pos < b for a, b in spans):
            return pos
    return int(rng.integers(size))


def _mutate(rng, data, spans):
    kind = int(rng.integers(4))
    if kind == 0:
        return "truncate", data[:int(rng.integers(len(data)))]
    buf = bytearray(data)
    for _ in range(int(rng.integers(1, 6))):
        pos = _structure_position(rng, len(buf), spans) if kind != 3 else int(rng.integers(len(buf)))
        if kind == 1:
            buf[pos] ^= 1 << int(rng.integers(8))
        else:
            buf[pos] = int(rng.integers(256))
    return ("flip", "overwrite", "anywhere")[kind - 1], bytes(buf)


def _runnable(graph):
    return all(not isinstance(n.abstract, AbstractTensor) or np.prod(n.abstract.shape, dtype=float) <= MAX_ELEMENTS
               for g in graph.all_graphs() for n in g.nodes)


@pytest.mark.parametrize("name", MODELS)
def test_damaged_files_fail_cleanly(fixtures_dir, tmp_path, name):
    use_backend("numpy")
    data = open(os.path.join(fixtures_dir, f"{name}.mindir"), "rb").read()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, f"{name}_input0.npy")))
    spans = _weight_spans(data, ms.load_mindir(os.path.join(fixtures_dir, f"{name}.mindir")))
    rng = np.random.default_rng(sum(map(ord, name)))
    path = str(tmp_path / f"{name}.mindir")
    outcomes = Counter()
    start = time.perf_counter()
    for case in range(CASES_PER_MODEL):
        kind, content = _mutate(rng, data, spans)
        with open(path, "wb") as f:
            f.write(content)
        label = f"{name} case {case} ({kind})"
        try:
            graph = ms.load(path)
        except MindIRError as exc:
            assert path in str(exc), label
            outcomes["load error"] += 1
            continue
        outcomes["loaded"] += 1
        if not _runnable(graph.graph):
            continue
        try:
            nn.GraphCell(graph)(x)
            outcomes["ran"] += 1
        except (ValueError, TypeError, RuntimeError):
            outcomes["run error"] += 1
    assert outcomes["load error"] > 0 and outcomes["loaded"] > 0, outcomes
    assert time.perf_counter() - start < 15, "fuzzing one fixture took too long (a hang?)"
