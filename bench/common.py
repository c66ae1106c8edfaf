"""Timing helpers shared by the benchmark workers: warm-up, repeats, median, peak RSS."""
import resource
import socket
import statistics
import time


def measure(step, warmup, steps, repeats, sync=lambda: None):
    """Run `step` `warmup` times, then `repeats` timed blocks of `steps` calls; returns seconds per step (median)."""
    for _ in range(warmup):
        step()
    sync()
    per_step = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        per_step.append((time.perf_counter() - t0) / steps)
    return statistics.median(per_step), per_step


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def free_port():
    """A TCP port free on 127.0.0.1 now (for a server or a rendezvous the bench starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
