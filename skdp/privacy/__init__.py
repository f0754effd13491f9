"""The privacy core: accounting (zCDP, GDP, PLD), the release path, clipping, trees, the accountant.

It knows nothing of estimators or solvers; they build on it.
"""

from .accountant import BudgetAccountant
from .ledger import (
    ApproxEvent, ExponentialEvent, GaussianEvent, LedgerEntry, PrivacyLedger, PureEvent,
    SubsampledGaussianEvent, ZCDPEvent, advanced_composition_epsilon,
    advanced_composition_step_epsilon, approx_dp_to_gdp, approx_dp_to_zcdp, bounded_range_rho,
    bounded_range_step_epsilon,
    describe_composition, fully_adaptive_epsilon, fully_adaptive_step_epsilon, gaussian_pld,
    gaussian_rho, gaussian_sigma, gdp_delta, gdp_to_approx_dp, pure_rho, subsampled_noise_within,
    zcdp_to_approx_dp)
from .budget import Budget
from .store import StoreError, StoreLockedError
from .clipping import clip_factors, clip_overflowing_rows, clip_rows, row_norms
from .mechanisms import exponential_mechanism, gaussian_mechanism, report_noisy_max
from .pld import (PrivacyLossDistribution, compose_gaussian_parts, subsampled_gaussian_delta,
                  subsampled_gaussian_epsilon, subsampled_gaussian_sigma)
from .quantile import noisy_fraction_below, private_quantile
from .release import ExponentialBatch, GaussianBatch, Release
from .repeat_and_select import (repeat_and_select_epsilon, repeat_and_select_rdp,
                                sample_repetitions, truncated_negative_binomial_gamma,
                                truncated_negative_binomial_mean)
from .tree import (TreeAggregator, max_nodes_per_leaf, node_decomposition, nodes_per_leaf,
                   tree_rho, tree_sigma)

__all__ = [
    "BudgetAccountant", "PrivacyLedger", "LedgerEntry", "GaussianEvent",
    "SubsampledGaussianEvent", "ZCDPEvent", "ExponentialEvent", "PureEvent", "ApproxEvent",
    "Budget", "Release", "GaussianBatch",
    "ExponentialBatch", "clip_factors", "clip_overflowing_rows", "clip_rows", "row_norms",
    "advanced_composition_epsilon", "advanced_composition_step_epsilon", "approx_dp_to_gdp",
    "approx_dp_to_zcdp", "bounded_range_rho", "bounded_range_step_epsilon",
    "describe_composition", "fully_adaptive_epsilon", "fully_adaptive_step_epsilon",
    "gaussian_rho", "gaussian_sigma",
    "gdp_delta", "gdp_to_approx_dp", "pure_rho", "zcdp_to_approx_dp",
    "exponential_mechanism", "gaussian_mechanism", "report_noisy_max",
    "TreeAggregator", "max_nodes_per_leaf", "node_decomposition", "nodes_per_leaf",
    "tree_rho", "tree_sigma", "StoreError", "StoreLockedError", "noisy_fraction_below",
    "private_quantile",
    "PrivacyLossDistribution", "compose_gaussian_parts", "gaussian_pld",
    "subsampled_gaussian_delta", "subsampled_gaussian_epsilon", "subsampled_gaussian_sigma",
    "subsampled_noise_within",
    "repeat_and_select_epsilon", "repeat_and_select_rdp", "sample_repetitions",
    "truncated_negative_binomial_gamma", "truncated_negative_binomial_mean",
]


def __getattr__(name):
    """Deprecated names (FutureWarning), for one release: ``Spend`` (:class:`LedgerEntry`),
    ``LedgerError`` and ``LedgerLockedError`` (:class:`StoreError`, :class:`StoreLockedError`)."""
    if name == "Spend":
        from . import accounting
        return accounting.__getattr__(name)
    if name in ("LedgerError", "LedgerLockedError"):
        from . import ledger_store
        return ledger_store.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
