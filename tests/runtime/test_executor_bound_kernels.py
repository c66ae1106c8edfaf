"""The executor's bound kernels: for a node whose input shapes are fixed, the torch backend runs the primitive's
`torch_bind` kernel (axes, sizes and library choices worked out once at compile time) instead of the generic
kernel, with the same values as the generic kernel and as PyNative; a primitive or a shape without one keeps the
generic kernel, and the numpy backend binds nothing."""
import numpy as np
import pytest

from openspore import backends
from openspore.common import dtype as mstype
from openspore.core.primitive import PRIMITIVES, AbstractTensor
from tests.runtime.test_executor import Builder, _run

F32 = mstype.float32
RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _generic(name, attrs, arrays, consts=()):
    """The primitive's generic torch kernel on the arrays (consts appended) → numpy leaves."""
    be = backends.get("torch")
    prim = PRIMITIVES[name](**attrs)
    out = type(prim).torch(prim, be.xp, *[be.from_numpy(a) for a in arrays], *consts)
    return [be.to_numpy(o) for o in (out if isinstance(out, tuple) else (out,))]


CASES = [  # (primitive, attrs, input arrays, constant operands)
    ("SplitV", {"size_splits": (1, 2), "split_dim": -3, "num_split": 2}, [_x(4, 3, 2, 5)], ()),
    ("Split", {"axis": 0, "output_num": 2}, [_x(2, 3, 4)], ()),
    ("Softmax", {"axis": -1}, [_x(2, 3, 7)], ()),
    ("BatchMatMul", {"transpose_b": True}, [_x(2, 3, 1, 4), _x(2, 3, 5, 4)], ()),
    ("BatchMatMul", {"transpose_a": True}, [_x(2, 4, 3), _x(2, 4, 5)], ()),
    ("BatchMatMul", {}, [_x(3, 1, 4), _x(3, 4, 6)], ()),
    ("Dense", {}, [_x(5, 8), _x(6, 8), _x(6)], ()),
    ("Reshape", {}, [_x(2, 3, 4)], ((6, -1),)),
    ("Transpose", {}, [_x(2, 3, 4)], ((2, 0, 1),)),
    ("GeLU", {}, [_x(3, 9)], ()),
    ("Add", {}, [_x(3, 4), _x(4)], ()),
    ("Mul", {}, [_x(3, 4), _x(3, 1)], ()),
]


@pytest.mark.parametrize("name,attrs,arrays,consts", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_bound_kernel_matches_generic_kernel(name, attrs, arrays, consts):
    b = Builder()
    nodes = [b.input(f"x{i}", a.shape) for i, a in enumerate(arrays)] + [b.const(c) for c in consts]
    node = b.op(name, *nodes, **attrs)
    if isinstance(node.abstract, tuple):   # read every output
        node = b.tuple(*[b.item(node, i) for i in range(len(node.abstract))])
    with backends.scoped(backends.get("torch")):
        compiled, got = _run(b.graph("g", node), *arrays)
    assert "kb" in compiled.source, compiled.source   # the node ran its bound kernel
    want = _generic(name, attrs, arrays, consts)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_split_reading_only_piece_zero_binds_a_narrow_view():
    x = _x(5, 4)
    b = Builder()
    split = b.op("SplitV", b.input("x", x.shape), size_splits=(2, 3), split_dim=0, num_split=2)
    out = b.op("Mul", b.item(split, 0), b.item(split, 0))
    with backends.scoped(backends.get("torch")):
        compiled, (got,) = _run(b.graph("g", out), x)
    np.testing.assert_array_equal(got, x[:2] * x[:2])
    bind = PRIMITIVES["SplitV"].torch_bind
    prim = PRIMITIVES["SplitV"](size_splits=(2, 3), split_dim=0, num_split=2)
    be = backends.get("torch")
    (piece,) = bind(prim, be.xp, [AbstractTensor((5, 4), F32)], True)(be.from_numpy(x))
    assert tuple(piece.shape) == (2, 4) and piece._base is not None   # a view, not a copy


def test_no_bound_kernel_without_fixed_shapes_or_on_numpy():
    prim = PRIMITIVES["Softmax"](axis=-1)
    torch_be = backends.get("torch")
    assert torch_be.bound_kernel(prim, [AbstractTensor((2, None), F32)]) is None   # not a fixed shape
    assert torch_be.bound_kernel(prim, [AbstractTensor((2, 3), F32)]) is not None
    assert backends.get("numpy").bound_kernel(prim, [AbstractTensor((2, 3), F32)]) is None
    # side-effecting primitives keep their generic (write-counting) kernel
    assert torch_be.bound_kernel(PRIMITIVES["ScatterUpdate"](), [AbstractTensor((4, 2), F32)] * 3) is None


def test_large_products_keep_the_per_call_library_choice():
    """Products big enough for host_gemm (OpenBLAS / oneDNN) keep the generic kernel, which decides per call."""
    torch_be = backends.get("torch")
    mm = PRIMITIVES["BatchMatMul"]()
    assert torch_be.bound_kernel(mm, [AbstractTensor((8, 256, 64), F32), AbstractTensor((8, 64, 256), F32)]) is None
    dense = PRIMITIVES["Dense"]()
    assert torch_be.bound_kernel(dense, [AbstractTensor((512, 512), F32), AbstractTensor((512, 512), F32),
                                         AbstractTensor((512,), F32)]) is None


def test_weight_reads_follow_set_data_after_compile():
    """A weight is read as its array when that is the backend's, else through data_ref: a new value set after
    the compile (another array object) is what the next call computes with."""
    import openspore as ms
    w = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="w")
    b = Builder()
    out = b.op("Add", b.input("x", (2, 3)), b.weight(w))
    x = np.zeros((2, 3), np.float32)
    with backends.scoped(backends.get("torch")):
        compiled, (first,) = _run(b.graph("g", out), x)
        w.set_data(ms.Tensor(np.full((2, 3), 5.0, np.float32)))
        second = compiled(backends.current().from_numpy(x))[0]
    assert "._data" in compiled.source
    np.testing.assert_array_equal(first, np.ones((2, 3)))
    np.testing.assert_array_equal(backends.get("torch").to_numpy(second), np.full((2, 3), 5.0))
