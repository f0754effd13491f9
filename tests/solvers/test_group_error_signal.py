"""noisy_gd's ``solver_options={'group_signal': 'error'}`` (issue 31 item 2): the group player
reads the groups' 0-1 error rates of the current model instead of their clipped losses.

The release is the same Gaussian mechanism as the losses' (Dong-Roth-Su 2022, Thm 2.7), on
per-group means of values in [0, 1]: sensitivity ``sqrt(1/N_(1)**2 + 1/N_(2)**2)``
(:func:`~skdp.solvers.minimax.steps.loss_sensitivity` with ``c_L = 1``).
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from skdp.minimax import PrivateMinimaxClassifier
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.solvers.minimax import euclidean
from skdp.solvers.minimax.data import gradient_sums_block

ERROR = {"group_signal": "error"}


def _bc():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X / np.linalg.norm(X, axis=1).max(), y


def _part(Z_targets, onehot):
    """A block whose margins are ``X @ W.T`` with ``W`` the identity: ``X`` holds the margins."""
    Z, targets = Z_targets
    n = Z.shape[0]
    return {"X": Z, "scale": np.ones(n), "row_norm": np.ones(n), "targets": targets,
            "onehot": onehot}


def test_block_counts_the_misclassified_rows_per_group():
    # binary: z > 0 predicts the second class (target +1); z = 0 predicts the first
    Z = np.array([[1.0], [-2.0], [0.0], [0.0], [3.0]])
    targets = np.array([[1.0], [1.0], [1.0], [-1.0], [-1.0]])
    onehot = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    part = _part((Z, targets), onehot)
    W, b = np.eye(1), np.zeros(1)
    *_, errors = gradient_sums_block(part, W, b, None, 0.0, np.ones(2), np.inf, 1.0, True)
    assert errors.tolist() == [1.0, 2.0]  # row 1 in group 0; rows 2 (z = 0, target +1), 4
    *_, losses = gradient_sums_block(part, W, b, None, 0.0, np.ones(2), np.inf, 10.0)
    expected = onehot.T @ np.log1p(np.exp(-targets[:, 0] * Z[:, 0]))
    assert np.allclose(losses, expected)
    # three classes: the arg max of the margins
    Z3 = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, 3.0], [0.0, 0.5, 0.1]])
    part3 = _part((Z3, np.eye(3)[[0, 1, 1]]), np.eye(2)[[0, 0, 1]])
    *_, errors3 = gradient_sums_block(part3, np.eye(3), np.zeros(3), None, 0.0, np.ones(2),
                                      np.inf, 1.0, True)
    assert errors3.tolist() == [1.0, 0.0]


def _spy(monkeypatch):
    calls = []
    original = Budget.gaussian_gdp

    def spy(self, value, sensitivity, sigma, *, label, **kw):
        out = original(self, value, sensitivity, sigma, label=label, **kw)
        calls.append((label, np.array(value, dtype=float), sensitivity, sigma,
                      np.array(out, dtype=float)))
        return out

    monkeypatch.setattr(Budget, "gaussian_gdp", spy)
    return calls


def test_error_release_matches_its_closed_form(monkeypatch):
    """Ledger, sensitivity and noise of the error releases against the closed form.

    The noise's sd is measured from the draws (value in, release out): halving the noise
    (or the sensitivity) in the solver makes this test fail.
    """
    X, y = _bc()
    sizes = np.bincount(y).astype(float)
    T, eps = 100, 1.0
    calls = _spy(monkeypatch)
    residuals = []
    for seed in range(3):
        calls.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = PrivateMinimaxClassifier(epsilon=eps, n_iter=T, group_sizes=sizes,
                                           solver="noisy_gd", solver_options=ERROR,
                                           random_state=seed).fit(X, y)
        log = clf.privacy_ledger_.log()
        errors = [e for e in log if e["label"] == "group error rates"]
        assert len(errors) == T and not any(e["label"] == "group losses" for e in log)
        mu = approx_dp_to_gdp(eps, 1e-6)
        assert sum(e["mu"] ** 2 for e in log) == pytest.approx(mu**2, rel=1e-6)
        mu_err = mu * math.sqrt((1 - euclidean.CENTER_SHARE) * euclidean.LOSS_SHARE / T)
        sens = math.sqrt(1 / sizes[0] ** 2 + 1 / sizes[1] ** 2)  # c_L = 1
        released = [c for c in calls if c[0] == "group error rates"]
        assert len(released) == T
        # at theta = 0 every row is predicted as the first class: error rates 0 and 1
        assert released[0][1].tolist() == [0.0, 1.0]
        for label, value, s, sigma, out in released:
            assert s == pytest.approx(sens, rel=1e-12)
            assert sigma == pytest.approx(sens / mu_err, rel=1e-9)
            assert np.all((value >= 0) & (value <= 1))
            residuals.append(out - value)
        for e in errors:
            assert e["mu"] == pytest.approx(mu_err, rel=1e-6)
    assert np.std(residuals) == pytest.approx(sens / mu_err, rel=0.1)


def test_default_reads_the_losses_and_bad_values_are_refused():
    X, y = _bc()
    kw = dict(epsilon=1.0, n_iter=3, group_sizes=np.bincount(y), solver="noisy_gd",
              random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = {e["label"] for e in PrivateMinimaxClassifier(**kw).fit(X, y)
                  .privacy_ledger_.log()}
        assert "group losses" in labels and "group error rates" not in labels
        with pytest.raises(ValueError, match="group_signal"):
            PrivateMinimaxClassifier(solver_options={"group_signal": "zero-one"}, **kw).fit(X, y)
