"""`msrun`: start the workers of a distributed job on this node, with MindSpore's flags and environment.

    msrun --worker_num=2 --local_worker_num=2 --master_port=8118 --join=True --log_dir=logs train.py [args]

The node whose `--node_rank` is 0 (or, with the default -1, the node that can host `--master_addr`) hosts
the rendezvous store that `communication.init()` joins (MindSpore's scheduler role), so msrun stays up while
its workers run. Each worker gets MS_ROLE, MS_SCHED_HOST, MS_SCHED_PORT, MS_WORKER_NUM, MS_NODE_ID, RANK_ID,
RANK_SIZE, DEVICE_ID, MS_TOPO_TIMEOUT (and RANK / WORLD_SIZE / LOCAL_RANK for torch-style scripts); its
stdout and stderr go to `<log_dir>/worker_<rank>.log`. When a worker fails, msrun stops the others (SIGTERM,
then SIGKILL), names the worker that failed first (what it raised, and the end of its log), lists the workers
that failed after it, and exits non-zero; no worker outlives it. A worker's uncaught exception is also kept in
`<log_dir>/worker_<rank>.error.json`: which worker raised first decides, since the peers of a crashed worker
fail in their next collective and can end before it does.
"""
import argparse
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

from ..communication import _failure_record

_STOP_GRACE_S = 5.0
_FAILED = "Distributed job exited with exception. Please check logs in directory: {}."


def _bool(text):
    if isinstance(text, bool):
        return text
    lowered = str(text).strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected True or False, got {text!r}")


def build_parser():
    p = argparse.ArgumentParser(prog="msrun", description="Start the workers of a distributed openspore job.")
    p.add_argument("--worker_num", type=int, default=8, help="total number of workers in the job")
    p.add_argument("--local_worker_num", type=int, default=None,
                   help="number of workers on this node (default: --worker_num, at most 8)")
    p.add_argument("--master_addr", default="127.0.0.1", help="address of the node hosting the rendezvous")
    p.add_argument("--master_port", type=int, default=8118, help="rendezvous port (1024-65535)")
    p.add_argument("--node_rank", type=int, default=-1, help="this node's index; -1 assigns ranks on arrival")
    p.add_argument("--log_dir", default=".", help="directory for worker_<rank>.log")
    p.add_argument("--join", type=_bool, default=False, help="wait for the workers and report their exit")
    p.add_argument("--cluster_time_out", type=int, default=600, help="seconds to wait for the cluster to form")
    p.add_argument("--bind_core", type=_bool, default=False, help="pin each worker to its share of the CPUs")
    p.add_argument("--tail_worker_log", default="-1",
                   help="ranks whose log ends msrun prints when the job ends (comma list; -1: all)")
    p.add_argument("--worker_log_name", default="worker_[rankid]", help="log file name pattern")
    p.add_argument("task_script", help="the training script")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    return p


