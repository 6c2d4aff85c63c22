"""A progress line on stderr for runs longer than a couple of seconds; silent when stderr is
not a terminal (CI, pipes) unless forced."""

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
