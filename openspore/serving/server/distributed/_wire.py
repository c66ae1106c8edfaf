"""The framing of the messages between a distributed generation servable and its agents (plain TCP).

A message is a JSON header (4-byte big-endian length, then UTF-8 JSON) and a binary payload (8-byte length, then
bytes; logits travel there as raw float32). JSON, not pickle: an agent port must not run what a peer sends.

>>> import socket
>>> a, b = socket.socketpair()
>>> send(a, {"op": "ping"}, b"xyz"); receive(b)
({'op': 'ping'}, b'xyz')
>>> a.close(); receive(b)
Traceback (most recent call last):
  ...
ConnectionError: the peer closed the connection
"""
import json
import struct


def send(sock, header, payload=b""):
    body = json.dumps(header).encode("utf-8")
    sock.sendall(struct.pack(">I", len(body)) + body + struct.pack(">Q", len(payload)) + payload)


def _exactly(sock, n):
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock):
    """(header dict, payload bytes); ConnectionError when the peer is gone, ValueError for a malformed header."""
    (size,) = struct.unpack(">I", _exactly(sock, 4))
    if size > 64 << 20:
        raise ValueError(f"a message header of {size} bytes is too large (at most 64 MiB)")
    try:
        header = json.loads(_exactly(sock, size).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"a message header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise ValueError("a message header must be a JSON object")
    (length,) = struct.unpack(">Q", _exactly(sock, 8))
    return header, _exactly(sock, length) if length else b""
