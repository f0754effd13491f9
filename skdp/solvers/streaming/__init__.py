"""Paper 003: single-pass streaming solvers (SRGD with tree aggregation or matrix
factorisation noise) and the problems they stream over.
"""
