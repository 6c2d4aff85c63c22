"""Progress lines on stderr, silent when stderr is not a terminal (CI, pipes) unless forced:
one run's (`Progress`, for runs longer than a couple of seconds) and a batch of runs'
(`RunsDone`: an experiment's or a sweep's finished runs)."""

from __future__ import annotations

import sys
import time
from typing import Optional


class Progress:
    def __init__(self, enabled: Optional[bool] = None, delay_s: float = 2.0):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.start = time.perf_counter()
        self.delay_s = delay_s
        self.shown = False

    def update(self, fraction: Optional[float], sim_s: float, events: int, completed: int) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay_s:
            return
        rate = events / elapsed if elapsed > 0 else 0.0
        if fraction is not None and fraction > 0:
            eta = elapsed * (1 - fraction) / fraction
            head = f"{fraction * 100:5.1f}%  ETA {eta:6.1f}s"
        else:
            head = "   ...        "
        line = f"\r{head}  sim {sim_s:.4f}s  {completed:,} I/Os  {rate / 1e6:.1f} M events/s"
        sys.stderr.write(line)
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


class RunsDone:
    """`done/total runs done on W worker(s), N already complete, T s, ETA E s (last: NAME)` for a
    batch of runs (each run's own line is off in the workers). ``show``: None for a terminal
    only; ``skipped``: runs a resumed sweep found complete (said only when some were)."""

    def __init__(self, total: int, workers: int, skipped: int = 0, show: Optional[bool] = None):
        self.total, self.workers, self.skipped, self.n = total, workers, skipped, 0
        self.start = time.perf_counter()
        self.enabled = (sys.stderr.isatty() if show is None else show) and total > 0

    def one(self, name: Optional[str] = None) -> None:
        self.n += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.n * (self.total - self.n)
        skipped = f", {self.skipped} already complete" if self.skipped else ""
        last = f" (last: {name})" if name else ""
        sys.stderr.write(f"\r{self.n}/{self.total} runs done on {self.workers} worker(s){skipped}, {elapsed:.0f} s, "
                         f"ETA {eta:.0f} s{last}\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.n:
            sys.stderr.write("\n")
            sys.stderr.flush()
