"""The draft flags integers that may be codes drafted as bounds (census2000's `puma`, 610
area numbers in 100..8200, had no flag: reserved-table check, issue 30)."""

from skdp._cli.draft import propose_entry


def _note(values):
    return propose_entry([str(v) for v in values])["note"]


def test_sparse_integers_without_a_spike_are_flagged_as_possible_codes():
    areas = [100 + 13 * (i % 600) for i in range(3000)]
    assert "if these are codes" in _note(areas)


def test_a_spiky_or_dense_quantity_is_not_flagged():
    gains = [0] * 900 + [1 + 997 * i for i in range(100)]  # sparse, but 0 is a spike
    weights = [300 + i % 200 for i in range(3000)]  # dense in its range
    assert "if these are codes" not in _note(gains)
    assert "if these are codes" not in _note(weights)
