"""Generated protobuf modules of openspore.serving (regenerate with tools/gen_protos.sh).

`ms_service.proto` is the public, MindSpore Serving compatible gRPC service; `ms_worker.proto` is the internal
master/worker protocol.
"""
