"""Papers 000 and 002: private minimax (worst-group) classification: Euclidean noisy GD and
SGDA, stochastic mirror descent and its bias-reduced variant, MLMC, and the adapters to
the Goldstein and streaming families.
"""
