"""The fine grids' second level (``resolution_refine``) on Dask: the sub-cells' counts summed
over the partitions in one pass, the release equal to the pandas fit's."""

import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402

from skdp.exceptions import PrivacyLeakWarning  # noqa: E402
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

CUTS = (0, 1500, 1500, 4000, 6000)  # partitions of 1,500, 0, 2,500 and 2,000 rows


def test_dask_refined_fit_equals_pandas_fit(dask_client):
    rng = np.random.default_rng(0)
    n = CUTS[-1]
    df = pd.DataFrame({"x": np.clip(rng.normal(9.0, 0.5, n), 0, 12),
                       "c": rng.choice(["p", "q"], n).astype(object)})
    df.loc[[7, 4500], "x"] = np.nan
    frame = dd.from_delayed([dask.delayed(df.iloc[a:b]) for a, b in zip(CUTS[:-1], CUTS[1:])],
                            meta=df.iloc[:0], verify_meta=False)
    params = dict(domain={"x": {"low": 0, "high": 12}, "c": ["p", "q"]}, solver="mst",
                  random_state=0, resolution_refine=0.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the same seed, twice
        a = SaddlePointSynthesizer(**params).fit(df)
        b = SaddlePointSynthesizer(**params).fit(frame)
    assert any(e.label.startswith("fine grid refinement") for e in a.privacy_ledger_.entries)
    assert b.privacy_ledger_ == a.privacy_ledger_
    ra, rb = a.resolution_["x"], b.resolution_["x"]
    assert rb["refinement"]["splits"] == ra["refinement"]["splits"]
    np.testing.assert_allclose(rb["counts"], ra["counts"], rtol=1e-9, atol=1e-9)


def test_dask_third_level_equals_pandas_fit(dask_client):
    """``resolution_refine='auto'`` with every row in the first sub-cell of the first cell:
    the second and third levels' counts summed over the partitions, the releases equal."""
    rng = np.random.default_rng(1)
    n = CUTS[-1]
    df = pd.DataFrame({"x": rng.uniform(0, 1 / 32, n), "c": rng.choice(["p", "q"], n)})
    frame = dd.from_delayed([dask.delayed(df.iloc[a:b]) for a, b in zip(CUTS[:-1], CUTS[1:])],
                            meta=df.iloc[:0], verify_meta=False)
    params = dict(domain={"x": {"low": 0, "high": 8}, "c": ["p", "q"]}, solver="mst",
                  resolution=8, epsilon=4.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the same seed, twice
        a = SaddlePointSynthesizer(**params).fit(df)
        b = SaddlePointSynthesizer(**params).fit(frame)
    labels = [e.label for e in a.privacy_ledger_.entries if "refinement" in e.label]
    assert labels == ["fine grid refinement of 1 of 1 columns"] * 2
    assert b.privacy_ledger_ == a.privacy_ledger_
    ra, rb = a.resolution_["x"]["refinement"], b.resolution_["x"]["refinement"]
    assert rb["more"][0]["splits"] == ra["more"][0]["splits"]
    np.testing.assert_allclose(b.resolution_["x"]["counts"], a.resolution_["x"]["counts"],
                               rtol=1e-9, atol=1e-9)
