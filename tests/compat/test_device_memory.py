"""Device-memory statistics: on the CPU there is no device pool, so every figure is 0 (as MindSpore 2.10 reports
on its CPU target); the summary is MindSpore's table."""
import openspore as ms
from openspore import runtime
from openspore.runtime import device_memory


def test_cpu_figures_are_zero_and_consistent(monkeypatch):
    monkeypatch.setattr(device_memory, "_cuda", lambda: None)
    stats = ms.memory_stats()
    assert {k: stats[k] for k in ("total_reserved_memory", "total_allocated_memory", "total_idle_memory",
                                  "max_reserved_memory", "max_allocated_memory")} == dict.fromkeys(
        ("total_reserved_memory", "total_allocated_memory", "total_idle_memory", "max_reserved_memory",
         "max_allocated_memory"), 0)
    assert ms.memory_allocated() == ms.max_memory_allocated() == ms.memory_reserved() == 0
    ms.empty_cache()
    ms.reset_peak_memory_stats()
    assert runtime.memory_allocated is ms.memory_allocated


def test_figures_follow_the_device_allocator(monkeypatch):
    class FakeAllocatorFigures:  # stands for torch.cuda's counters (an external library, not ours)
        def __init__(self):
            self.peak_resets = 0

        def memory_allocated(self):
            return 3 * 1024 * 1024

        def max_memory_allocated(self):
            return 5 * 1024 * 1024

        def memory_reserved(self):
            return 8 * 1024 * 1024

        def max_memory_reserved(self):
            return 8 * 1024 * 1024

        def reset_peak_memory_stats(self):
            self.peak_resets += 1

    figures = FakeAllocatorFigures()
    monkeypatch.setattr(device_memory, "_cuda", lambda: figures)
    stats = runtime.memory_stats()
    assert stats["total_idle_memory"] == 5 * 1024 * 1024
    ms.reset_max_memory_allocated()
    ms.reset_max_memory_reserved()
    assert figures.peak_resets == 2
    summary = ms.memory_summary().splitlines()
    assert summary[1] == "|               Memory summary                |"
    assert summary[7] == "| Allocated memory     |   3.00 MB            |"
    assert all(len(line) == 47 for line in summary)
