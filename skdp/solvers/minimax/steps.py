"""Pieces the worst-group classifier's solvers share (``noisy_gd`` and ``sgda`` in
:mod:`~skdp.solvers.minimax.euclidean`, ``dpsgd_poisson`` in
:mod:`~skdp.solvers.minimax.subsampled`, ``mlmc`` in :mod:`~skdp.solvers.minimax.mlmc`):
the clipped group losses and their sensitivity, the private centring of the rows, the
projection, the step sizes, the tail average, and the intercept read back.
"""

import math

import numpy as np

from ..losses.classification import curvature_at_zero

__all__ = ["LOSS_SHARE", "CENTER_SHARE", "STEP_SCALE", "LOSS_CLIP_FACTOR", "loss_clip_bound",
           "loss_sensitivity", "project_ball", "to_host", "TailAverager", "centre_rows",
           "intercept_of", "step_sizes"]

LOSS_SHARE = 0.1      # share of mu**2 spent on the group losses when m > 1
CENTER_SHARE = 0.1    # share of mu**2 spent on the feature mean (with an intercept)
STEP_SCALE = 4.0      # step = STEP_SCALE / (curvature at 0 x row bound**2)
LOSS_CLIP_FACTOR = 2.0  # losses clipped at LOSS_CLIP_FACTOR * loss at theta = 0


def loss_clip_bound(k, n_classes):
    """The clip of a row's loss: ``LOSS_CLIP_FACTOR`` times the loss at ``theta = 0``
    (``log n_classes``, at least ``log 2``); public (``k`` is unused, kept for the callers)."""
    return LOSS_CLIP_FACTOR * math.log(max(n_classes, 2))


def loss_sensitivity(loss_clip, sizes):
    """l2 sensitivity of the vector of mean clipped group losses under replace-one.

    Replacing one row changes at most two groups' means (the row leaves one group and
    joins another), each by at most ``loss_clip / N_g``; the bound takes the two
    smallest public group sizes: ``loss_clip sqrt(1/N_(1)**2 + 1/N_(2)**2)``.
    """
    inv = np.sort(1.0 / np.asarray(sizes, dtype=float))[::-1]
    second = inv[1] if inv.size > 1 else 0.0
    return loss_clip * math.sqrt(inv[0] ** 2 + second**2)


def project_ball(W, b, radius, xp):
    """``(W, b)`` projected onto the l2 ball of ``radius`` (None or inf: unchanged)."""
    if radius is None or math.isinf(radius):
        return W, b
    norm = math.sqrt(float(xp.sum(W * W)) + float(xp.sum(b * b)))
    if norm > radius:
        W, b = W * (radius / norm), b * (radius / norm)
    return W, b


def to_host(xp, a):
    """``a`` as a NumPy array on the host (released values only)."""
    from ..._backend import to_numpy

    return to_numpy(a)


class TailAverager:
    """Running average of (W, b, p) over the last ``tail`` iterations."""

    def __init__(self, total, tail_fraction=0.5):
        self.start = total - max(1, int(round(total * tail_fraction)))
        self.count = 0
        self.sums = None

    def add(self, t, *items):
        if t < self.start:
            return
        self.count += 1
        self.sums = list(items) if self.sums is None else [s + i for s, i in zip(self.sums, items)]

    def mean(self):
        return [s / self.count for s in self.sums]


def centre_rows(data, mu, budget):
    """Release the mean clipped row and centre the rows on it (with an intercept).

    The mean of rows of norm <= A moves by <= 2 A / n when one is replaced
    (Gaussian mechanism, GDP ``mu sqrt(CENTER_SHARE)``); it is projected onto
    the A-ball. Centring conditions the problem (the intercept absorbs it:
    ``intercept = c b - W centre``). Returns the centred data and the mu left.
    """
    if data.intercept_scale == 0:
        return data, mu
    xp = data.xp
    mu_c, rest = mu * math.sqrt(CENTER_SHARE), mu * math.sqrt(1 - CENTER_SHARE)
    mean = data.clipped_sum() / data.n
    sens = 2.0 * data.feature_bound / data.n
    sigma = 0.0 if math.isinf(mu_c) else sens / mu_c
    mean = budget.gaussian_gdp(mean, sens, sigma, label="feature mean")
    norm = math.sqrt(float(xp.sum(mean * mean)))
    if norm > data.feature_bound:
        mean = mean * (data.feature_bound / norm)
    return data.with_center(mean), rest


def intercept_of(data, W, b):
    """The model's intercept in the original coordinates: ``c b - W centre``."""
    out = data.intercept_scale * b
    if data.center is not None:
        out = out - (data.center[None, :] @ W.T)[0, :]
    return out


def step_sizes(data, scale=STEP_SCALE):
    """Step sizes of the weights and of the intercept.

    ``scale / (h0 A**2)`` (``scale`` default ``STEP_SCALE``) with ``h0`` the loss
    curvature at 0 and ``A`` the augmented row bound; the intercept's own curvature is
    ``h0 c**2``, and its step ``1 / (h0 c**2)`` (Newton's step at 0) keeps it stable.
    """
    h0 = curvature_at_zero(data.k, data.n_classes)
    step = scale / (h0 * data.augmented_bound**2)
    c = data.intercept_scale
    return step, (min(step, 1.0 / (h0 * c * c)) if c > 0 else step)
