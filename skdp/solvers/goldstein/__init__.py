"""Paper 001: private Goldstein-stationary points of nonsmooth nonconvex losses (O2NC with
zero- and first-order gradient estimators, tree and multi-pass mechanisms).
"""
