"""Wire codecs without a server: proto tensors, MindSpore REST JSON values and URLs, KServe tensors."""
import base64

import numpy as np
import pytest

from openspore.serving.common.status import ServingError
from openspore.serving.common.tensor import TensorError, decode, encode
from openspore.serving.proto import ms_service_pb2 as pb
from openspore.serving.server.master import kserve, rest_codec
from openspore.serving.server.master.restful import parse_model_url

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
          np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_round_trip(dtype):
    value = (np.arange(6).reshape(2, 3) % 2 == 0) if dtype is np.bool_ else np.arange(6, dtype=dtype).reshape(2, 3)
    tensor = encode(value, pb.Tensor())
    assert list(tensor.shape.dims) == [2, 3] and len(tensor.data) == value.nbytes
    back = decode(pb.Tensor.FromString(tensor.SerializeToString()))
    assert back.dtype == np.dtype(dtype) and np.array_equal(back, value) and not back.flags.writeable


def test_big_endian_arrays_travel_little_endian():
    value = np.array([1.5, -2.0], dtype=">f4")
    tensor = encode(value, pb.Tensor())
    assert tensor.dtype == pb.MS_FLOAT32 and tensor.data == np.array([1.5, -2.0], "<f4").tobytes()


def test_python_scalars_str_and_bytes():
    assert decode(encode(3, pb.Tensor(), scalar_shape=(1,))).dtype == np.int64
    t = encode(2.5, pb.Tensor(), scalar_shape=(1,))
    assert t.dtype == pb.MS_FLOAT64 and list(t.shape.dims) == [1]
    assert decode(encode(True, pb.Tensor())).dtype == np.bool_
    assert decode(encode("héllo", pb.Tensor())) == "héllo"
    assert decode(encode(b"\x00\xff", pb.Tensor())) == b"\x00\xff"
    assert decode(encode(b"\x00\xff", pb.Tensor()), bytes_as="uint8").tolist() == [0, 255]
    with pytest.raises(TensorError, match="Unknown data type complex64"):
        encode(np.zeros(2, np.complex64), pb.Tensor())
    with pytest.raises(TensorError, match="Not support value type list"):
        encode([1, 2], pb.Tensor())


def test_inconsistent_tensors_are_refused():
    short = pb.Tensor(dtype=pb.MS_FLOAT32, data=b"\x00" * 8, shape=pb.TensorShape(dims=[3]))
    with pytest.raises(TensorError, match="data size 8 does not match the shape \\[3\\] and type float32, which "
                                          "need 12"):
        decode(short)
    with pytest.raises(TensorError, match="negative dim"):
        decode(pb.Tensor(dtype=pb.MS_INT8, shape=pb.TensorShape(dims=[-1])))
    with pytest.raises(TensorError, match="exactly one 'bytes_val' item, but got 2"):
        decode(pb.Tensor(dtype=pb.MS_BYTES, bytes_val=[b"a", b"b"]))
    with pytest.raises(TensorError, match="unknown data type MS_UNKNOWN"):
        decode(pb.Tensor())


def test_rest_json_values():
    v = rest_codec.json_value
    assert v(3, "x").dtype == np.int32 and v(3, "x").shape == ()
    assert v(2.5, "x").dtype == np.float32 and v(True, "x").dtype == np.bool_
    assert v("abc", "x") == "abc" and v(["abc"], "x") == "abc"
    assert v([[1, 2], [3, 4]], "x").dtype == np.int32
    assert v([[1.0, 2], [3, 4]], "x").dtype == np.float32
    assert v([True, False], "x").tolist() == [True, False]
    b64 = {"b64": base64.b64encode(np.array([1, 2], np.int64).tobytes()).decode(), "type": "int64", "shape": [2]}
    assert v(b64, "x").tolist() == [1, 2]
    assert v({"b64": "AAE="}, "x") == b"\x00\x01"
    assert v({"b64": base64.b64encode("hé".encode()).decode(), "type": "str"}, "x") == "hé"
    for value, text in [([True, 1], "elements type is not equal"), ([2 ** 40], "out of the int32 range"),
                        ([[1], [2, 3]], "invalid json array"), ([], "shape is empty"),
                        ({"b64": "AAE=", "kind": 1}, "a b64 object has the keys"), ({"b64": "!!"}, "not valid base64"),
                        ({"b64": "AAE=", "type": "int128"}, "unknown b64 type"),
                        ({"b64": "AAE=", "type": "bytes", "shape": [2]}, "holds one item"),
                        (["a", "b"], "string or bytes type only support one item")]:
        with pytest.raises(ServingError, match=text):
            v(value, "x")


def test_rest_instances():
    instances = rest_codec.parse_instances(b'{"instances": {"a": 1, "b": [1.5, 2.5]}}')
    assert len(instances) == 1 and set(instances[0].items) == {"a", "b"}
    for body, text in [(b"", "http message invalid"), (b"[1]", "JSON object with the key 'instances'"),
                       (b'{"instances": 3}', "instances no key mode is not supported"),
                       (b'{"instances": [3]}', "instances no key mode is not supported"),
                       (b'{"instances": [{}]}', "instance 0 is empty")]:
        with pytest.raises(ServingError, match=text):
            rest_codec.parse_instances(body)


def test_rest_rendering():
    instance = pb.Instance()
    encode(np.array([[1.5, 2.0]], np.float16), instance.items["f"])
    encode(np.int64(4), instance.items["i"])
    encode(b"\x01", instance.items["b"])
    encode("s", instance.items["s"])
    assert rest_codec.render_instance(instance) == {"f": [[1.5, 2.0]], "i": 4, "b": {"b64": "AQ=="}, "s": "s"}


def test_model_urls():
    assert parse_model_url("/model/lenet/version/2:predict") == ("lenet", 2, "predict")
    assert parse_model_url("/model/lenet:predict") == ("lenet", 0, "predict")
    for path, text in [("/model/:predict", "keyword:\\[model\\] must contain"),
                       ("/model/lenet", "keyword:\\[service method\\] must contain"),
                       ("/model/lenet/version/-1:predict", "keyword:\\[version\\] value invalid"),
                       ("/model/lenet/version/99999999999:predict", "version number range failed")]:
        with pytest.raises(ServingError, match=text):
            parse_model_url(path)


def test_kserve_input_tensors():
    name, array = kserve._input_array({"name": "x", "shape": [2, 2], "datatype": "INT32", "data": [[1, 2], [3, 4]]}, 0)
    assert name == "x" and array.dtype == np.int32 and array.tolist() == [[1, 2], [3, 4]]
    for entry, text in [({"name": "x", "shape": [2], "datatype": "FP32"}, "lacks \\['data'\\]"),
                        ({"name": "x", "shape": [], "datatype": "FP32", "data": [1]}, "non-empty array of ints"),
                        ({"name": "x", "shape": [1], "datatype": "COMPLEX", "data": [1]}, "unsupported datatype"),
                        ({"name": "x", "shape": [2], "datatype": "FP32", "data": [1]}, "has 1 elements"),
                        ({"name": "x", "shape": [1], "datatype": "INT8", "data": ["a"]}, "cannot be read as INT8"),
                        ({"name": "x", "shape": [1, 2], "datatype": "BYTES", "data": ["a", "b"]},
                         "one string per instance")]:
        with pytest.raises(ServingError, match=text):
            kserve._input_array(entry, 0)
