"""Shared test settings.

Floats on any machine: results computed through BLAS (matmul, solve, norms,
long sums) may differ in the last bits with the memory layout, the alignment,
the CPU (OpenBLAS and MKL pick kernels per CPU) and the thread count. Compare
them with a tolerance (``np.testing.assert_allclose``, or ``assert_close`` of
tests/estimators/test_hostile.py); keep exact equality for copies (pickle round
trips, a state kept after a refused fit), for labels and counts, and for two
same-seed fits of the same code on the same array in one process. To find a
comparison that would break elsewhere, run the suite on another OpenBLAS
kernel and thread count, e.g. ``OPENBLAS_CORETYPE=Sandybridge pytest`` or
``OPENBLAS_NUM_THREADS=1 pytest``.
"""
import os
import sys

# The tests are grouped in directories (privacy/, solvers/, estimators/, cli/, cluster/,
# project/); the helpers they share (_toy.py, _audit_cases.py) stay here, imported by name.
_TESTS = os.path.dirname(os.path.abspath(__file__))
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# scipy's array-API support must be switched on before scipy is imported
# (needed when sklearn.set_config(array_api_dispatch=True) is used in tests).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import settings  # noqa: E402
import pytest  # noqa: E402

from skdp import BudgetAccountant  # noqa: E402
from skdp.privacy.release import Release  # noqa: E402

# Property tests explore the same examples on every run (reproducible CI);
# set HYPOTHESIS_PROFILE=explore to search afresh.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_xdist_auto_num_workers(config):
    """Workers of ``-n auto`` (pyproject's addopts): one per core, at most 4.

    CI's 2 cores run the suite in two processes (about half the serial wall
    time); more than 4 workers each starting Dask clusters and BLAS threads
    gain little. ``pytest -n 0`` runs it in one process.
    """
    return max(1, min(4, os.cpu_count() or 1))


@pytest.fixture(autouse=True)
def fresh_default_accountant():
    """Each test charges a fresh default accountant.

    The accountant warns when two fits charged to it share a seed (their
    noise is the same); the tests fit many estimators with
    ``random_state=0`` for reproducibility, each test on its own data.
    """
    with BudgetAccountant():
        yield


def pytest_collection_modifyitems(items):
    """The suite refits with fixed seeds on purpose (determinism checks, sklearn's
    estimator checks): the shared-noise warning is expected there and ignored.
    tests/privacy/test_seeds.py checks it with ``pytest.warns`` and error filters, which
    take precedence over this one."""
    shared_noise = pytest.mark.filterwarnings(
        "ignore:.*drew the same noise:skdp.exceptions.PrivacyLeakWarning")
    for item in items:
        item.add_marker(shared_noise)


@pytest.fixture(scope="session")
def dask_client():
    """One ``distributed.LocalCluster`` for the Dask tests: 2 worker processes,
    one thread and 1 GiB each (the issue-20 setting), closed at the end. The
    workers start without distributed's ``MALLOC_TRIM_THRESHOLD_``, which
    makes NumPy's temporaries several times slower there (docs/user_guide/dask.rst)."""
    distributed = pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     memory_limit="1GiB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def releases(monkeypatch):
    """Every Gaussian release of the fits in the test: (label, sensitivity, sigma)
    (a spy on ``Release.gaussian``)."""
    calls = []
    original = Release.gaussian

    def spy(self, value, sensitivity, sigma, *, label, **kw):
        calls.append((label, sensitivity, sigma))
        return original(self, value, sensitivity, sigma, label=label, **kw)

    monkeypatch.setattr(Release, "gaussian", spy)
    return calls
