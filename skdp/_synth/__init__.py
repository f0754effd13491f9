"""The public side of the synthesizer: the table on its public domain, and back.

* :mod:`~skdp._synth.encoding`: a table's columns read, the missing-value
  rule applied, each column's domain planned from the public ``domain`` (or
  derived from the data, with a warning) and the records encoded as flat
  indices of the dense domain ``Z``; the workload resolved to column indices.
* :mod:`~skdp._synth.decoding`: flat domain indices decoded back to a table
  of the fitted kind, columns and dtypes.
* :mod:`~skdp._synth.sampling`: a synthetic table drawn from a released
  histogram, in batches (randomised rounding of the cell counts, then
  hypergeometric splits), with the size and memory checks.

Nothing here is private: the private measurement and the estimation are in
:mod:`skdp.solvers.synth`, the estimator that joins them in
:mod:`skdp.synthesizer`. The column model itself (:class:`~skdp._domain.Column`,
entries, bins and categories) is :mod:`skdp._domain`.
"""
