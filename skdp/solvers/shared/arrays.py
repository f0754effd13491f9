"""Array helpers that several solver modules use (issue 31)."""

import numpy as np


def column_sums(X, xp):
    """``xp.sum(X, axis=0)``; on a C-contiguous NumPy ``X`` of two columns or more by
    ``einsum("ij->j")``, the same numbers (both add the rows one after the other into the
    column totals; with one column ``sum`` adds pairwise) about 4x faster at d = 3 to 10
    (``sum``'s reduction pays a loop call per row: 14 ms at 1e6 x 3; issue 31).

    Examples
    --------
    >>> column_sums(np.array([[1.0, 2.0], [3.0, 4.0]]), np).tolist()
    [4.0, 6.0]
    """
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] >= 2 and X.flags.c_contiguous:
        return np.einsum("ij->j", X)
    return xp.sum(X, axis=0)
