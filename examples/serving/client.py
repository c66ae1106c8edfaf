"""Query the example servable over gRPC (Python client), MindSpore REST JSON and KServe v2:

    python examples/serving/client.py [--grpc 127.0.0.1:5500] [--rest 127.0.0.1:1500]
"""
import argparse
import base64
import json
import os
import sys
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digits import make_digits  # noqa: E402

from openspore.serving.client import Client  # noqa: E402


def post(url, payload):
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grpc", default="127.0.0.1:5500")
    parser.add_argument("--rest", default="127.0.0.1:1500")
    args = parser.parse_args()
    images, labels = make_digits(8, seed=3)

    client = Client(args.grpc, "lenet", "classify")
    result = client.infer([{"image": image} for image in images])
    if isinstance(result, dict):
        raise SystemExit(f"gRPC error: {result['error']}")
    grpc_labels = [int(r["label"]) for r in result]
    print(f"gRPC   labels {grpc_labels}  (true {labels.tolist()})")

    reply = post(f"http://{args.rest}/model/lenet:classify",
                 {"instances": [{"image": {"b64": base64.b64encode(image.tobytes()).decode(), "type": "uint8",
                                           "shape": [32, 32]}} for image in images]})
    if "error_msg" in reply:
        raise SystemExit(f"REST error: {reply['error_msg']}")
    rest_labels = [inst["label"] for inst in reply["instances"]]
    print(f"REST   labels {rest_labels}")

    body = {"inputs": [{"name": "image", "shape": [8, 32, 32], "datatype": "UINT8",
                        "data": images.reshape(-1).tolist()}], "parameters": {"method": "classify"}}
    kserve = post(f"http://{args.rest}/v2/models/lenet/infer", body)
    kserve_labels = next(o["data"] for o in kserve["outputs"] if o["name"] == "label")
    print(f"KServe labels {kserve_labels}")
    assert grpc_labels == rest_labels == kserve_labels
    print(f"accuracy {np.mean(np.array(grpc_labels) == labels):.3f}")


if __name__ == "__main__":
    main()
