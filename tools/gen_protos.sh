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
python -m grpc_tools.protoc --proto_path=openspore/parallel --python_out=openspore/parallel \
    openspore/parallel/node_strategy.proto
echo "generated openspore/parallel/node_strategy_pb2.py"
# Serving: the proto path is the repo root so the generated gRPC modules import their messages by package path.
python -m grpc_tools.protoc --proto_path=. --python_out=. --grpc_python_out=. \
    openspore/serving/proto/ms_service.proto openspore/serving/proto/ms_worker.proto \
    openspore/serving/proto/ms_generate.proto
echo "generated openspore/serving/proto/ms_{service,worker,generate}_pb2{,_grpc}.py"
# Summaries: MindSpore's event, graph (anf_ir) and lineage messages; package paths, as for serving.
python -m grpc_tools.protoc --proto_path=. --python_out=. openspore/train/summary/anf_ir.proto \
    openspore/train/summary/summary.proto openspore/train/summary/lineage.proto
echo "generated openspore/train/summary/{anf_ir,summary,lineage}_pb2.py"
# TFRecord's tf.train.Example messages (TFRecordDataset).
python -m grpc_tools.protoc --proto_path=openspore/dataset/sources --python_out=openspore/dataset/sources \
    openspore/dataset/sources/example.proto
echo "generated openspore/dataset/sources/example_pb2.py"
