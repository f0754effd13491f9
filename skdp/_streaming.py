"""``partial_fit`` plumbing shared by the estimators whose streaming solvers (paper 003,
:mod:`skdp.solvers.streaming.srgd`) continue one private stream across calls."""

from .solvers.streaming.srgd import require_streaming

__all__ = ["StreamingMixin", "has_streaming_solver"]


def has_streaming_solver(estimator):
    """``available_if`` check of ``partial_fit``: the estimator's solver streams."""
    return require_streaming(estimator.solver)


class StreamingMixin:
    """Keeps the stream's state and the parameters it was calibrated with.

    The estimator defines ``_stream_params()``: the parameters a stream's
    calibration depends on; a ``partial_fit`` after any of them changed is refused.
    """

    def _stream_to_continue(self, partial):
        """The stream a ``partial_fit`` continues (None: ``fit`` starts one)."""
        state = getattr(self, "stream_state_", None) if partial else None
        if state is not None and self._stream_params() != getattr(self, "_stream_key", None):
            raise ValueError("The parameters changed since this stream started (solver, "
                             "epsilon, delta, loss, bounds or solver_options): call fit to "
                             "start a new stream.")
        return state

    def _keep_stream(self, state):
        """Store the stream's state (None: the fit did not stream)."""
        if state is None:
            self.__dict__.pop("stream_state_", None)
            return
        self.stream_state_ = state
        self._stream_key = self._stream_params()