def _check(args):
    if args.local_worker_num is None:  # `msrun --worker_num=2 train.py` on one node starts both workers here
        args.local_worker_num = min(8, args.worker_num)
    if args.worker_num < 1 or args.local_worker_num < 1 or args.local_worker_num > args.worker_num:
        raise SystemExit(f"msrun: --local_worker_num ({args.local_worker_num}) must be in [1, --worker_num "
                         f"({args.worker_num})].")
    if not 1024 <= args.master_port <= 65535:
        raise SystemExit(f"msrun: --master_port must be in [1024, 65535], got {args.master_port}.")
    nodes = -(-args.worker_num // args.local_worker_num)
    if args.node_rank >= 0 and args.node_rank * args.local_worker_num >= args.worker_num:
        raise SystemExit(f"msrun: --node_rank {args.node_rank} leaves no ranks: {args.worker_num} workers of "
                         f"{args.local_worker_num} per node make {nodes} node(s).")
    if not os.path.isfile(args.task_script):
        raise SystemExit(f"msrun: the task script {args.task_script!r} does not exist.")


def _is_local(addr):
    try:
        target = socket.gethostbyname(addr)
    except OSError:
        return False
    if target.startswith("127.") or target == "0.0.0.0":
        return True
    try:
        return target in socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        return False


def _host_store(args):
    """The rendezvous store, when this node hosts it (else None)."""
    if args.node_rank > 0 or (args.node_rank < 0 and not _is_local(args.master_addr)):
        return None
    from datetime import timedelta
    import torch.distributed as dist
    timeout = args.cluster_time_out if args.cluster_time_out > 0 else 10 ** 7
    try:
        return dist.TCPStore(args.master_addr, args.master_port, None, True, timedelta(seconds=timeout),
                             wait_for_workers=False)
    except Exception as exc:  # noqa: BLE001 - torch raises DistNetworkError/RuntimeError when the port is taken
        if args.node_rank < 0:  # another msrun on this machine hosts it: join as a client node
            return None
        raise SystemExit(f"msrun: cannot host the rendezvous on {args.master_addr}:{args.master_port} ({exc}); "
                         f"choose a free --master_port.") from exc


def _worker_env(args, local_index):
    rank = args.node_rank * args.local_worker_num + local_index if args.node_rank >= 0 else None
    if args.node_rank < 0 and args.local_worker_num == args.worker_num:
        rank = local_index  # one node: ranks are known up front
    env = dict(os.environ, MS_ROLE="MS_WORKER", MS_SCHED_HOST=args.master_addr, MS_SCHED_PORT=str(args.master_port),
               MS_WORKER_NUM=str(args.worker_num), MS_LOCAL_WORKER_NUM=str(args.local_worker_num),
               RANK_SIZE=str(args.worker_num), DEVICE_ID=str(local_index), MS_TOPO_TIMEOUT=str(args.cluster_time_out),
               WORLD_SIZE=str(args.worker_num), LOCAL_RANK=str(local_index),
               LOCAL_WORLD_SIZE=str(args.local_worker_num), PYTHONUNBUFFERED="1")
    for key in ("MS_NODE_ID", "RANK_ID", "RANK"):
        env.pop(key, None)
    if rank is not None:
        env.update(MS_NODE_ID=str(rank), RANK_ID=str(rank), RANK=str(rank))
    return rank, env


def _log_name(args, rank, local_index):
    label = str(rank) if rank is not None else f"node{max(args.node_rank, 0)}_{local_index}"
    name = args.worker_log_name.replace("[rankid]", label).replace("{ip}", args.master_addr)
    name = name.replace("{hostname}", socket.gethostname())
    return os.path.join(args.log_dir, name if name.endswith(".log") else name + ".log")


class Worker:
    def __init__(self, rank, local_index, proc, log_path, log_file):
        self.rank, self.local_index, self.proc, self.log_path, self.log_file = rank, local_index, proc, log_path, log_file
        self.error_path = os.path.splitext(log_path)[0] + ".error.json"  # its uncaught exception, if any
        self.ended_at = None  # time.time() when its process ended, stamped by _watch
        self.error = None  # the record at error_path once it failed: what it raised, and when

    @property
    def failed_at(self):
        """When it failed: the moment its exception was raised when it recorded one (ending takes longer, and
        a peer it brought down can end first), else the moment its process ended."""
        return self.error["time"] if self.error else self.ended_at

    @property
    def label(self):
        return f"rank {self.rank}" if self.rank is not None else f"local worker {self.local_index}"


def start_workers(args):
    os.makedirs(args.log_dir, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0)) if args.bind_core and hasattr(os, "sched_getaffinity") else None
    workers = []
    for i in range(args.local_worker_num):
        rank, env = _worker_env(args, i)
        log_path = _log_name(args, rank, i)
        log_file = open(log_path, "w")  # noqa: SIM115 - closed when the worker ends
        worker = Worker(rank, i, None, log_path, log_file)
        if os.path.exists(worker.error_path):
            os.remove(worker.error_path)  # an earlier job's
        env[_failure_record.ERROR_FILE_ENV] = os.path.abspath(worker.error_path)
        cmd = [sys.executable, args.task_script, *args.task_script_args]
        print(f"msrun: start worker {i} (rank {rank if rank is not None else 'assigned at init'}), log file: "
              f"{log_path}. Execute command: {' '.join(cmd)}", flush=True)
        # A session of its own: stopping a worker stops whatever it started too.
        worker.proc = subprocess.Popen(cmd, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        if cpus:
            share = max(1, len(cpus) // args.local_worker_num)
            os.sched_setaffinity(worker.proc.pid, cpus[i * share:(i + 1) * share] or cpus)
        workers.append(worker)
    return workers


def stop_workers(workers):
    """SIGTERM every live worker's process group, then SIGKILL what is left after a grace period."""
    live = [w for w in workers if w.proc.poll() is None]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for w in live:
            try:
                os.killpg(w.proc.pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + _STOP_GRACE_S
        while live and time.monotonic() < deadline:
            live = [w for w in live if w.proc.poll() is None]
            time.sleep(0.05)
        if not live:
            break
    for w in workers:
        w.proc.wait()
        w.log_file.close()


def _tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(log unreadable)\n"


def _watch(worker, ended):
    worker.proc.wait()
    worker.ended_at = time.time()
    ended.put(worker)


def _has_ended(worker):
    """True once the worker's process has exited, reaped or not; never reaps it (its _watch thread does)."""
    if worker.proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, worker.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped by its thread in between
        return True


def _read_error(worker):
    record = _failure_record.read(worker.error_path)
    return record if record and record.get("pid") == worker.proc.pid else None


def wait_workers(workers):
    """Waits for every worker; on the first failure stops the others and returns the failed ones, first to fail
    first (an empty list when all succeeded).

    One crash makes its peers fail in their next collective moments later, so several workers fail close
    together. A worker that raised has a record of the moment (see communication._failure_record); for one
    that died without raising (a signal, os._exit) a thread stamps the moment its process ended. Workers that
    were still running when msrun stopped them, without having raised, are not counted as failed.
    """
    ended = queue.Queue()
    watchers = [threading.Thread(target=_watch, args=(w, ended), daemon=True, name=f"msrun-watch-{w.local_index}")
                for w in workers]
    for t in watchers:
        t.start()
    left = len(workers)
    while left:
        try:
            w = ended.get(timeout=0.5)  # a timeout keeps SIGINT / SIGTERM handled promptly
        except queue.Empty:
            continue
        left -= 1
        if w.proc.returncode != 0:
            ended_by_themselves = [v for v in workers if _has_ended(v)]
            stop_workers(workers)
            for t in watchers:
                t.join()  # every ended_at is stamped
            for v in workers:
                v.error = _read_error(v)
            failed = [v for v in workers if v.error or (v in ended_by_themselves and v.proc.returncode)]
            return sorted(failed, key=lambda v: v.failed_at)
    for w in workers:
        w.log_file.close()
    return []


def _what(worker):
    if worker.error:
        return f"raised {worker.error['type']}: {_first_line(worker.error['message'])}"
    code = worker.proc.returncode
    return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


def _first_line(text, limit=200):
    lines = str(text).strip().splitlines()
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _tail_ranks(spec, workers):
    if str(spec).strip() == "-1":
        return workers
    wanted = {int(s) for s in str(spec).split(",") if s.strip()}
    return [w for w in workers if w.rank in wanted]


def main(argv=None):
    args = build_parser().parse_args(argv)
    _check(args)
    store = _host_store(args)  # kept referenced: the store lives as long as msrun
    workers = start_workers(args)

    def on_signal(signum, frame):
        live = sum(w.proc.poll() is None for w in workers)
        stop_workers(workers)
        print(f"msrun: got {signal.Signals(signum).name}; stopped the {live} running worker(s). Their logs are in "
              f"{os.path.abspath(args.log_dir)}.", file=sys.stderr, flush=True)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    failed = wait_workers(workers)
    del store
    if failed:
        first = failed[0]
        print(f"msrun: worker {first.local_index} ({first.label}) {_what(first)}; the other workers were stopped. "
              f"Last lines of {first.log_path}:\n{_tail(first.log_path)}", file=sys.stderr, flush=True)
        for w in failed[1:]:
            print(f"msrun: worker {w.local_index} ({w.label}) {_what(w)} {w.failed_at - first.failed_at:.3f} s after "
                  f"it; its log is {w.log_path}.", file=sys.stderr, flush=True)
        print(_FAILED.format(os.path.abspath(args.log_dir)), file=sys.stderr, flush=True)
        return 1
    if args.join:
        for w in _tail_ranks(args.tail_worker_log, workers):
            print(f"msrun: {w.label} finished; end of {w.log_path}:\n{_tail(w.log_path, 5)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
