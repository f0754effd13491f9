"""Paper 002 applied to synthetic data: the marginal-query game between a histogram player
and a query player (SMD, the vertex and private-game solvers, MWEM).
"""
