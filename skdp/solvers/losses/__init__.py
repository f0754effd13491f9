"""Losses of the classifier (:mod:`.classification`) and the regressor (:mod:`.regression`),
with the curvature and Lipschitz constants their sensitivities use.
"""
