"""Statistics of the benchmark suite, shared by run.py and report.py.

Every measurement is a list of per-round times (nanoseconds per iteration),
one per round of one cell (data set, format, test), all programs of the cell
taking turns in each round. Summaries are medians with distribution-free
95 % intervals from order statistics, so no assumption about the shape of
the noise is made (a shared VM's noise is skewed: slow outliers, never fast
ones).
"""
import math

LEVEL = 0.95


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def _binom_cdf(k, n):
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2.0 ** n


def median_interval(xs, level=LEVEL):
    """A distribution-free interval for the median: the order statistics
    x(k) and x(n+1-k) with the largest k such that P(B < k) <= (1-level)/2
    for B ~ Binomial(n, 1/2) (e.g. n = 15: x(4)..x(12), 96.5 % coverage).
    Returns (lo, hi, coverage); with fewer than 6 values no interval reaches
    95 % and the whole range is returned with its coverage."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None, None, 0.0
    alpha = (1.0 - level) / 2.0
    k = 0
    while k + 1 <= n // 2 and _binom_cdf(k, n) <= alpha:
        k += 1
    # k is now the largest rank with P(B <= k-1) <= alpha (ranks are 1-based)
    if k == 0:
        return s[0], s[-1], 1.0 - 2.0 * 0.5 ** n
    coverage = 1.0 - 2.0 * _binom_cdf(k - 1, n)
    return s[k - 1], s[n - k], coverage


# A turn counts as slowed down when it is more than this factor above the
# program's fastest turn in the cell (slowed_share).
SLOWED = 1.15


def ratio_summary(sdx_rounds, other_rounds):
    """The summary cell: the median over rounds of sdx / other (the two
    programs' turns of the same round), with its interval. None if there
    are no common rounds."""
    r = [x / y for x, y in zip(sdx_rounds, other_rounds) if x and y]
    if not r:
        return None
    lo, hi, cov = median_interval(r)
    return {"ratio": median(r), "lo": lo, "hi": hi, "coverage": cov, "rounds": len(r)}


def slowed_share(series):
    """The share of turns, over the programs of a cell, that ran more than
    SLOWED above that program's fastest turn: how much of the cell the
    machine spent in its slow state (bench/README.md, Reproducibility)."""
    n = slow = 0
    for xs in series:
        if xs:
            m = min(xs)
            n += len(xs)
            slow += sum(1 for x in xs if x > SLOWED * m)
    return slow / n if n else None


def relative_change(a, b):
    """|b / a - 1| (how much a cell moved between two runs)."""
    if not a or not b:
        return None
    return abs(b / a - 1.0)
