"""Start the example servable the MindSpore Serving way (the same as `openspore serve examples/serving`):

    python examples/serving/serve.py
"""
import os
import signal
import threading

from openspore.serving import server


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    config = server.ServableStartConfig(servable_directory=here, servable_name="lenet", device_ids=0)
    server.start_servables(config)
    server.start_grpc_server("127.0.0.1:5500")
    server.start_restful_server("127.0.0.1:1500")
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    server.stop()


if __name__ == "__main__":
    main()
