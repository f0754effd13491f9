"""Paper 002 applied to synthetic data: the marginal-query game between a histogram player
and a query player (SMD, the vertex and private-game solvers, MWEM), and its compact
histogram player, the graphical model (MST, AIM).

Measurement is kept apart from estimation, as in private-pgm:

* :mod:`~skdp.solvers.synth.marginals`: the marginal workload on a dense
  histogram (``Q x`` and ``Q^T y`` by reshape-and-sum) and its sensitivity;
* :mod:`~skdp.solvers.synth.measure`: the private measurement of the workload
  (one calibrated Gaussian release);
* :mod:`~skdp.solvers.synth.smd`: estimation as post-processing, the dense
  mirror-prox estimator (``smd``, ``smd_linf``);
* :mod:`~skdp.solvers.synth.graphical` (with :mod:`~skdp.solvers.synth.junction_tree`
  and :mod:`~skdp.solvers.synth.factor`): estimation as post-processing on a
  graphical model, private-pgm's maximum-entropy fit of the noisy marginals by
  belief propagation on a junction tree, and forward sampling from it (counts
  rounded per group of rows, as private-pgm's ``synthetic_data``);
* :mod:`~skdp.solvers.synth.compress`: MST's domain compression on the noisy
  1-way counts, and the model read back on the full domain;
* :mod:`~skdp.solvers.synth.mst_aim`: selection and measurement for the graphical
  model: ``mst`` (one shot) and ``aim`` (adaptive rounds);
* :mod:`~skdp.solvers.synth.games`: paper 002's private games
  (``smd_private_game``, ``smd_vertex``), which read the data at every step;
* :mod:`~skdp.solvers.synth.mwem`: MWEM (``mwem``);
* :mod:`~skdp.solvers.synth.sample`: sampling from the released histogram, in
  batches (post-processing, public randomness).

Every solver is called ``fn(problem, budget, options)`` with a
:class:`~skdp.solvers.synth.marginals.MarginalProblem` (dense solvers) or a
:class:`~skdp.solvers.synth.mst_aim.TableProblem` (graphical ones) and a
:class:`~skdp.privacy.budget.Budget`, and returns a
:class:`~skdp.solvers.spec.SolverResult` whose ``solution`` is the flat
histogram or the fitted graphical model; the registry is ``SOLVER_SPECS`` of
:mod:`~skdp.solvers.synth.registry` (re-exported by :mod:`skdp.synthesizer`). Encoding the
table on its public domain, and decoding sampled cells back to a table, are in
:mod:`skdp._synth`.
"""
