"""The worker process: load the servables given by the master, serve MSWorker.Predict on 127.0.0.1, register.

Started by the master as `python -m openspore.serving.server.worker --master ADDR --device-id N --servables JSON`.
It exits when the master asks (MSWorker.Exit), on SIGTERM, or when the master process is gone.
"""
import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from concurrent import futures

import grpc

from ...common.status import StatusCode
from ...common.tensor import TensorError, decode, encode
from ...proto import ms_service_pb2 as pb
from ...proto import ms_worker_pb2 as wpb
from ...proto import ms_worker_pb2_grpc as wgrpc
from .executor import StageFailure
from .servable import LoadedServable

logger = logging.getLogger("openspore.serving")
_GRPC_OPTIONS = [("grpc.max_send_message_length", 512 << 20), ("grpc.max_receive_message_length", 512 << 20),
                 ("grpc.so_reuseport", 0)]


class WorkerService(wgrpc.MSWorkerServicer):
    """Runs predict requests one at a time (one model runtime per process) on the loaded servables."""

    def __init__(self, servables, exit_event):
        self.servables = {(s.name, s.version): s for s in servables}
        self.exit_event = exit_event
        self.lock = threading.Lock()

    def Predict(self, request, context):  # noqa: N802 - gRPC method name
        spec = request.servable_spec
        reply = pb.PredictReply()
        reply.servable_spec.CopyFrom(spec)
        servable = self.servables.get((spec.name, spec.version_number))
        method = servable.definition.methods.get(spec.method_name) if servable else None
        if method is None:
            text = (f"servable({spec.name}) method({spec.method_name}) version({spec.version_number}) is not loaded "
                    f"by worker {os.getpid()}")
            for _ in request.instances:
                reply.instances.add()
                reply.error_msg.add(error_code=StatusCode.SERVABLE_UNAVAILABLE, error_msg=text.encode())
            return reply
        decoded, errors = [], [None] * len(request.instances)
        for i, inst in enumerate(request.instances):
            try:
                missing = [name for name in method.input_names if name not in inst.items]
                if missing:
                    raise TensorError(f"Cannot find input {missing[0]} in instance input")
                decoded.append({name: decode(inst.items[name], f"input {name}: ", bytes_as="uint8")
                                for name in method.input_names})
            except TensorError as exc:
                errors[i] = f"Instances input check failed, detail: {exc}"
                decoded.append(None)
        good = [i for i, d in enumerate(decoded) if d is not None]
        with self.lock:
            results = servable.runner.run(method, [decoded[i] for i in good]) if good else []
        outcome = [None] * len(decoded)
        for i, result in zip(good, results):
            outcome[i] = result
        for i, result in enumerate(outcome):
            instance = reply.instances.add()
            if result is None:
                reply.error_msg.add(error_code=StatusCode.INVALID_INPUTS, error_msg=errors[i].encode())
            elif isinstance(result, StageFailure):
                reply.error_msg.add(error_code=result.code, error_msg=result.message.encode())
            else:
                try:
                    for name, value in result.items():
                        encode(value, instance.items[name], scalar_shape=())
                    reply.error_msg.add(error_code=StatusCode.SUCCESS)
                except TensorError as exc:
                    instance.Clear()
                    reply.error_msg.add(error_code=StatusCode.FAILED,
                                        error_msg=f"Failed to construct the response: {exc}".encode())
        return reply

    def Generate(self, request, context):  # noqa: N802 - gRPC method name
        """Stream the tokens of one generation request; the master cancelling the call cancels the request."""
        from openspore.llm.scheduler import GenerationError, QueueFull
        servable = self._generation_servable(request, context)
        try:
            handle, text = servable.llm.start(request)
        except ValueError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except QueueFull as exc:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except GenerationError as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        context.add_callback(handle.cancel)
        try:
            yield from servable.llm.replies(handle, text)
        except GenerationError as exc:
            context.abort(grpc.StatusCode.INTERNAL, str(exc))
        finally:
            handle.cancel()     # a no-op after the end; frees the blocks when the stream was abandoned

    def GenerateMux(self, request_iterator, context):  # noqa: N802 - gRPC method name
        """Many generation requests on one stream, their replies in batches (generate_mux.py)."""
        from .generate_mux import MuxSession
        yield from MuxSession(lambda request: self._find_generation(request).llm, request_iterator).replies()

    def _generation_servable(self, request, context):
        try:
            return self._find_generation(request)
        except LookupError as exc:
            context.abort(grpc.StatusCode.NOT_FOUND, exc.args[0])

    def _find_generation(self, request):
        versions = [(v, s) for (n, v), s in self.servables.items() if n == request.servable_name and s.llm]
        match = [s for v, s in versions if request.version_number in (0, v)]
        if not match:
            raise LookupError(f"servable({request.servable_name}) version({request.version_number}) is not a "
                              f"generation servable of worker {os.getpid()}")
        return max(match, key=lambda s: s.version)

    def LLMStats(self, request, context):  # noqa: N802 - gRPC method name
        reply = wpb.LLMStatsReply()
        for s in self.servables.values():
            if s.llm is not None:
                entry = reply.servables.add(servable_name=s.name, version_number=s.version)
                for key, value in s.llm.stats().items():
                    entry.values[key] = float(value)
        return reply

    def Exit(self, request, context):  # noqa: N802 - gRPC method name
        logger.info("worker %d: exit requested (%s)", os.getpid(), request.reason)
        self.exit_event.set()
        return wpb.ExitReply()


