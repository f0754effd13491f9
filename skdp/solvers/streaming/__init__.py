"""Paper 003: single-pass streaming solvers (SRGD with tree aggregation or matrix
factorisation noise, ``srgd.py``), the problems they stream over (``problems.py``) and
their adapters to the estimators' problems (``regressor.py``, ``classifier.py``).
"""
