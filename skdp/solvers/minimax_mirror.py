"""Entropic mirror-descent solvers of paper 002 (work in progress)."""

MIRROR_SOLVERS = {}
