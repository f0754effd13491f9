"""Paper 001: private Goldstein-stationary points of nonsmooth nonconvex losses (O2NC with
zero- and first-order gradient estimators, tree and multi-pass mechanisms).

:mod:`~skdp.solvers.goldstein.o2nc` holds the outer loop
(:func:`~skdp.solvers.goldstein.o2nc.o2nc`), the three solvers and their privacy;
:mod:`~skdp.solvers.goldstein.config` the constants and their calibration;
:mod:`~skdp.solvers.goldstein.oracles` the problem, the gradient estimators and the
releases; :mod:`~skdp.solvers.goldstein.certificate` the non-private Goldstein-gap bound;
:mod:`~skdp.solvers.goldstein.regressor` and :mod:`~skdp.solvers.goldstein.classifier` the
adapters from the two estimators' problems.

Array API: the solvers compute in the namespace and on the device of the design
(CuPy, torch, array-api-strict; ``tests/solvers/test_torch.py``); the random directions and
the tree's noise come from the fit's backend. Only scalars cross to the host: one
norm per O2NC step (the clip of the update, ``o2nc.py``) and the final certificate;
the loop over steps is sequential (each step reads the last iterate). The
non-private :func:`~skdp.solvers.goldstein.certificate.goldstein_gap` solves its
small min-norm problem (``n_points x d`` gradients) on the host.
"""

from .certificate import goldstein_gap, min_norm_in_hull
from .config import (GOLDSTEIN_OPTIONS, PRACTICAL, GoldsteinConfig, goldstein_config,
                     multi_pass_sigmas, single_pass_steps, theory_max_step)
from .o2nc import GOLDSTEIN_SOLVERS, fo_single_pass, zo_multi_pass, zo_single_pass
from .oracles import GLMProblem

__all__ = ["GLMProblem", "GoldsteinConfig", "goldstein_config", "GOLDSTEIN_OPTIONS", "PRACTICAL",
           "multi_pass_sigmas", "single_pass_steps", "theory_max_step", "fo_single_pass",
           "zo_single_pass", "zo_multi_pass", "GOLDSTEIN_SOLVERS", "goldstein_gap",
           "min_norm_in_hull"]
