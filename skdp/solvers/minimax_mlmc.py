"""MLMC optimum-estimator solver of paper 000 (work in progress)."""

MLMC_SOLVERS = {}
