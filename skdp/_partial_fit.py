"""``partial_fit`` plumbing shared by the estimators whose streaming solvers (paper 003,
:mod:`skdp.solvers.streaming.srgd`) continue one private stream across calls.

**The live stream is secret and never leaves the process with the model** (issue 28).
A stream's state (:class:`~skdp.solvers.streaming.srgd.StreamState`) holds the
noise generator and the last noise vectors: with it, the noise in ``coef_`` and
the exact clipped gradients of the last batches can be recomputed. It lives in
the private attribute ``_stream``, which pickling (and ``copy``/``deepcopy``)
drops and :func:`sklearn.base.clone` never copies; the fitted model carries only
released values. To continue a stream in another process, the user asks for
it: :meth:`StreamingMixin.checkpoint` returns a :class:`StreamCheckpoint`
(documented as secret), and :meth:`StreamingMixin.resume` restores it. A model
that streamed but has lost its live stream (unpickled, copied, or the
``best_estimator_`` of a search) refuses ``partial_fit`` with a message that
says so.

**Passes over rows already seen are charged** (issue 28). With the estimators'
``stream_chunks='repeated'`` (the default, the safe one) every ``partial_fit``
call is a new pass: reserved on the accountant before the chunk is read,
recorded in ``privacy_ledger_`` as a new mechanism with fresh, independent
noise (the matrix-factorisation noise of the previous pass is not continued),
composed into ``privacy_spent_``; the model (iterate, momentum) continues.
``stream_chunks='disjoint'`` is the caller's declaration that the chunks hold
different records: the calls are then one stream, charged once, by the call
that starts it. The chunks a Dask fit cuts from one collection are disjoint by
construction and are one pass, whatever the mode.
"""

import copy

from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if

from .privacy.ledger import PrivacyLedger
from .solvers.spec import solvers_with
from .solvers.streaming.srgd import new_pass

__all__ = ["STREAM_CHUNKS", "CHUNK", "StreamCheckpoint", "StreamingMixin",
           "has_streaming_solver"]

STREAM_CHUNKS = ("repeated", "disjoint")
"""Values of the estimators' ``stream_chunks``: what the caller says of ``partial_fit``'s chunks."""

CHUNK = "chunk"
"""``partial`` of a Dask fit's later chunks: the same call's disjoint rows, one pass."""

_TRANSIENT = ("_stream", "_reservation", "_held_reservation", "_data_read", "_stream_rows",
              "_pass_of")


def has_streaming_solver(estimator):
    """``available_if`` check of ``partial_fit``: the estimator's solver streams (its spec in
    the estimator's ``_solver_specs`` says ``streaming``), else AttributeError."""
    streaming = solvers_with(estimator._solver_specs, streaming=True)
    if estimator.solver not in streaming:
        raise AttributeError(f"partial_fit needs a streaming solver ({', '.join(streaming)}); "
                             f"got solver={estimator.solver!r}.")
    return True


def _no_stream_message(name):
    return (f"This {name} has no live stream to continue: the stream's state is secret and is "
            "never pickled or copied with the model (nor kept on a search's best_estimator_). "
            "Call resume(checkpoint) with the StreamCheckpoint that checkpoint() returned "
            "before, or fit to start a new stream.")


