"""`dataset-cache` (also `cache_admin` and `openspore dataset-cache`): start, query and stop the cache server.

Flags and messages follow MindSpore's tool, e.g.::

    dataset-cache --start -p 50052 -s /data/spill     # daemon on 127.0.0.1:50052
    dataset-cache -g                                  # Session created for server on port 50052: 780643335
    dataset-cache --list_sessions
    dataset-cache -d 780643335
    dataset-cache --stop

MS_CACHE_HOST / MS_CACHE_PORT give the host and port when -h / -p are not given.
"""
import os
import select
import subprocess
import sys
import time

from .client import Connection, ServerLost, default_address

USAGE = """dataset-cache [--start | --stop]
              [[-h | --hostname] <hostname>]            Default is 127.0.0.1.
              [[-p | --port] <port number>]             Default is 50052.
              [[-w | --workers] <number of workers>]    Default is half the CPUs (1 on 2 CPUs or fewer).
              [[-s | --spilldir] <spilling directory>]  Default is no spilling.
              [[-l | --loglevel] <log level>]           Default is 1 (INFO level).
              [[-m | --shared_memory_size] <GB>]        Default is 4.
              [[-r | --memory_cap_ratio] <ratio>]       Default is 0.8 (of the physical memory).
          [--destroy_session | -d] <session id> [[-p | --port] <port number>]
          [--generate_session | -g] [[-p | --port] <port number>]
          [--list_sessions] [[-p | --port] <port number>]
          [--server_info] [[-p | --port] <port number>]
          [--help]"""

_COMMANDS = {"--start": "start", "--stop": "stop", "-g": "generate", "--generate_session": "generate",
             "-d": "destroy", "--destroy_session": "destroy", "--list_sessions": "list", "--server_info": "info",
             "--help": "help"}
_OPTIONS = {"-h": "hostname", "--hostname": "hostname", "-p": "port", "--port": "port", "-w": "workers",
            "--workers": "workers", "-s": "spilldir", "--spilldir": "spilldir", "-l": "loglevel",
            "--loglevel": "loglevel", "-m": "shm", "--shared_memory_size": "shm", "-r": "ratio",
            "--memory_cap_ratio": "ratio"}
START_TIMEOUT_S = 60  # MindSpore's alarm deadline for the server to come up


class UsageError(Exception):
    pass


def _number(text, kind, what):
    try:
        return kind(text)
    except ValueError:
        raise UsageError(f"Invalid {what}: {text!r} is not a{'n integer' if kind is int else ' number'}.") from None


def parse(argv):
    """(command, options dict, session id or None) from MindSpore-style arguments."""
    command, options, session = None, {}, None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _COMMANDS:
            if command is not None:
                raise UsageError(f"Only one command may be given, but got {command!r} and {_COMMANDS[arg]!r}.")
            command = _COMMANDS[arg]
            if command == "destroy":
                if i + 1 >= len(argv):
                    raise UsageError(f"{arg} needs a session id.")
                session = _number(argv[i + 1], int, "session id")
                i += 1
        elif arg in _OPTIONS:
            if i + 1 >= len(argv):
                raise UsageError(f"{arg} needs a value.")
            options[_OPTIONS[arg]] = argv[i + 1]
            i += 1
        else:
            raise UsageError(f"Unknown argument: {arg}")
        i += 1
    return command, options, session


