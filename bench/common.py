"""Timing helpers shared by the benchmark workers: warm-up, repeats, median, peak RSS."""
import resource
import socket
import statistics
import time


def measure(step, warmup, steps, repeats, sync=lambda: None, clock=time.perf_counter):
    """Run `step` `warmup` times, then `repeats` timed blocks of `steps` calls; returns seconds per step (median).
    `clock=time.process_time` times the CPU this process used (all its threads): steadier than wall time on a
    machine other work loads."""
    for _ in range(warmup):
        step()
    sync()
    per_step = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(steps):
            step()
        sync()
        per_step.append((clock() - t0) / steps)
    return statistics.median(per_step), per_step


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def free_port():
    """A TCP port free on 127.0.0.1 now (for a server or a rendezvous the bench starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
