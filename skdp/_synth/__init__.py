"""The public side of the synthesizer: the table on its public domain, and back.

* :mod:`~skdp._synth.encoding`: a table's columns read, the missing-value
  rule applied, each column's domain planned from the public ``domain`` (or
  derived from the data, with a warning) and the records encoded as flat
  indices of the dense domain ``Z``; the workload resolved to column indices.
* :mod:`~skdp._synth.decoding`: flat domain indices decoded back to a table
  of the fitted kind, columns and dtypes (the sampled cells of
  :mod:`skdp.solvers.synth.sample`).

Nothing here is private: the private measurement, the estimation and the
sampling from the released histogram are in :mod:`skdp.solvers.synth`, the
estimator that joins them in
:mod:`skdp.synthesizer`. The column model itself (:class:`~skdp._domain.Column`,
entries, bins and categories) is :mod:`skdp._domain`.
"""
