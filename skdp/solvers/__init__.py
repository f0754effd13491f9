"""The solvers: estimator-independent mathematics on arrays, one subpackage per family.

They know nothing of scikit-learn; they draw privacy noise only through
:mod:`skdp.privacy` and record every release in the fit's ledger.
"""
