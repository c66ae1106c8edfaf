"""`openspore serve SERVABLE_DIR`: start servables and the gRPC/REST front ends until SIGINT or SIGTERM.

SERVABLE_DIR is either one servable (a folder with servable_config.py) or a servable directory holding several;
`--servable NAME` picks some of the latter. Front ends bind 127.0.0.1 by default; `--grpc none` / `--rest none`
turn one off.
"""
import os
import signal
import sys
import threading


def add_arguments(parser):
    parser.add_argument("servable_dir", metavar="SERVABLE_DIR",
                        help="a servable (folder with servable_config.py) or a directory of servables")
    parser.add_argument("--servable", action="append", default=None, metavar="NAME",
                        help="serve only this servable of SERVABLE_DIR (repeatable)")
    parser.add_argument("--grpc", default="127.0.0.1:5500", metavar="ADDR",
                        help="gRPC address, 'ip:port' or 'unix:path'; 'none' = no gRPC (default 127.0.0.1:5500)")
    parser.add_argument("--rest", default="127.0.0.1:1500", metavar="ADDR",
                        help="REST address 'ip:port'; 'none' = no REST (default 127.0.0.1:1500)")
    parser.add_argument("--device-ids", default="0", metavar="IDS",
                        help="comma-separated device ids, one worker process each (default 0)")
    parser.add_argument("--device-type", default=None, choices=["CPU", "GPU", "cpu", "gpu"])
    parser.add_argument("--version", dest="version_number", type=int, default=0, metavar="N",
                        help="version to serve (default 0 = the newest)")
    parser.add_argument("--max-batch-size", type=int, default=None, metavar="N",
                        help="instances per worker batch (default: the model batch size)")
    parser.add_argument("--max-queue-delay", type=float, default=0.0, metavar="SECONDS",
                        help="how long a batch may wait to fill (default 0)")
    parser.add_argument("--max-msg-mb-size", type=int, default=100, metavar="MB")
    parser.add_argument("--log-dir", default=None, help="worker log directory (default ./serving_logs)")


def _servables(root, picked):
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        raise SystemExit(f"openspore serve: {root} is not a directory")
    if os.path.isfile(os.path.join(root, "servable_config.py")):
        return os.path.dirname(root), [os.path.basename(root)]
    names = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "servable_config.py")))
    if picked:
        missing = [p for p in picked if p not in names]
        if missing:
            raise SystemExit(f"openspore serve: no servable {missing} in {root} (found {names})")
        names = list(picked)
    if not names:
        raise SystemExit(f"openspore serve: {root} holds no servable (no <name>/servable_config.py)")
    return root, names


def _device_ids(text):
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise SystemExit(f"openspore serve: --device-ids should be comma-separated ints, but got {text!r}") from None


def run(args):
    from openspore.serving import server
    from openspore.serving.server.master import context
    directory, names = _servables(args.servable_dir, args.servable)
    if args.log_dir:
        context.set_worker_log_dir(args.log_dir)
    stop_event = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop_event.set())
    try:
        configs = [server.ServableStartConfig(directory, name, device_ids=_device_ids(args.device_ids),
                                              version_number=args.version_number, device_type=args.device_type,
                                              max_batch_size=args.max_batch_size,
                                              max_queue_delay=args.max_queue_delay) for name in names]
        server.start_servables(configs)
        if args.grpc.lower() != "none":
            server.start_grpc_server(args.grpc, max_msg_mb_size=args.max_msg_mb_size)
        if args.rest.lower() != "none":
            server.start_restful_server(args.rest, max_msg_mb_size=args.max_msg_mb_size)
    except RuntimeError as exc:
        server.stop()
        print(f"openspore serve: {exc}", file=sys.stderr)
        return 1
    print(f"Serving: {', '.join(names)} ready; press Ctrl-C to stop", flush=True)
    while not stop_event.wait(0.5):
        pass
    print("Serving: stopping (draining in-flight requests)", flush=True)
    server.stop()
    print("Serving: stopped", flush=True)
    return 0