def _settings(options):
    host, port = default_address(options.get("hostname"), None if "port" not in options else
                                 _number(options["port"], int, "port number"))
    if not 1025 <= port <= 65535:
        raise UsageError(f"Port must be in range of 1025 and 65535, but got {port}.")
    cpus = os.cpu_count() or 1
    workers = _number(options.get("workers", str(1 if cpus <= 2 else cpus // 2)), int, "number of workers")
    if not 1 <= workers <= 100:
        raise UsageError("Number of workers must be in range of 1 and 100.")
    loglevel = _number(options.get("loglevel", "1"), int, "log level")
    if not 0 <= loglevel <= 4:
        raise UsageError("Log level must be in range (0..4).")
    shm = _number(options.get("shm", "4"), float, "shared memory size")
    if shm <= 0:
        raise UsageError(f"Shared memory size (-m) must be a positive number of GB, but got {shm}.")
    ratio = _number(options.get("ratio", "0.8"), float, "memory cap ratio")
    if not 0 < ratio <= 1:
        raise UsageError(f"Memory cap ratio (-r) must be in (0, 1], but got {ratio}.")
    spilldir = options.get("spilldir")
    return host, port, workers, spilldir and os.path.abspath(spilldir), loglevel, shm, ratio


def _connect(host, port):
    return Connection(host, port, attach_shm=False)


# A tiny launcher between this tool and the daemon: it starts the server in its own session and exits at
# once, so the daemon is nobody's child (no zombie in whatever process ran `--start`).
_LAUNCHER = ("import subprocess, sys; subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, "
             "start_new_session=True)")


def start(host, port, workers, spilldir, loglevel, shm, ratio):
    try:
        _connect(host, port).close()
        print(f"Cache server is already up and running on port {port}.", file=sys.stderr)
        return 1
    except ServerLost:
        pass
    server_cmd = [sys.executable, "-m", "openspore.dataset.cache.server", "--host", host, "--port", str(port),
                  "--workers", str(workers), "--loglevel", str(loglevel), "--shm-gb", str(shm),
                  "--memory-cap-ratio", str(ratio)] + (["--spilldir", spilldir] if spilldir else [])
    read_fd, write_fd = os.pipe()
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])  # this very openspore
    launcher = subprocess.run([sys.executable, "-c", _LAUNCHER] + server_cmd, stdout=write_fd, stderr=write_fd,
                              env=env, check=False)
    os.close(write_fd)
    try:
        if launcher.returncode != 0:
            print(f"Cache server startup failed: the launcher exited with code {launcher.returncode}.",
                  file=sys.stderr)
            return 1
        status, lines = _read_status(read_fd)
    finally:
        os.close(read_fd)
    if status is None or not status.startswith("OK "):
        reason = status[4:] if status and status.startswith("ERR ") else \
            ("no answer within %d s" % START_TIMEOUT_S if status is None else status)
        detail = "".join(lines[-20:])
        print(f"Cache server startup failed: {reason}" + (f"\n{detail}" if detail.strip() else ""), file=sys.stderr)
        return 1
    _, pid, log_path = status.split(" ", 2)
    print("Cache server startup completed successfully!")
    print(f"The cache server daemon has been created as process id {pid} and listening on port {port}.")
    print(f"\nRecommendation:\nSince the server is detached into its own daemon process, monitor the server log "
          f"({log_path}) for any issues that may happen after startup")
    return 0


def _read_status(fd):
    """The server's `OK ...` / `ERR ...` line (None on timeout or early exit) and any other output it wrote."""
    deadline = time.monotonic() + START_TIMEOUT_S
    buffer, lines = b"", []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            text = line.decode(errors="replace")
            if text.startswith(("OK ", "ERR ")):
                return text, lines
            lines.append(text + "\n")
    return None, lines + ([buffer.decode(errors="replace")] if buffer else [])


def pid_alive(pid):
    """Whether process `pid` runs (a zombie does not count); the server uses it too, for stale spill folders."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def stop(host, port):
    try:
        conn = _connect(host, port)
    except ServerLost:
        print(f"Server on port {port} is not reachable or has been shutdown already.", file=sys.stderr)
        return 1
    pid = conn.pid
    conn.call("stop")
    conn.close()
    deadline = time.monotonic() + 30
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        print(f"Cache server on port {port} (process id {pid}) did not stop within 30 s.", file=sys.stderr)
        return 1
    print(f"Cache server on port {port} has been stopped successfully.")
    return 0


def _table(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows)


def query(command, host, port, session):
    try:
        conn = _connect(host, port)
    except ServerLost as exc:
        print(str(exc), file=sys.stderr)
        return 1
    try:
        if command == "generate":
            sid = conn.call("new_session")[0]["session_id"]
            print(f"Session created for server on port {port}: {sid}")
        elif command == "destroy":
            if conn.call("drop_session", session_id=session)[0]["found"]:
                print(f"Drop session {session} successfully for server on port {port}")
            else:
                print(f"Session id {session} not found in server on port {port}.", file=sys.stderr)
                return 1
        elif command == "list":
            rows = [("Session", "Cache Id", "Mem cached", "Disk cached", "Avg cache size", "Hits", "Misses")]
            for s in conn.call("list")[0]["sessions"]:
                if not s["caches"]:
                    rows.append((s["session_id"], "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"))
                for c in s["caches"]:
                    rows.append((s["session_id"], c["cache_id"], c["num_mem_cached"], c["num_disk_cached"] or "n/a",
                                 c["avg_cache_sz"], c["hits"], c["misses"]))
            print(f"Listing sessions for server on port {port}\n")
            print(_table(rows))
        elif command == "info":
            info = conn.call("info")[0]
            rows = [("hostname", info["hostname"]), ("port", info["port"]), ("number of workers", info["workers"]),
                    ("log level", info["log_level"]), ("spill", info["spill_dir"] or "None"),
                    ("shared memory (GB)", info["shm_gb"]), ("memory cap ratio", info["memory_cap_ratio"]),
                    ("process id", info["pid"])]
            print("Cache Server Configuration: ")
            print("----------------------------------------")
            print("         config name          value")
            print("----------------------------------------")
            for name, value in rows:
                print(f"{name:>22}  {value}")
            print("----------------------------------------")
            print("Active sessions: ")
            print("\n".join(str(s) for s in info["sessions"]) if info["sessions"] else "No active sessions.")
    except ServerLost as exc:
        print(str(exc), file=sys.stderr)
        return 1
    finally:
        conn.close()
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        command, options, session = parse(argv)
        if command is None or command == "help":
            print(USAGE)
            return 0 if command == "help" else 1
        host, port, workers, spilldir, loglevel, shm, ratio = _settings(options)
    except (UsageError, ValueError) as exc:
        print(f"{exc}\n\n{USAGE}", file=sys.stderr)
        return 1
    if command == "start":
        return start(host, port, workers, spilldir, loglevel, shm, ratio)
    if command == "stop":
        return stop(host, port)
    return query(command, host, port, session)


if __name__ == "__main__":
    sys.exit(main())
