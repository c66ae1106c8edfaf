"""Run a uvicorn server in a background thread and return once it accepts connections.

The federated services (federated/http_service.py) and serving's RESTful front end
(serving/server/master/restful.py) both serve an ASGI app on an already-bound socket from a daemon thread; this
is the one place that starts it and waits, with a deadline, for uvicorn's `started` flag — or raises with the
caller's message when the thread died or the deadline passed.

>>> import socket, urllib.request, uvicorn
>>> async def app(scope, receive, send):
...     await send({"type": "http.response.start", "status": 200, "headers": []})
...     await send({"type": "http.response.body", "body": b"up"})
>>> sock = socket.socket(); sock.bind(("127.0.0.1", 0)); sock.listen(8)
>>> server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
>>> thread = serve_in_thread(server, sock, "example", 10, "the example server did not start")
>>> urllib.request.urlopen(f"http://127.0.0.1:{sock.getsockname()[1]}/").read()
b'up'
>>> server.should_exit = True; thread.join(10); sock.close()
"""
import threading
import time


def serve_in_thread(server, sock, name, timeout_s, failure_message):
    """Start `server.run(sockets=[sock])` in a daemon thread named `name`; wait until uvicorn reports it started.

    Raises RuntimeError(failure_message) when the thread ended or `timeout_s` passed first. Returns the thread."""
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(failure_message)
        time.sleep(0.01)
    return thread