class StreamCheckpoint:
    """A point of a private stream, to continue it later: **secret**.

    Returned by the streaming estimators' ``checkpoint()`` and restored by
    their ``resume()``. It is not a release: it holds the stream's noise
    generator and its last noise vectors (with them the noise in ``coef_``,
    and from it the clipped gradients of the last batches, can be
    recomputed). Keep it as you keep the training data; never publish it.
    Resume it once: two streams resumed from one checkpoint draw the same
    noise (with ``random_state=None`` each resume draws fresh entropy
    instead). It pickles, so that a stream can be continued in another
    process.

    Parameters
    ----------
    estimator : str
        Name of the estimator's class.
    key : tuple
        The parameters the stream was calibrated with.
    fitted : dict
        The estimator's fitted attributes at the checkpoint (released values).
    state : StreamState
        The stream's state (secret).

    Attributes
    ----------
    estimator : str
        Name of the estimator's class.
    n_seen : int
        Records the stream has read (passes included).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp import KLAdaptiveRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(400, 2))
    >>> reg = KLAdaptiveRegressor(solver="dpsgd").partial_fit(X, X[:, 0])
    >>> checkpoint = reg.checkpoint()
    >>> checkpoint
    StreamCheckpoint(KLAdaptiveRegressor, 400 records read: secret)
    >>> twin = KLAdaptiveRegressor(solver="dpsgd").resume(checkpoint)
    >>> twin.partial_fit(X, X[:, 0]).privacy_spent_[0] > 1.0  # a second pass: charged
    True
    """

    def __init__(self, estimator, key, fitted, state):
        self.estimator = estimator
        self.key = key
        self.fitted = fitted
        self.state = state

    @property
    def n_seen(self):
        """Records the stream has read (passes included)."""
        return int(self.state.n_seen)

    def __repr__(self):
        return f"StreamCheckpoint({self.estimator}, {self.n_seen} records read: secret)"


