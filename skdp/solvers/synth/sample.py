"""A synthetic table drawn from a released histogram, in batches (post-processing).

Cell counts are ``n * histogram`` rounded by randomised rounding
(:func:`cell_counts`); the multiset of cells is split, in uniformly random
order, into batches by multivariate hypergeometric draws (:func:`batches`);
each batch is shuffled and decoded by the caller (``decode``: the estimator's
columns, :mod:`skdp._synth.decoding`). The generator is the sampling one
(``random_state`` of ``sample``): public randomness, no privacy cost. A
request above NumPy's sampler limit, or whose output cannot fit in the
available memory, is refused before anything is drawn.
"""

import os

import numpy as np

from ..._backend import to_numpy

__all__ = ["SAMPLE_BATCH", "MAX_SAMPLES", "check_limit", "check_memory", "cell_counts",
           "host_batches", "batches"]

SAMPLE_BATCH = 100_000
MAX_SAMPLES = 10**9  # NumPy's multivariate hypergeometric sampler needs totals below 1e9


def check_limit(n):
    if n >= MAX_SAMPLES:
        raise ValueError(f"n_samples must be below {MAX_SAMPLES:.0e} per request (NumPy's "
                         f"hypergeometric sampler), got {n}.")


def check_memory(n, row_bytes, n_cells):
    """Refuse a ``sample`` whose output (twice: batches and their concatenation) cannot fit."""
    need = 2 * n * row_bytes + 24 * n_cells
    avail = available_memory()
    if avail is not None and need > avail:
        raise ValueError(
            f"sample({n}) needs about {need / 2**30:.3g} GiB of memory, more than the "
            f"{avail / 2**30:.3g} GiB available: draw it in batches with "
            "iter_sample(n_samples, batch_size=...) and write each batch out (the CLI does).")


def available_memory():
    """Bytes of memory available to this process (MemAvailable, capped by a cgroup limit)."""
    avail = _meminfo_available()
    limit, used = _read_int("/sys/fs/cgroup/memory.max"), _read_int("/sys/fs/cgroup/memory.current")
    if limit is not None and used is not None:
        avail = limit - used if avail is None else min(avail, limit - used)
    return avail


def _meminfo_available():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _read_int(path):
    try:
        with open(path) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):  # absent, or "max" (no limit)
        return None


def cell_counts(histogram, n, rng):
    """Randomised rounding of ``n * histogram`` to integer counts summing to ``n``."""
    p = np.clip(to_numpy(histogram).reshape(-1).astype(np.float64), 0, None)
    p = p / p.sum()
    counts = np.floor(n * p).astype(np.int64)
    rest = n - int(counts.sum())
    if rest > 0:
        frac = n * p - counts
        extra = rng.choice(p.size, size=rest, replace=False, p=frac / frac.sum())
        counts[extra] += 1
    return counts


def host_batches(histogram, n, batch_size, rng, decode):
    """Host tables ``decode(flat, rng)`` of successive batches of one sample of ``n`` rows."""
    counts = cell_counts(histogram, n, rng)
    cells = np.flatnonzero(counts)
    for batch_cells, batch_counts in batches(cells, counts[cells], batch_size, rng):
        flat = rng.permutation(np.repeat(batch_cells, batch_counts))
        yield decode(flat, rng)


def batches(cells, counts, batch_size, rng):
    """Split a multiset, in uniformly random order, into successive batches.

    The multiset holds ``counts[i]`` copies of ``cells[i]``; yields the
    ``(cells, counts)`` of batches of ``batch_size`` rows (the last fewer).
    The first ``h`` rows of a uniformly random order hold a multivariate
    hypergeometric draw of ``h`` from the multiset, and given it both parts are
    uniformly random orders of their own multisets: so a part is split again
    until it fits one batch. ``h`` is a whole number of batches, half of them
    but at most about the number of cells: each split draws once per cell, so
    the time is ``O(n log(n_cells / batch_size))`` and the parts waiting on
    the stack hold ``O(batch_size + n_cells)`` entries.
    """
    stack = [(cells, counts)]
    while stack:
        cells, counts = stack.pop()
        total = int(counts.sum())
        if total <= batch_size:
            if total:
                yield cells, counts
            continue
        head_batches = min(-(-total // batch_size) // 2, max(1, -(-len(cells) // batch_size)))
        head = rng.multivariate_hypergeometric(counts, head_batches * batch_size,
                                               method="marginals")
        tail = counts - head
        stack.append((cells[tail > 0], tail[tail > 0]))
        stack.append((cells[head > 0], head[head > 0]))
