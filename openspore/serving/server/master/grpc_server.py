"""The client-facing gRPC server: `mindspore.serving.proto.MSService/Predict` (MindSpore Serving compatible).

As in MindSpore Serving the call returns status OK and errors travel in `PredictReply.error_msg`; only transport
problems (a message over `max_msg_mb_size`) come back as a gRPC status.
"""
import time
from concurrent import futures

import grpc

from ...common.status import ServingError
from ...common.tensor import TensorError, decode
from ...proto import ms_generate_pb2_grpc as ggrpc
from ...proto import ms_service_pb2_grpc as sgrpc
from .replies import error_reply, grpc_reply


def check_instances(instances):
    """Decode every tensor once to check it (MindSpore Serving validates the whole request up front)."""
    for inst in instances:
        for name, tensor in inst.items.items():
            try:
                decode(tensor, "")
            except TensorError as exc:
                raise ServingError(f"Instances input {name} check failed, detail: {exc}") from None


class _Service(sgrpc.MSServiceServicer):
    def __init__(self, master):
        self.master = master

    def Predict(self, request, context):  # noqa: N802 - gRPC method name
        start = time.perf_counter()
        spec = request.servable_spec
        pending = None
        try:
            check_instances(request.instances)
            pending = self.master.dispatcher.submit(spec.name, spec.version_number, spec.method_name,
                                                    list(request.instances))
        except ServingError as exc:
            reply = error_reply(spec, exc.code, exc.message)
        else:
            # Queued instances run even if the client goes away meanwhile; the reply is then dropped by gRPC.
            pending.wait()
            reply = grpc_reply(spec, pending)
        ok = len(reply.error_msg) == 0
        self.master.metrics.request(spec.name, spec.method_name, "grpc", ok, time.perf_counter() - start,
                                    len(request.instances) if pending else 0)
        return reply


class _GenerateService(ggrpc.MSGenerateServicer):
    """`openspore.serving.proto.MSGenerate/Generate`: the replies of the worker's stream, relayed as they come.
    Errors end the stream with a gRPC status (INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED for a full queue,
    UNAVAILABLE when the worker died); a client that cancels cancels the generation."""

    _CODES = {400: grpc.StatusCode.INVALID_ARGUMENT, 404: grpc.StatusCode.NOT_FOUND,
              429: grpc.StatusCode.RESOURCE_EXHAUSTED, 503: grpc.StatusCode.UNAVAILABLE}

    def __init__(self, master):
        self.master = master

    def Generate(self, request, context):  # noqa: N802 - gRPC method name
        start = time.perf_counter()
        name, ok = "", False
        try:
            info = self.master.generation.resolve(request.servable_name, request.version_number,
                                                  field="servable_name")
            name = info.name
            call = self.master.generation.open(info, request)
            context.add_callback(call.cancel)
            yield from call
            ok = True
        except ServingError as exc:
            context.abort(self._CODES.get(exc.http_status, grpc.StatusCode.INTERNAL), exc.message)
        finally:
            self.master.metrics.request(name, "generate", "grpc", ok, time.perf_counter() - start, 1 if name else 0)


class GrpcServer:
    def __init__(self, master, address, max_msg_mb_size, ssl_config):
        limit = max_msg_mb_size << 20
        options = [("grpc.max_send_message_length", limit), ("grpc.max_receive_message_length", limit),
                   ("grpc.so_reuseport", 0)]
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="serving-grpc"),
                                  options=options)
        sgrpc.add_MSServiceServicer_to_server(_Service(master), self.server)
        ggrpc.add_MSGenerateServicer_to_server(_GenerateService(master), self.server)
        try:
            if ssl_config is None:
                port = self.server.add_insecure_port(address)
            else:
                port = self.server.add_secure_port(address, ssl_config.server_credentials())
        except RuntimeError as exc:
            raise RuntimeError(f"Serving Error: Serving gRPC server start failed, create server failed, address "
                               f"{address}: {exc}") from None
        if not port and not address.startswith("unix:"):
            raise RuntimeError(f"Serving Error: Serving gRPC server start failed, create server failed, address "
                               f"{address} (is the port in use?)")
        host = address.rsplit(":", 1)[0]
        self.address = address if address.startswith("unix:") else f"{host}:{port}"
        self.server.start()

    def stop(self, grace=1.0):
        self.server.stop(grace).wait()


