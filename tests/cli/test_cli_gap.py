"""The CLI and the estimator release the same thing (issue 30: the CLI against the API).

``python -m skdp synthesize`` with its defaults builds the estimator with the
estimator's own defaults, and with a domain file and a seed it writes the rows the
estimator samples from the same table (``benchmarks/cli_api_gap.py`` measured the
two paths on the mixed tables: bit-identical rows; the gap between the two
benchmarks is their rows, reference and domains, not the entry point). A CLI
default that drifts from the estimator's fails here.
"""

import csv
import inspect
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from skdp._cli import commands
from skdp._cli.parser import build_parser
from skdp.__main__ import main
from skdp.synthesizer import SaddlePointSynthesizer

# what the CLI sets on purpose: the domain (from its file or the data), the seed
# (--seed, tests only) and the progress lines (unless --quiet)
CLI_OWN = {"domain", "random_state", "verbose"}


def test_synthesize_defaults_are_the_estimators(tmp_path):
    args = build_parser().parse_args(["synthesize", str(tmp_path / "in.csv"), "-o",
                                      str(tmp_path / "out.csv")])
    args.accountant = None  # (set by the job from --store; none here)
    n_bins = args.n_bins or 10  # what `synthesize` passes for an input without --n-bins
    cli = commands._estimator(args, {}, n_bins).get_params()
    default = SaddlePointSynthesizer().get_params()
    differ = {k: (cli[k], default[k]) for k in default if k not in CLI_OWN
              and cli[k] != default[k]}
    assert differ == {}
    # every option the CLI forwards keeps the estimator's default (n_iter and tol are not
    # options: the estimator's defaults by construction)
    sig = inspect.signature(SaddlePointSynthesizer.__init__).parameters
    assert all(sig[k].default == cli[k] for k in default if k not in CLI_OWN)


MIXED = [  # float on a few exact values (a log), integer count, category, boolean, missing
    ("lc", [0.0, 3.258096, 4.564348, 0.6931472]),
    ("visits", list(range(12))),
    ("health", ["good", "fair", "poor"]),
    ("child", [True, False]),
]


def _table(n, seed):
    rng = np.random.default_rng(seed)
    lc = rng.choice(MIXED[0][1], n, p=[0.4, 0.3, 0.2, 0.1])
    visits = np.minimum(rng.poisson(2 + lc), 11)
    health = np.where(visits > 3, "fair", rng.choice(["good", "poor"], n))
    child = rng.random(n) < 0.3
    frame = pd.DataFrame({"lc": lc, "visits": visits, "health": health, "child": child})
    frame.loc[rng.random(n) < 0.05, "lc"] = np.nan
    return frame


DOMAIN = {"lc": {"low": 0, "high": 5, "missing": True},
          "visits": {"low": 0, "high": 20, "integer": True, "missing": False},
          "health": {"categories": ["fair", "good", "poor"], "missing": False},
          "child": {"categories": [False, True], "missing": False}}


def _cells(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))[1:]


def _same(a, b):
    if a in ("", "nan", "NA") or b in ("", "nan", "NA"):
        return a in ("", "nan", "NA") and b in ("", "nan", "NA")
    try:
        return float(a) == pytest.approx(float(b), rel=1e-9, abs=1e-12)
    except ValueError:
        return a.lower() == b.lower()


