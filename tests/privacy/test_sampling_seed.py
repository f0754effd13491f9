"""Published samples never come from the generator state that drew the privacy noise (#28, 8)."""

import numpy as np

from skdp import SaddlePointSynthesizer
from skdp._backend import make_rng, sampling_rng

DOMAIN = {0: 4, 1: 3}


def _table(seed=0):
    return np.random.default_rng(seed).integers(0, 3, size=(300, 2))


def test_sampling_stream_is_not_the_noise_stream():
    for seed in (0, 1, 12345):
        noise = make_rng(seed).standard_normal(64)
        rows = sampling_rng(seed).standard_normal(64)
        assert np.abs(noise - rows).min() > 0      # no draw in common, not merely shifted
        assert not np.isin(rows, make_rng(seed).standard_normal(10_000)).any()


def test_sample_with_the_fit_seed_draws_from_a_child_stream(monkeypatch):
    seen = []
    real = np.random.default_rng

    def spy(seed=None):
        seen.append(seed)
        return real(seed)

    synth = SaddlePointSynthesizer(domain=DOMAIN, random_state=7).fit(_table())
    monkeypatch.setattr(np.random, "default_rng", spy)
    first = synth.sample(50)
    for seed in seen:   # never default_rng(7), the fit's noise generator
        assert not (isinstance(seed, int) and seed == 7)
    assert any(isinstance(s, np.random.SeedSequence) and s.spawn_key for s in seen)
    np.testing.assert_array_equal(first, synth.sample(50))   # still reproducible for tests
    np.testing.assert_array_equal(first, synth.sample(50, random_state=7))
    np.testing.assert_array_equal(
        np.concatenate(list(synth.iter_sample(50, batch_size=20))).shape, (50, 2))
