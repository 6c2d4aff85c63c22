"""Progress lines on stderr: one run's (`Progress`, for runs longer than a couple of seconds)
and a batch of runs' (`RunsDone`: an experiment's or a sweep's finished runs).

On a terminal the line is rewritten in place. Elsewhere (CI, a pipe, a log file) it is silent
unless ``NEST_PROGRESS=1``, which prints a plain line every ``LOG_EVERY_S`` seconds instead;
``NEST_PROGRESS=0`` silences it on a terminal too."""

from __future__ import annotations

import os
import sys
import time
from typing import Optional

#: Seconds between progress lines when stderr is not a terminal (NEST_PROGRESS=1).
LOG_EVERY_S = 10.0


def _shown(asked: Optional[bool]) -> bool:
    if asked is not None:
        return asked
    env = os.environ.get("NEST_PROGRESS", "").strip()
    return env == "1" if env in ("0", "1") else sys.stderr.isatty()


class Progress:
    def __init__(self, enabled: Optional[bool] = None, delay_s: float = 2.0):
        self.enabled = _shown(enabled)
        self.tty = sys.stderr.isatty()
        self.start = time.perf_counter()
        self.delay_s = delay_s
        self.shown = False
        self.last_line = 0.0

    def update(self, fraction: Optional[float], sim_s: float, events: int, completed: int) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay_s:
            return
        if not self.tty and elapsed - self.last_line < LOG_EVERY_S:
            return
        self.last_line = elapsed
        rate = events / elapsed if elapsed > 0 else 0.0
        if fraction is not None and fraction >= 1:
            # Past the duration the run drains what is in flight: its length is unknown, so no
            # percentage or ETA pretends to know it (issue 63, item 2).
            head = "draining past the duration"
        elif fraction is not None and fraction > 0:
            eta = elapsed * (1 - fraction) / fraction
            head = f"{fraction * 100:5.1f}%  ETA {eta:6.1f}s"
        else:
            head = "   ...        "
        body = f"{head}  sim {sim_s:.4f}s  {completed:,} I/Os  {rate / 1e6:.1f} M events/s"
        sys.stderr.write(f"\r{body}\x1b[K" if self.tty else f"{body}\n")
        sys.stderr.flush()
        self.shown = self.tty

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
        self.enabled = _shown(show) and total > 0
        self.tty = sys.stderr.isatty()
        self.last_line = 0.0

    def one(self, name: Optional[str] = None) -> None:
        self.n += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if not self.tty and elapsed - self.last_line < LOG_EVERY_S and self.n < self.total:
            return
        self.last_line = elapsed
        eta = elapsed / self.n * (self.total - self.n)
        skipped = f", {self.skipped} already complete" if self.skipped else ""
        last = f" (last: {name})" if name else ""
        body = f"{self.n}/{self.total} runs done on {self.workers} worker(s){skipped}, {elapsed:.0f} s, ETA {eta:.0f} s{last}"
        sys.stderr.write(f"\r{body}\x1b[K" if self.tty else f"{body}\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.n and self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()
