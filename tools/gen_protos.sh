#!/usr/bin/env bash
# Regenerate the protobuf modules committed under openspore/ (dev-only: needs `pip install grpcio-tools`;
# the runtime needs only `protobuf`).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m grpc_tools.protoc --proto_path=openspore/train --python_out=openspore/train openspore/train/checkpoint.proto
echo "generated openspore/train/checkpoint_pb2.py"
python -m grpc_tools.protoc --proto_path=openspore/serialization --python_out=openspore/serialization \
    openspore/serialization/mind_ir.proto
echo "generated openspore/serialization/mind_ir_pb2.py"