class StreamingMixin:
    """The live stream (private, never pickled), its checkpoints and its accounting.

    The estimator defines ``_solver_specs`` (its registry: ``partial_fit`` exists for the
    solvers whose spec says ``streaming``) and ``_stream_params()``: the parameters a stream's
    calibration depends on; a ``partial_fit`` after any of them changed is
    refused. Its ``stream_chunks`` parameter says whether ``partial_fit``
    calls are new passes (charged) or disjoint chunks of one stream.
    """

    # -- the secret stream: out of pickles, into explicit checkpoints ------------------
    def __getstate__(self):
        """The pickled state: the released attributes, never the live stream."""
        state = dict(super().__getstate__())
        state.pop("_stream", None)
        state.pop("_pass_of", None)
        return state

    @available_if(has_streaming_solver)
    def checkpoint(self):
        """Return the live stream as a secret :class:`StreamCheckpoint`.

        The model itself never carries its stream out of the process (a
        pickle or a copy of it holds released values only); ask for a
        checkpoint to continue the stream elsewhere, and give it to
        :meth:`resume`. The checkpoint is **secret**: it holds the stream's
        noise generator and its last noise vectors, from which the noise in
        ``coef_`` can be recomputed. Keep it as you keep the training data.

        Returns
        -------
        checkpoint : StreamCheckpoint
            A copy of the stream's state and of the fitted attributes.
        """
        stream = self.__dict__.get("_stream")
        if stream is None:
            if "_stream_key" not in self.__dict__:
                raise NotFittedError(f"This {type(self).__name__} has no stream yet: call fit "
                                     "or partial_fit first.")
            raise ValueError(_no_stream_message(type(self).__name__))
        params = self.get_params(deep=False)
        fitted = {k: v for k, v in self.__dict__.items()
                  if k not in params and k not in _TRANSIENT}
        return StreamCheckpoint(type(self).__name__, self._stream_key, copy.deepcopy(fitted),
                                copy.deepcopy(stream))

    @available_if(has_streaming_solver)
    def resume(self, checkpoint):
        """Restore a stream from a :class:`StreamCheckpoint`, for :meth:`partial_fit` to continue.

        The estimator must have the parameters the stream was started with
        (a fresh one made with them will do); its fitted attributes become
        the checkpoint's. With ``random_state=None`` the resumed stream
        draws its next noise from fresh entropy, so that two resumes of one
        checkpoint never share noise; with a seed it continues the
        checkpoint's generator (resume each checkpoint once).

        Parameters
        ----------
        checkpoint : StreamCheckpoint
            What :meth:`checkpoint` returned.

        Returns
        -------
        self : object
            The estimator, with its live stream.
        """
        if not isinstance(checkpoint, StreamCheckpoint):
            raise TypeError(f"resume needs a StreamCheckpoint (from checkpoint()), got "
                            f"{type(checkpoint).__name__}.")
        name = type(self).__name__
        if checkpoint.estimator != name:
            raise ValueError(f"This checkpoint is of a {checkpoint.estimator} stream, not of a "
                             f"{name}.")
        if checkpoint.key != self._stream_params():
            raise ValueError("This checkpoint's stream was started with other parameters "
                             "(solver, epsilon, delta, loss, bounds or solver_options): set "
                             "them as they were, or call fit to start a new stream.")
        for key in [k for k in self.__dict__ if k not in self.get_params(deep=False)]:
            del self.__dict__[key]
        self.__dict__.update(copy.deepcopy(checkpoint.fitted))
        state = copy.deepcopy(checkpoint.state)
        if getattr(self, "random_state", None) is None:
            import numpy as np

            state.rng = np.random.default_rng()  # fresh entropy: no two resumes share noise
        self._stream = state
        return self

    # -- what a call continues and what it is charged ---------------------------------
    def _stream_to_continue(self, partial):
        """``(state, charged)`` of a streaming call.

        ``state``: the stream to continue (None: a new stream). ``charged``:
        the call is reserved on the accountant and records a new mechanism —
        ``fit``, the call that starts a stream, and, with
        ``stream_chunks='repeated'``, every ``partial_fit`` (a new pass: the
        state is prepared for fresh noise, and the model's ledger and
        spend so far are kept in ``_pass_of`` for :meth:`_record_pass`).
        ``partial=CHUNK`` (a Dask fit's later chunk) continues uncharged.
        """
        self.__dict__.pop("_pass_of", None)
        mode = getattr(self, "stream_chunks", "repeated")
        if mode not in STREAM_CHUNKS:  # checked before any data is read
            raise ValueError(f"stream_chunks must be one of {list(STREAM_CHUNKS)}, got "
                             f"{mode!r}.")
        if not partial:
            return None, True
        state = self.__dict__.get("_stream")
        if state is None:
            if partial == CHUNK or "_stream_key" in self.__dict__:
                raise ValueError(_no_stream_message(type(self).__name__))
            return None, True  # the first partial_fit starts the stream
        if self._stream_params() != getattr(self, "_stream_key", None):
            raise ValueError("The parameters changed since this stream started (solver, "
                             "epsilon, delta, loss, bounds or solver_options): call fit to "
                             "start a new stream.")
        if partial == CHUNK or mode == "disjoint":
            return state, False
        self._pass_of = (self.privacy_ledger_, float(self.privacy_spent_[1]), state.passes + 1)
        return new_pass(state), True

    def _reserve_stream_ahead(self, partial):
        """Reserve a Dask stream's budget before its row counts are computed (issue 28).

        The chunks of a streaming fit on Dask are cut at fixed rows, which needs
        the partitions' row counts, computed from the rows when unknown: the call
        is reserved first (when it is charged, see :meth:`_stream_to_continue`),
        and its first chunk takes the reservation over.
        """
        _, charged = self._stream_to_continue(partial)
        if charged:
            self._reserve_ahead()
        else:
            self._reading_data()

    @staticmethod
    def _dask_column(column):
        """A per-row Dask argument of ``fit`` as a Dask array, once the budget is reserved
        (here as given; the regressor's turns a Dask Series into one)."""
        return column

    def _fit_stream_dask(self, run):
        """The template's Dask stream (``run.stream_dask``, set by the estimator's
        ``_prepare``): the fit's per-row arguments (``run.args`` not None: the target, the
        groups) cut into chunks with ``run.X``, and the template (``_fit``) run on each
        chunk with ``run.kwargs``, by :meth:`_fit_dask_stream`."""
        present = [i for i, arg in enumerate(run.args) if arg is not None]

        def fit_chunk(X_i, *columns, partial):
            args = list(run.args)
            for i, column in zip(present, columns):
                args[i] = column
            self._fit(X_i, *args, partial=partial, **run.kwargs)

        return self._fit_dask_stream(run.X, [run.args[i] for i in present], run.partial,
                                     fit_chunk, prepare=self._dask_column)

    def _fit_dask_stream(self, X, columns, partial, fit_chunk, prepare=None):
        """A streaming solver on a Dask collection ``X`` (with its Dask ``columns``: the
        target, the groups): ``fit_chunk(X_i, *columns_i, partial=...)`` on its first chunk
        of ``STREAM_ROWS`` rows (``partial`` as given), then on each next one as a chunk of
        the same stream (``partial=CHUNK``), in order, each computed to the client in turn,
        calibrated from the row count (the NumPy sequence of the same chunks: same result;
        :func:`skdp._dask.stream_blocks`). The budget is reserved before the partitions'
        row counts are computed (:meth:`_reserve_stream_ahead`); ``prepare`` turns each
        column into a Dask array after that (a Dask Series' lengths are computed from its
        rows). The chunks are disjoint rows of one collection: one pass, charged once."""
        import dask

        from ._dask import check_dask_X, check_dask_y, known_rows, stream_blocks

        X = check_dask_X(X, compute_rows=False)  # the metadata: no partition computed
        self._reserve_stream_ahead(partial)
        X = known_rows(X)
        prepare = prepare or (lambda column: column)
        n_rows, blocks = stream_blocks(X, *(check_dask_y(prepare(c), X) for c in columns))
        self._stream_rows = n_rows  # calibrates a new stream (public: the row count)
        try:
            for i, chunk in enumerate(blocks):  # no rows: one empty block, the NumPy error
                fit_chunk(*dask.compute(*chunk), partial=partial if i == 0 else CHUNK)
        finally:
            self.__dict__.pop("_stream_rows", None)
        return self

    def _resolve_delta(self, partial=False):
        """The fit's delta; a call that continues a stream (a chunk or a new pass) keeps the
        delta its stream started with, as its other calibration constants."""
        continued = (partial and self.__dict__.get("_stream") is not None) \
            or "_pass_of" in self.__dict__
        if continued and "delta_" in self.__dict__:
            return self.delta_
        return super()._resolve_delta()

    def _fit_delta(self):
        """A new pass reserves and charges the delta its stream started with."""
        if "_pass_of" in self.__dict__ and "delta_" in self.__dict__:
            return self.delta_
        return super()._fit_delta()

    def _record_pass(self, accountant, ledger):
        """Charge a call's mechanisms; after a new pass, compose the model's spend over passes.

        The accountant is charged this call's ``ledger`` (its epsilon is at most
        the parameter's); ``privacy_ledger_`` then holds every pass's mechanism,
        and ``privacy_spent_`` is their composition at the sum of the passes'
        deltas (as :meth:`~skdp.BudgetAccountant.total` composes them).
        """
        previous = self.__dict__.get("_pass_of")
        self._record_spend(accountant, ledger)
        self.__dict__.pop("_pass_of", None)
        if previous is None:
            return
        before, delta_before, _ = previous
        total = PrivacyLedger(list(before.entries) + list(ledger.entries))
        delta = delta_before + self.privacy_spent_[1]
        eps, method = total.spent(min(delta, 1.0))
        self._publish(privacy_spent_=(float(eps), float(delta)), privacy_method_=method,
                      privacy_ledger_=total)

    def _spend_record(self, seed=None):
        """The accountant's record of the call; a new pass's seed names the pass.

        A pass continues its stream's generator: passes of one stream never share
        noise, while pass ``k`` of two streams with one seed does; the seed
        ``'random_state=0, pass 2'`` lets the accountant tell the two apart.
        """
        record = super()._spend_record(seed)
        of = self.__dict__.get("_pass_of")
        if of is not None and record.get("seed") is not None:
            record["seed"] = f"{record['seed']}, pass {of[2]}"
        return record

    def _keep_stream(self, state):
        """Keep the stream's state, privately (None: the fit did not stream)."""
        if state is None:
            self.__dict__.pop("_stream", None)
            self.__dict__.pop("_stream_key", None)
            return
        self._stream = state
        self._stream_key = self._stream_params()

    def _forget_stream(self):
        """Drop the live stream (a released model must not carry it); partial_fit then refuses."""
        self.__dict__.pop("_stream", None)