@pytest.mark.parametrize("extra", [[], ["--epsilon", "2", "--n-bins", "6"]])
def test_cli_rows_are_the_estimators_rows(tmp_path, capsys, extra):
    src, dom, out = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "o.csv"
    _table(600, 1).to_csv(src, index=False)
    dom.write_text(json.dumps(DOMAIN))
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(dom), "--seed", "3",
                 "--quiet", *extra]) == 0
    capsys.readouterr()
    params = dict(random_state=3)
    if extra:
        params.update(epsilon=2.0, n_bins=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(domain=DOMAIN, **params).fit(pd.read_csv(src))
    api = tmp_path / "api.csv"
    est.sample(600).to_csv(api, index=False)
    cli_rows, api_rows = _cells(out), _cells(api)
    assert len(cli_rows) == len(api_rows) == 600
    bad = [(i, a, b) for i, (ra, rb) in enumerate(zip(cli_rows, api_rows))
           for a, b in zip(ra, rb) if not _same(a, b)]
    assert bad == []


def test_a_count_in_0_to_k_is_drafted_with_bounds_and_codes_keep_codes():
    """DoctorContacts' `mdu` (doctor visits: 0..77, 99% at most 21) has its values in 0..k-1
    as codes do, but its counts fall smoothly along the values: bounds, flagged heavy-tailed
    (the default fine bins keep the tail out of the first equal bin), with a note naming the
    codes form; rough counts (communes, schools) keep the codes form (RESULTS.md, "quantities
    drafted as codes")."""
    from skdp._cli.domain import check_domain
    from skdp._cli.draft import DRAFT_NOTE, ROUGH_CODES, propose_entry, roughness

    visits = [str(v) for v in range(78) for _ in range(max(1, 400 - 20 * v))]
    assert roughness([int(v) for v in visits]) < ROUGH_CODES
    entry = propose_entry(visits)
    check_domain({"mdu": entry}, ["mdu"])
    assert (entry["low"], entry["high"], entry["integer"]) == (0, 77, True)
    assert entry["note"].startswith(DRAFT_NOTE) and '{"codes": 78}' in entry["note"]
    assert "heavy-tailed: its top 1% of values span" in entry["note"]
    # codes spread over their range, every other one present, counts that jump: codes
    entry = propose_entry([str(v) for v in range(0, 120, 2) for _ in range(1 + v * 7 % 13)])
    assert entry["codes"] == 119 and "quantity" in entry["note"]
    # school ids: counts that jump from one id to the next
    rng = np.random.default_rng(0)
    schools = [str(v) for v in range(80) for _ in range(int(rng.integers(20, 120)))]
    assert roughness([int(v) for v in schools]) >= ROUGH_CODES
    assert propose_entry(schools)["codes"] == 80
    # (bounds entries keep their own flags, as before)
    entry = propose_entry(["0"] * 400 + [str(100 * v) for v in range(1, 88)] + ["99999"])
    assert "heavy-tailed" in entry["note"] and "low" in entry


def test_counts_as_rough_as_noise_are_drafted_with_bounds():
    """A small table's ages (400 people over 66 years: about 6 a year) have counts as rough
    as codes' from sampling noise alone: bounds, with a note naming the codes form; codes of
    unequal groups and a balanced panel's subjects (counts more even than noise) keep the
    codes form (RESULTS.md, "counts as rough as noise drafted as bounds")."""
    from skdp._cli.draft import NOISE_BAND, ROUGH_CODES, noise_ratio, propose_entry, roughness

    rng = np.random.default_rng(1)
    ages = rng.integers(24, 92, 400)
    assert roughness(ages) >= ROUGH_CODES and NOISE_BAND[0] <= noise_ratio(ages) <= NOISE_BAND[1]
    entry = propose_entry([str(v) for v in ages])
    assert (entry["low"], entry["integer"]) == (ages.min(), True)
    assert "as sampling noise does" in entry["note"] and '{"codes": 92}' in entry["note"]
    schools = np.repeat(np.arange(80), rng.integers(5, 60, 80))
    assert noise_ratio(schools) > NOISE_BAND[1]
    assert propose_entry([str(v) for v in schools])["codes"] == 80
    subjects = np.repeat(np.arange(60), 4)  # 60 subjects seen 4 times each
    assert noise_ratio(subjects) < NOISE_BAND[0]
    assert propose_entry([str(v) for v in subjects])["codes"] == 60


def test_hours_heaped_at_round_numbers_are_drafted_with_bounds():
    """HI's `whrswk` (hours a week, 0..90: 34% at 40, 30% at 0, peaks at 20, 25, 30, 35, 45,
    50) has counts as rough as codes', but they peak at multiples of 5: a quantity heaped at
    round numbers, drafted with bounds (RESULTS.md, "heaped quantities drafted as bounds");
    one big code among flat ones is one peak and keeps the codes form."""
    from skdp._cli.draft import HEAPED, ROUGH_CODES, heaping, propose_entry, roughness

    rng = np.random.default_rng(1)
    counts = {v: int(rng.integers(5, 40)) for v in range(91)}
    counts.update({v: int(rng.integers(300, 900)) for v in range(5, 90, 5)})
    counts.update({40: 7600, 0: 6600})
    hours = [str(v) for v, c in counts.items() for _ in range(c)]
    values = [int(v) for v in hours]
    assert roughness(values) >= ROUGH_CODES and heaping(values) >= HEAPED
    entry = propose_entry(hours)
    assert (entry["low"], entry["high"], entry["integer"]) == (0, 90, True)
    assert "peak at multiples of 5" in entry["note"] and '{"codes": 91}' in entry["note"]
    # countries: one code (a multiple of 5) holds 90% of the rows, the rest rough
    codes = {v: int(rng.integers(5, 60)) for v in range(120)}
    codes[40] = 9 * sum(codes.values())
    countries = [str(v) for v, c in codes.items() for _ in range(c)]
    assert heaping([int(v) for v in countries]) < HEAPED
    assert propose_entry(countries)["codes"] == 120
