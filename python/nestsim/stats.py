"""Small statistics shared by sweeps' plots and `compare`: Student's t intervals and Welch's test
(no SciPy: the two-sided 95 % quantiles are tabulated)."""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

#: Two-sided 95 % quantiles of Student's t by degrees of freedom (1.96 beyond the table).
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000}


def t95(df: float) -> float:
    """The two-sided 95 % quantile of Student's t with `df` degrees of freedom (the next
    tabulated one at or above `df`)."""
    if df < 1:
        return float("nan")
    return next((v for k, v in sorted(_T95.items()) if df <= k), 1.96)


def mean_ci(xs: Sequence[float]) -> Tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (0 for a single value)."""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    return m, t95(n - 1) * math.sqrt(_var(xs, m) / n)


def _var(xs: Sequence[float], m: float) -> float:
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def welch_significant(a: Sequence[float], b: Sequence[float]) -> Optional[bool]:
    """Whether the means of `a` and `b` differ at the 95 % level (Welch's t test); None with
    fewer than two values on either side. Identical constant samples do not differ; constant
    but different ones do."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sa, sb = _var(a, ma) / len(a), _var(b, mb) / len(b)
    if sa + sb == 0:
        return ma != mb
    t = abs(mb - ma) / math.sqrt(sa + sb)
    df = (sa + sb) ** 2 / ((sa ** 2 / (len(a) - 1) if sa else 0.0) + (sb ** 2 / (len(b) - 1) if sb else 0.0))
    return t > t95(df)


def paired_significant(a: Sequence[float], b: Sequence[float]) -> Optional[bool]:
    """Whether paired samples (the same seeds on both sides) differ at the 95 % level: a paired t
    test on the differences — common random numbers make it far more sensitive than Welch's on
    runs that share seeds. None with fewer than two pairs."""
    if len(a) != len(b) or len(a) < 2:
        return None
    d = [y - x for x, y in zip(a, b)]
    m = sum(d) / len(d)
    v = _var(d, m)
    if v == 0:
        return m != 0
    return abs(m) / math.sqrt(v / len(d)) > t95(len(d) - 1)


__all__: List[str] = ["t95", "mean_ci", "welch_significant", "paired_significant"]
