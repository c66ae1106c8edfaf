"""Start the example servable the MindSpore Serving way (the same as `openspore serve examples/serving`):

    python examples/serving/serve.py [--grpc 127.0.0.1:5500] [--rest 127.0.0.1:1500]

It prints a ready line with the addresses once both front ends listen; Ctrl-C stops it.
"""
import argparse
import os
import signal
import threading

from openspore.serving import server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grpc", default="127.0.0.1:5500", help="gRPC address (port 0 = any free port)")
    parser.add_argument("--rest", default="127.0.0.1:1500", help="REST address (port 0 = any free port)")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    config = server.ServableStartConfig(servable_directory=here, servable_name="lenet", device_ids=0)
    server.start_servables(config)
    grpc_address = server.start_grpc_server(args.grpc)
    rest_address = server.start_restful_server(args.rest)
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    print(f"Serving: lenet ready on gRPC {grpc_address} and REST {rest_address}; press Ctrl-C to stop", flush=True)
    done.wait()
    server.stop()
    print("Serving: stopped", flush=True)


if __name__ == "__main__":
    main()
