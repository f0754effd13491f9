"""Paper 004: KL-adaptive private regression (noisy, adaptive and stationary gradient descent,
Spider, the proximal-point method, the private preconditioner).
"""
