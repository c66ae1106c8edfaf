"""Turn a finished PendingRequest into MindSpore Serving's reply shapes (gRPC message and REST JSON)."""
from ...common.status import StatusCode
from ...proto import ms_service_pb2 as pb


def outcome(pending):
    """('ok', instances) when every instance succeeded; ('error', code, message) when the whole request failed
    with one error (all instances failed identically); ('partial', results) otherwise."""
    results = pending.results
    errors = [r for r in results if isinstance(r, tuple)]
    if not errors:
        return ("ok", results)
    if len(errors) == len(results) and len({(int(c), m) for c, m in errors}) == 1:
        code, message = errors[0]
        return ("error", code, message or "Predict failed")
    return ("partial", results)


def error_reply(spec, code, message):
    reply = pb.PredictReply()
    if spec is not None:
        reply.servable_spec.CopyFrom(spec)
    reply.error_msg.add(error_code=int(code) or int(StatusCode.FAILED),
                        error_msg=(message or "Predict failed").encode())
    return reply


def grpc_reply(spec, pending):
    """PredictReply: no error_msg when all succeeded; one per instance when some failed; one and no instances when
    the whole request failed."""
    kind = outcome(pending)
    if kind[0] == "error":
        return error_reply(spec, kind[1], kind[2])
    reply = pb.PredictReply()
    reply.servable_spec.CopyFrom(spec)
    reply.servable_spec.version_number = pending.version
    for result in kind[1]:
        if isinstance(result, tuple):
            reply.instances.add()
        else:
            reply.instances.add().CopyFrom(result)
    if kind[0] == "partial":
        for result in kind[1]:
            if isinstance(result, tuple):
                reply.error_msg.add(error_code=int(result[0]), error_msg=result[1].encode())
            else:
                reply.error_msg.add(error_code=0)
    return reply
