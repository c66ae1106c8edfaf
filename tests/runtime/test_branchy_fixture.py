"""The MindSpore `branchy` fixture (a tensor-dependent `if` and a `while` over a Python int) in GRAPH_MODE
reproduces MindSpore's output after loading its checkpoint (shared/fixtures/mindspore/README.md)."""
import os

import numpy as np

import openspore as ms
from tests.nn.fixture_nets import Branchy


def _load(fixtures_dir):
    net = Branchy()
    not_loaded, unused = ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "branchy.ckpt")))
    assert not_loaded == [] and unused == []
    return net.set_train(False)


def test_branchy_graph_mode_reproduces_mindspore(fixtures_dir, backend):
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "branchy_input0.npy")))
    expected = np.load(os.path.join(fixtures_dir, "branchy_output.npy"))
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _load(fixtures_dir)
    out = net(x)
    assert out.shape == expected.shape and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    from openspore.nn import cell as cell_module
    cache = cell_module._graph_runner.caches.get(net)
    assert cache is not None and len(cache.entries) == 1  # it really ran compiled
    graph = cache.last_entry.graph
    assert any(n.op == "if" for g in graph.all_graphs() for n in g.nodes)  # the tensor condition stays a branch


def test_branchy_takes_both_branches_like_pynative(fixtures_dir, backend):
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "branchy_input0.npy")))
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _load(fixtures_dir)
    graph_outs = [net(x).asnumpy(), net(-x * 100).asnumpy(), net(x * 100).asnumpy()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    py_outs = [net(x).asnumpy(), net(-x * 100).asnumpy(), net(x * 100).asnumpy()]
    for g, p in zip(graph_outs, py_outs):
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-6)
