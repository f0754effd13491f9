"""Domain handling of SaddlePointSynthesizer for wide real tables (issue 17, item 3).

Private compression of large public domains (McKenna, Miklau, Sheldon 2021, §4), private
quantile bins on public bounds, missing values through both.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from skdp import audit
from skdp._domain import Column
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp, gaussian_sigma
from skdp.synthesizer import RESOLUTION_SHARE, SaddlePointSynthesizer

pd = pytest.importorskip("pandas")

N_CATS = 5000
CATS = [f"v{i}" for i in range(N_CATS)]
FREQUENT = ["v0", "v1", "v2", "v3", "v4"]


def _wide(n=3000, seed=0, missing=0.0):
    """A column of 5000 public categories, five of them frequent, and a small column."""
    rng = np.random.default_rng(seed)
    c = np.array(FREQUENT, dtype=object)[rng.choice(5, size=n, p=[.3, .25, .2, .15, .1])]
    rare = rng.random(n) < 0.02
    c[rare] = [CATS[i] for i in rng.integers(100, 200, rare.sum())]
    if missing:
        c[rng.random(n) < missing] = None
    return pd.DataFrame({"c": c, "z": rng.integers(0, 3, n)})


def _fit(X, **params):
    params = {"epsilon": 1.0, "domain": {"c": CATS, "z": 3}, "random_state": 0, **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same seed in several fits: on purpose here
        return SaddlePointSynthesizer(**params).fit(X)


# --------------------------------------------------------------------------- compression
def test_large_column_compresses_to_frequent_values_and_one_merged_cell():
    X = _wide()
    synth = _fit(X, max_categories=6)
    comp = synth.compression_["c"]
    assert comp["categories"] == FREQUENT
    assert len(comp["merged"]) == N_CATS - 5 and len(comp["weights"]) == N_CATS - 5
    assert synth.domain_shape_ == (7, 3)  # five cells, the merged one, the missing one
    assert synth.domain_["c"]["categories"] == CATS  # the public entry, reusable as `domain`
    drawn = set(synth.sample(20000)["c"].dropna()) - set(FREQUENT)
    weight = dict(zip(comp["merged"], comp["weights"]))
    assert drawn and all(weight[v] > 0 for v in drawn)  # a weight of 0 is never drawn
    assert all(0 <= e <= 1 for e in synth.workload_error(X).values())
    # the default threshold (100) compresses it too: few false positives at 3 sigma
    default = _fit(X).compression_["c"]["categories"]
    assert set(FREQUENT) <= set(default) and len(default) < 30


def test_small_domains_are_not_compressed_by_default(releases):
    X = _wide()
    X["c"] = X["c"].where(X["c"].isin(FREQUENT), "v0")
    synth = _fit(X, domain={"c": CATS[:100], "z": 3}, solver="smd")
    assert synth.compression_ == {} and synth.bin_edges_ == {}
    assert [label for label, _, _ in releases] == ["1 workload marginals"]


def test_merged_cell_decodes_in_proportion_to_noisy_counts():
    col = Column(name="c", dtype=np.dtype(object), categories=list("abcdefg"))
    noisy = np.array([500.0, 40.0, -3.0, 10.0, 0.0, 25.0, 5.0])
    col.compress([0], noisy)  # "a" keeps a cell; the others share cell 1, "c" clipped to 0
    draws = col.decode(np.ones(20000, dtype=np.int64), np.random.default_rng(0))
    merged = list("bcdefg")
    counts = np.array([np.sum(draws == v) for v in merged])
    assert counts[1] == 0 and counts[3] == 0  # weight 0: never drawn
    w = np.clip(noisy[1:], 0, None)
    ok = w > 0
    assert stats.chisquare(counts[ok], 20000 * w[ok] / w.sum()).pvalue > 1e-3
    assert list(col.decode(np.zeros(3, dtype=np.int64), None)) == ["a"] * 3


def test_merged_cell_is_uniform_when_every_weight_is_zero():
    col = Column(name="c", dtype=np.dtype(object), categories=list("abcd"))
    col.compress([0], np.array([9.0, -1.0, 0.0, -2.0]))
    draws = col.decode(np.ones(6000, dtype=np.int64), np.random.default_rng(1))
    counts = np.array([np.sum(draws == v) for v in "bcd"])
    assert stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("neighbouring, factor", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_ledger_records_the_compression_release(releases, neighbouring, factor):
    X = _wide()
    X["d"] = X["c"]  # two compressed columns: one release of both
    domain = {"c": CATS, "d": CATS, "z": 3}
    synth = _fit(X, domain=domain, neighbouring=neighbouring, workload=[("c",), ("z",)])
    label, sens, sigma = releases[0]
    assert label == "compression counts of 2 columns"
    assert sens == pytest.approx(math.sqrt(factor * 2))
    rho = 0.1 * approx_dp_to_zcdp(1.0, 1e-6)  # domain_share of the budget, all to compression
    assert sigma == pytest.approx(gaussian_sigma(sens, rho))
    entry = synth.privacy_ledger_.entries[0]
    assert entry.label == label and entry.rho == pytest.approx(rho)
    assert synth.privacy_spent_[0] <= 1.0 + 1e-9
    assert set(synth.compression_) == {"c", "d"}


def test_which_columns_are_compressed_does_not_depend_on_the_data(releases):
    X = _wide()
    neighbour = X.copy()
    neighbour.loc[0, "c"] = "v4999"
    degenerate = X.assign(c="v7")  # one value: no column's cardinality is read from data
    fits = [_fit(t, solver="smd") for t in (X, neighbour, degenerate)]
    assert all(set(f.compression_) == {"c"} for f in fits)
    per_fit = len(releases) // 3
    plans = [releases[i * per_fit:(i + 1) * per_fit] for i in range(3)]
    assert plans[0] == plans[1] == plans[2]  # labels, sensitivities and noise scales


def test_missing_values_survive_compression():
    X = _wide(n=4000, missing=0.2)
    synth = _fit(X, max_categories=6)
    assert synth.domain_shape_ == (7, 3)  # five cells, the merged one, the missing one
    assert synth.domain_["c"]["missing"] is True
    out = synth.sample(4000)
    rate = out["c"].isna().mean()
    assert 0.15 < rate < 0.25
    assert set(out["c"].dropna()) <= set(CATS)


def _noise_scale_ok(synth, zero):
    """Whether the merged weights of the values counted 0 spread as the recorded noise:
    E[max(0, N(0, s^2)) | below 3 s] gives s (MST keeps a value above 3 s)."""
    comp = synth.compression_["c"]
    weights = dict(zip(comp["merged"], comp["weights"]))
    mean = np.mean([weights[v] for v in zero if v in weights])
    sigma = gaussian_sigma(math.sqrt(2), 0.1 * approx_dp_to_zcdp(1.0, 1e-6))
    expected = sigma * (stats.norm.pdf(0) - stats.norm.pdf(3)) / stats.norm.cdf(3)
    return abs(mean / expected - 1) < 0.1


def test_noisy_counts_spread_as_the_recorded_noise():
    X = _wide()
    seen = set(X["c"])  # once: a set per category took 30 s on an Arrow-backed column
    zero = [v for v in CATS if v not in seen]
    assert _noise_scale_ok(_fit(X), zero)
    with audit.weakened_noise(2.0):  # half the noise: the test above must notice
        assert not _noise_scale_ok(_fit(X), zero)


# --------------------------------------------------------------------------- quantile bins
def test_quantile_bins_put_equal_mass_per_bin_on_skewed_data(releases):
    rng = np.random.default_rng(0)
    n = 20000
    X = pd.DataFrame({"y": np.clip(rng.exponential(10, n), 0, 100),
                      "k": np.clip(rng.geometric(0.05, n), 0, 200).astype(np.int64),
                      "z": rng.integers(0, 3, n)})
    domain = {"y": (0, 100), "k": (0, 200), "z": 3}
    synth = _fit(X, domain=domain, bin_strategy="quantile")
    assert releases[0][0] == "quantile grid counts of 2 columns"
    assert releases[0][1] == pytest.approx(2.0)
    for name in ("y", "k"):
        edges = synth.bin_edges_[name]
        assert len(edges) == 11 and np.all(np.diff(edges) > 0)
        assert edges[0] == domain[name][0] and edges[-1] == domain[name][1]
        mass = np.histogram(X[name], bins=edges)[0] / n
        assert np.all(np.abs(mass - 0.1) < 0.04), (name, mass)
    uniform = np.histogram(X["y"], bins=np.linspace(0, 100, 11))[0] / n
    assert uniform[0] > 0.5  # what quantile bins are for
    out = synth.sample(5000)
    assert out["k"].dtype == np.int64 and out["y"].dropna().between(0, 100).all()
    assert synth.privacy_spent_[0] <= 1.0 + 1e-9


def test_quantile_bins_keep_missing_values():
    rng = np.random.default_rng(1)
    y = rng.exponential(5, 3000)
    y[rng.random(3000) < 0.1] = np.nan
    X = pd.DataFrame({"y": y, "z": rng.integers(0, 3, 3000)})
    synth = _fit(X, domain={"y": (0.0, 60.0), "z": 3}, bin_strategy="quantile")
    assert synth.domain_shape_ == (11, 3)
    assert 0.05 < synth.sample(3000)["y"].isna().mean() < 0.15


def test_compression_and_quantile_share_the_domain_budget(releases):
    X = _wide()
    X["y"] = np.random.default_rng(2).exponential(3, len(X))
    domain = {"c": CATS, "z": 3, "y": (0.0, 50.0)}
    synth = _fit(X, domain=domain, bin_strategy="quantile")
    (l1, s1, sig1), (l2, s2, sig2) = releases[:2]
    assert l1.startswith("compression") and l2.startswith("quantile")
    assert sig1 == pytest.approx(sig2)  # one noise scale: shares in proportion to columns
    rho = 0.1 * approx_dp_to_zcdp(1.0, 0.9e-6)  # 'y' has equal fine cells: spikes, 0.1 delta
    assert sum(e.rho for e in synth.privacy_ledger_.entries[:2]) == pytest.approx(rho)


@pytest.mark.parametrize("params", [{"max_categories": 1}, {"bin_strategy": "kmeans"}])
def test_invalid_domain_parameters_raise(params):
    with pytest.raises(ValueError):
        SaddlePointSynthesizer(**params).fit(np.zeros((5, 2)))


def test_without_noise_compression_keeps_exactly_the_values_present():
    X = _wide()
    synth = _fit(X, epsilon=math.inf)
    present = sorted(set(X["c"].dropna()), key=CATS.index)
    assert synth.compression_["c"]["categories"] == present
    assert not any(synth.compression_["c"]["weights"])


@pytest.mark.parametrize("entry", [{"low": 0, "high": 1, "bins": 3}, {"kind": "ordinal"},
                                   [True, 1.0, 1], {"low": 9, "high": 1}, 0,
                                   ["a", float("inf")], {"categories": ["a", None]}])
def test_the_cli_and_the_estimator_share_one_parser(entry):
    """One parser, one set of messages: a domain file's entry is refused by the CLI with the
    estimator's message (plus the CLI's hint), naming the column."""
    from skdp._cli.domain import check_domain
    from skdp._domain import parse_entry
    with pytest.raises((ValueError, TypeError)) as estimator:
        parse_entry("x", entry)
    with pytest.raises(ValueError) as cli:
        check_domain({"x": entry}, ["x"])
    assert "'x'" in str(estimator.value)
    assert str(cli.value).startswith(str(estimator.value))


# --------------------------------------------------------------------------- fine grids
def _spiky(n=6000, seed=0):
    """Durations on a few spikes, a float column with 85% zeros (its lower bound) and 5% at
    its upper bound, a large-range integer column, a categorical column."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "months": rng.choice([12, 24, 36, 48, 60], n, p=[.1, .15, .3, .2, .25]).astype(np.int64),
        "gain": np.where(rng.random(n) < .85, 0.0,
                         np.where(rng.random(n) < 1 / 3, 1000.0, rng.uniform(0, 1000, n))),
        "big": rng.integers(0, 100_000, n),
        "c": rng.choice(["a", "b"], n)})