def _watch_parent(parent, exit_event):
    while not exit_event.is_set():
        if os.getppid() != parent:
            logger.error("worker %d: the master process %d is gone, exiting", os.getpid(), parent)
            os._exit(3)
        time.sleep(0.5)


def _set_device(device_type, device_id):
    # On CPU a device id only names the worker; touching the context would load the backend (torch) before a
    # model needs it, which Python-only servables never do.
    if device_type == "gpu":
        import openspore as ms
        ms.set_device("GPU", device_id)


def _registration(servables, device_id, address):
    request = wpb.RegisterRequest(worker_pid=os.getpid(), address=address, device_id=device_id)
    for s in servables:
        reg = request.servables.add(name=s.name, version_number=s.version, batch_size=s.batch_size)
        if s.llm is not None:
            reg.llm.enabled = True
            reg.llm.model_name = s.llm.model_name
            reg.llm.max_model_len = s.llm.engine.max_model_len
            reg.llm.max_running, reg.llm.max_queue = s.llm.max_running, s.llm.decl.max_queue
        for m in s.method_specs():
            method = reg.methods.add(name=m["name"], input_names=m["input_names"], output_names=m["output_names"])
            _add_tensor_specs(method.inputs, m["input_names"], m["inputs"])
            _add_tensor_specs(method.outputs, m["output_names"], m["outputs"])
    return request


def _add_tensor_specs(target, names, specs):
    for name, spec in zip(names, specs):
        if spec is None:
            target.add(name=name, known=False)
        else:
            target.add(name=name, dims=spec["dims"], dtype=spec["dtype"], known=True)


def run(argv=None):
    parser = argparse.ArgumentParser(prog="openspore-serving-worker")
    parser.add_argument("--master", required=True)
    parser.add_argument("--device-id", type=int, default=0)
    parser.add_argument("--device-type", default="cpu")
    parser.add_argument("--servables", required=True, help="JSON list of {directory, name, version}")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker[%(process)d] %(levelname)s %(message)s")
    exit_event = threading.Event()
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent, exit_event), daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the master, which stops the workers in order
    signal.signal(signal.SIGTERM, lambda *_: exit_event.set())
    channel = grpc.insecure_channel(args.master, options=_GRPC_OPTIONS)
    master = wgrpc.MSMasterStub(channel)
    try:
        _set_device(args.device_type, args.device_id)
        servables = [LoadedServable(s["directory"], s["name"], s["version"], s.get("max_batch_size"))
                     for s in json.loads(args.servables)]
    except Exception as exc:  # noqa: BLE001 - any load failure is reported to the master, then the worker exits
        logger.exception("worker %d: loading failed", os.getpid())
        master.NotifyFailed(wpb.NotifyFailedRequest(worker_pid=os.getpid(), device_id=args.device_id,
                                                    error_msg=f"{exc}"), timeout=10)
        return 1
    # a generation stream holds a thread while it runs: room for every request a scheduler may hold, so the
    # scheduler's bounded queue (not gRPC's) decides which requests wait and which are refused
    streams = sum(s.llm.max_running + s.llm.decl.max_queue for s in servables if s.llm is not None)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4 + streams), options=_GRPC_OPTIONS)
    wgrpc.add_MSWorkerServicer_to_server(WorkerService(servables, exit_event), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    address = f"127.0.0.1:{port}"
    reply = master.Register(_registration(servables, args.device_id, address), timeout=30)
    if reply.error_msg:
        logger.error("worker %d: the master refused the registration: %s", os.getpid(), reply.error_msg)
        server.stop(0)
        return 1
    logger.info("worker %d: serving %s on %s", os.getpid(),
                ", ".join(f"{s.name} version {s.version}" for s in servables), address)
    exit_event.wait()
    server.stop(grace=5).wait()
    for s in servables:
        if s.llm is not None:
            s.llm.close()
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(run())
