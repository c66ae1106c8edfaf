"""MindSpore Serving's Python client (`mindspore_serving.client` → `openspore.serving.client`).

>>> from openspore.serving.client import Client
>>> client = Client("127.0.0.1:5500", "lenet", "predict")                   # doctest: +SKIP
>>> # infer returns one dict per instance: [{"logits": array}, {"logits": array}]
>>> client.infer([{"image": x0}, {"image": x1}])                            # doctest: +SKIP
"""
import grpc
import numpy as np

from ..common.tensor import TensorError, decode, encode
from ..proto import ms_service_pb2 as pb
from ..proto import ms_service_pb2_grpc as sgrpc

_LIMIT = 512 << 20


class SSLConfig:
    """SSLConfig(certificate=None, private_key=None, custom_ca=None): PEM file paths; `custom_ca=None` uses gRPC's
    default roots. `certificate` and `private_key` (mutual TLS) go together."""

    def __init__(self, certificate=None, private_key=None, custom_ca=None):
        if (certificate is None) != (private_key is None):
            raise RuntimeError("For 'SSLConfig', 'certificate' and 'private_key' should be given together.")
        self.certificate, self.private_key, self.custom_ca = certificate, private_key, custom_ca

    def credentials(self):
        def read(path):
            if path is None:
                return None
            with open(path, "rb") as f:
                return f.read()
        return grpc.ssl_channel_credentials(read(self.custom_ca), read(self.private_key), read(self.certificate))


def _check_str(name, value):
    if not isinstance(value, str) or not value:
        raise RuntimeError(f"For 'Client', the parameter '{name}' should be a non-empty str, but got {value!r}.")


def _parse_value(tensor):
    if tensor.dtype in (pb.MS_STRING, pb.MS_BYTES) and len(tensor.bytes_val) > 1:
        items = list(tensor.bytes_val)
        return [b.decode("utf-8") for b in items] if tensor.dtype == pb.MS_STRING else items
    value = decode(tensor, "")
    return np.array(value) if isinstance(value, np.ndarray) else value


def _parse_reply(reply, count):
    errors = list(reply.error_msg)
    if len(errors) == 1 and errors[0].error_code != 0 and len(reply.instances) == 0:
        return {"error": errors[0].error_msg.decode("utf-8", "replace")}
    if errors and len(errors) != count:
        raise RuntimeError(f"The reply has {len(errors)} errors for {count} instances, expected 0, 1 or {count}.")
    result = []
    for i, instance in enumerate(reply.instances):
        if errors and errors[i].error_code != 0:
            result.append({"error": errors[i].error_msg.decode("utf-8", "replace")})
            continue
        try:
            result.append({name: _parse_value(t) for name, t in instance.items.items()})
        except TensorError as exc:
            result.append({"error": f"Failed to parse the reply: {exc}"})
    return result


def _grpc_error(exc):
    code = exc.code()
    return {"error": f"Grpc Error, {code.value}, {exc.details()}"}


class ClientGrpcAsyncResult:
    """What `Client.infer_async` returns: `.result()` waits and parses the reply like `infer`."""

    def __init__(self, future, count):
        self._future, self._count = future, count

    def result(self):
        return _parse_reply(self._future.result(), self._count)


class ClientGrpcAsyncError:
    """An `infer_async` call that could not be started: `.result()` returns the error dict."""

    def __init__(self, error):
        self._error = error

    def result(self):
        return self._error


class Client:
    """Client(address, servable_name, method_name, version_number=0, ssl_config=None): calls one method of a
    servable on a serving server at `address` ('host:port' or 'unix:path'). `version_number=0` = the newest."""

    def __init__(self, address, servable_name, method_name, version_number=0, ssl_config=None):
        _check_str("address", address)
        _check_str("servable_name", servable_name)
        _check_str("method_name", method_name)
        if isinstance(version_number, bool) or not isinstance(version_number, int) or version_number < 0:
            raise RuntimeError(f"For 'Client', the parameter 'version_number' should be an int >= 0, but got "
                               f"{version_number!r}.")
        if ssl_config is not None and not isinstance(ssl_config, SSLConfig):
            raise RuntimeError(f"For 'Client', 'ssl_config' should be a client.SSLConfig, but got "
                               f"{type(ssl_config).__name__}.")
        self.address, self.servable_name = address, servable_name
        self.method_name, self.version_number = method_name, version_number
        options = [("grpc.max_send_message_length", _LIMIT), ("grpc.max_receive_message_length", _LIMIT)]
        if ssl_config is None:
            self._channel = grpc.insecure_channel(address, options=options)
        else:
            self._channel = grpc.secure_channel(address, ssl_config.credentials(), options=options)
        self._stub = sgrpc.MSServiceStub(self._channel)

    def _request(self, instances):
        if isinstance(instances, dict):
            instances = [instances]
        if not isinstance(instances, (list, tuple)):
            raise RuntimeError(f"instances should be a map or a list/tuple of maps, but got "
                               f"{type(instances).__name__}")
        request = pb.PredictRequest()
        request.servable_spec.name = self.servable_name
        request.servable_spec.method_name = self.method_name
        request.servable_spec.version_number = self.version_number
        for item in instances:
            if not isinstance(item, dict):
                raise RuntimeError("instance should be a map")
            inst = request.instances.add()
            for name, value in item.items():
                if not isinstance(name, str):
                    raise RuntimeError(f"the input name should be a str, but got {name!r}")
                try:
                    encode(value, inst.items[name], scalar_shape=(1,))
                except TensorError as exc:
                    raise RuntimeError(str(exc)) from None
        return request, len(instances)

    def infer(self, instances):
        """infer(instances): run one instance (a dict input name → value) or a list of them. Returns a list with
        one dict output name → value per instance (`{"error": msg}` for a failed one), or one `{"error": msg}`
        when the whole request failed."""
        request, count = self._request(instances)
        try:
            reply = self._stub.Predict(request)
        except grpc.RpcError as exc:
            return _grpc_error(exc)
        return _parse_reply(reply, count)

    def infer_async(self, instances):
        """infer_async(instances): like `infer`, without waiting; `.result()` on the returned object waits."""
        request, count = self._request(instances)
        try:
            return ClientGrpcAsyncResult(self._stub.Predict.future(request), count)
        except grpc.RpcError as exc:
            return ClientGrpcAsyncError(_grpc_error(exc))

    def close(self):
        self._channel.close()