SPIKY = {"months": (0, 72), "gain": (0.0, 1000.0), "big": (0, 100_000), "c": ["a", "b"]}


@pytest.mark.parametrize("neighbouring, factor", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_fine_grid_release_sensitivity_and_ledger(releases, neighbouring, factor):
    """One Gaussian release of the fine counts of every numeric column and the exact values
    of the 3 with equal cells (spikes, issue 30): l2-sensitivity sqrt(d + d_s) (add/remove)
    or sqrt(2 (d + d_s)) (replace-one), resolution_share of the budget calibrated at
    0.9 delta (0.1 delta: the spikes' threshold): of mu**2 for smd (a Gaussian-only fit,
    planned in GDP: issue 30's one GDP plan), of the zCDP rho for aim."""
    synth = _fit(_spiky(2000), domain=SPIKY, neighbouring=neighbouring, resolution=64,
                 resolution_share=0.2, solver="smd")
    label, sens, sigma = releases[0]
    assert label == "fine grid counts of 3 columns and exact values of 3"
    assert sens == pytest.approx(math.sqrt(factor * 6))
    rho = 0.2 * approx_dp_to_gdp(1.0, 0.9e-6) ** 2 / 2
    assert sigma == pytest.approx(gaussian_sigma(sens, rho))
    entry = synth.privacy_ledger_.entries[1]
    assert entry.label == label and entry.rho == pytest.approx(rho)
    if neighbouring == "add_remove":  # the replace-one sensitivity is recorded with it
        assert entry.replace_ratio == pytest.approx(math.sqrt(2))
    assert synth.solver_ == "smd"  # the rest of the GDP mu: the fit spends epsilon exactly
    assert synth.privacy_spent_[0] == pytest.approx(1.0, rel=1e-6)
    assert synth.privacy_spent_[0] <= 1.0 + 1e-9
    aim = _fit(_spiky(500), domain=SPIKY, solver="aim", n_iter=5, resolution=64,
               solver_options=dict(max_rounds=2, round_iter=2))
    entries = [e for e in aim.privacy_ledger_.entries if e.kind != "approx"]
    total = sum(e.rho for e in entries)  # zCDP: the shares add up
    assert total == pytest.approx(approx_dp_to_zcdp(1.0, 0.9e-6))
    assert entries[0].rho == pytest.approx(RESOLUTION_SHARE * total)
    # the grids: per integer for months (73 integers <= 64? no: 73 > 64, so equal cells);
    # bound cells and 64 equal cells for the others
    assert synth.resolution_["months"]["cells"] == 64
    assert len(synth.resolution_["gain"]["counts"]) == 66
    assert "values" in _fit(_spiky(500), domain=SPIKY, resolution=80).resolution_["months"]


def test_no_fine_grid_without_numeric_columns_or_with_resolution_none(releases):
    X = _spiky(500)
    synth = _fit(X, domain=SPIKY, resolution=None)
    assert synth.resolution_ == {}
    assert not any(label.startswith("fine") for label, _, _ in releases)
    coded = _fit(X[["c"]].assign(z=X["months"] % 3), domain={"c": ["a", "b"], "z": 3})
    assert coded.resolution_ == {}


def _fine_noise_ratio(synth, X):
    """The released fine counts of 'big' against its true counts: the residuals' standard
    deviation over the recorded sigma."""
    col = next(c for c in synth._columns if c.name == "big")
    true = col.fine.counts_of(col.prepare(X["big"].to_numpy()))
    noisy = np.asarray(synth.resolution_["big"]["counts"])
    sens = math.sqrt(2 * (3 + 2))  # 3 grids, 2 of equal cells (spikes): 'months' per integer
    sigma = gaussian_sigma(sens, RESOLUTION_SHARE * approx_dp_to_zcdp(1.0, 0.9e-6))
    return np.std(noisy - true) / sigma


def test_fine_grid_noise_is_the_recorded_noise_and_a_halved_noise_is_caught():
    X = _spiky(3000)
    ratio = _fine_noise_ratio(_fit(X, domain=SPIKY, resolution=1024), X)
    assert abs(ratio - 1) < 0.1  # 1026 cells: the sd is estimated within ~5%
    with audit.weakened_noise(2.0):
        assert abs(_fine_noise_ratio(_fit(X, domain=SPIKY, resolution=1024), X) - 1) > 0.3


def test_spikes_and_point_masses_at_the_bounds_survive():
    X = _spiky(6000)
    synth = _fit(X, domain=SPIKY, epsilon=50.0, n_bins=6, resolution=128)
    out = synth.sample(20000, random_state=1)
    real = X["months"].value_counts(normalize=True)
    fake = out["months"].value_counts(normalize=True)
    for v in (12, 24, 36, 48, 60):  # per-integer grid (73 integers <= 128)
        assert abs(fake.get(v, 0.0) - real[v]) < 0.03, (v, fake.get(v), real[v])
    assert fake[[12, 24, 36, 48, 60]].sum() > 0.97
    # without the fine grid, the months spread over their bins of width 12
    smeared = _fit(X, domain=SPIKY, epsilon=50.0, n_bins=6, resolution=None).sample(
        20000, random_state=1)["months"].value_counts(normalize=True)
    assert smeared.get(36, 0.0) < 0.1
    # point masses at the bounds of a float column
    assert abs((out["gain"] == 0.0).mean() - (X["gain"] == 0.0).mean()) < 0.03
    assert abs((out["gain"] == 1000.0).mean() - (X["gain"] == 1000.0).mean()) < 0.02


def test_fine_grid_values_are_integers_within_the_public_bounds():
    X = _spiky(3000)
    X.loc[:10, "gain"] = 5000.0  # clipped to the bound 1000 (its point cell)
    synth = _fit(X, domain=SPIKY, resolution=256)
    out = synth.sample(20000, random_state=0)
    for name in ("months", "big"):
        assert out[name].dtype == np.int64
        assert out[name].between(SPIKY[name][0], SPIKY[name][1]).all()
    assert out["gain"].dropna().between(0.0, 1000.0).all()
    # the 'big' column (100001 integers > 256: equal cells) keeps its bin of the model
    codes = [c for c in synth._columns if c.name == "big"][0].encode(out["big"].to_numpy())
    assert set(np.unique(codes)) <= set(range(10))


def test_fine_grid_conditional_on_the_coarse_bin():
    """Decoding draws within the given coarse bin only, in proportion to the projected fine
    counts (post-processing of the release)."""
    col = Column("x", np.dtype(float), kind="numeric", low=0.0, high=10.0, n_bins=2)
    from skdp._domain.private import to_fine
    to_fine([col], 10)
    col.fine.counts = np.array([50.0, 0, 0, 0, 0, 30.0, 0, 0, 0, 0, 20.0, -4.0])
    rng = np.random.default_rng(0)
    low = col.decode(np.zeros(20000, dtype=np.int64), rng)
    assert np.all((low >= 0) & (low < 5))
    # bin 0: the point at 0 (mass 50 - shift) and cell [4, 5) (mass 30 - shift)
    assert 0.55 < np.mean(low == 0.0) < 0.68 and np.all((low == 0) | (low >= 4))
    high = col.decode(np.ones(20000, dtype=np.int64), rng)
    assert np.all((high >= 5) & (high <= 10)) and np.all((high >= 9) | (high == 10))


def test_fine_grid_and_smd_compose_exactly_in_gdp(releases):
    """Two Gaussian releases, the fine grids' on resolution_share of mu**2, smd's on the rest
    (the one GDP plan of a Gaussian-only fit, issue 30): the fit spends its epsilon exactly
    (Dong-Roth-Su Cor. 2.13, 3.3)."""
    X = _spiky(1000)[["months", "c"]]
    synth = _fit(X, domain={"months": (0, 72), "c": ["a", "b"]}, solver="smd", epsilon=0.7)
    (l1, s1, sig1), (l2, s2, sig2) = releases[:2]
    mu = approx_dp_to_gdp(0.7, 1e-6)
    rho = mu * mu / 2
    assert l1 == "fine grid counts of 1 columns" and l2.endswith("workload marginals")
    share = RESOLUTION_SHARE
    assert sig1 == pytest.approx(gaussian_sigma(math.sqrt(2), share * rho))
    assert s2 / sig2 == pytest.approx(mu * math.sqrt(1 - share))
    assert synth.privacy_method_ == "gdp"
    assert synth.privacy_spent_[0] == pytest.approx(0.7, rel=1e-6)
    assert synth.privacy_spent_[0] <= 0.7 * (1 + 1e-9)


# ------------------------------------------------------------- the codes entry's missing cell
def test_a_codes_entry_can_say_missing_false():
    """private-pgm's "k codes" entry as a dict can drop the missing cell (issue 30): an
    object column of codes no longer gets an empty cell the table never has."""
    X = pd.DataFrame({"a": np.arange(300) % 3, "b": np.arange(300) % 4}).astype(object)
    plain = _fit(X, domain={"a": 3, "b": 4}, solver="aim")
    assert plain.domain_shape_ == (4, 5)  # an object column keeps a missing cell by default
    synth = _fit(X, domain={"a": {"codes": 3, "missing": False, "note": "reviewed"},
                            "b": {"codes": 4, "missing": False}}, solver="aim")
    assert synth.domain_shape_ == (3, 4)
    assert synth.domain_["a"] == {"categories": [0, 1, 2], "missing": False}
    assert not pd.isna(synth.sample(500)).any().any()
    # and with missing values, "missing": true keeps them
    X.loc[:9, "a"] = None
    assert _fit(X, domain={"a": {"codes": 3, "missing": True}, "b": 4},
                solver="aim").domain_shape_ == (4, 5)


@pytest.mark.parametrize("entry, message", [
    ({"codes": 0}, "must be >= 1"), ({"codes": "3"}, "must be >= 1"),
    ({"codes": 3, "low": 0}, "unknown keys ['low']"), ({"codes": 3, "missing": "no"},
                                                        "'missing' must be true or false"),
    ({"categories": ["x"], "note": 3}, "'note' must be a string")])
def test_bad_codes_and_note_entries_name_the_column(entry, message):
    from skdp._domain import parse_entry

    with pytest.raises((TypeError, ValueError), match="column 'a'") as info:
        parse_entry("a", entry)
    assert message in str(info.value)
