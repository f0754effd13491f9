"""Column kinds, integer flags and categories never come from the values (#28, item 1).

Neighbouring tables that differ in one row give the same visible structure
(``domain_``, ``domain_shape_``, the sample's dtype and shape), whatever the
container, or a PrivacyLeakWarning says what was read from the data.
"""

import warnings

import numpy as np
import pytest

from skdp import PrivacyLeakWarning, SaddlePointSynthesizer

pd = pytest.importorskip("pandas")

DOMAIN = {0: {"low": 0, "high": 3}, 1: 5}


def _rows(n=120):
    return [[i % 3, (i * 7) % 5] for i in range(n)]


def _neighbours(odds=(2.5, None)):
    base = _rows()
    for odd in odds:
        other = [row[:] for row in base]
        other[0][0] = odd
        yield base, other


def _visible(X, domain):
    # one seed for both neighbours: the noisy releases (a bound's point mass given a bin of
    # its own when its noisy count says so: domain_'s n_bins) then differ only by the row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        synth = SaddlePointSynthesizer(epsilon=1.0, domain=domain, solver="smd",
                                       random_state=0).fit(X)
    sample = synth.sample(5)
    return synth.domain_, synth.domain_shape_, sample.dtype, sample.shape


@pytest.mark.parametrize("domain", [DOMAIN, "private"])
def test_a_list_gives_the_same_structure_for_neighbouring_tables(domain):
    # a string in a column declared numeric is an error naming the column (the fit then
    # charges its budget, as any failure after the data are read)
    for base, other in _neighbours((2.5, None) if domain == DOMAIN else (2.5, "x", None)):
        a, b = _visible(base, domain), _visible(other, domain)
        if domain == "private":   # the private categories are a noisy release: compare kinds
            a, b = ({k: sorted(v) for k, v in a[0].items()}, *a[2:]), \
                   ({k: sorted(v) for k, v in b[0].items()}, *b[2:])
        assert a == b


def test_a_list_is_read_as_untyped_objects():
    synth = SaddlePointSynthesizer(epsilon=1.0, domain=DOMAIN, random_state=0).fit(_rows())
    assert synth.sample(4).dtype == object
    # the same rows as an int array keep the array's (public) dtype
    typed = SaddlePointSynthesizer(epsilon=1.0, domain=DOMAIN, random_state=0)
    assert typed.fit(np.asarray(_rows())).sample(4).dtype == np.int64


def test_a_ragged_list_is_refused_plainly():
    for bad in ([[1, 2], [1]], [1, 2, 3]):
        with pytest.raises(ValueError, match="different lengths or it is not 2D") as info:
            SaddlePointSynthesizer(domain=DOMAIN).fit(bad)
        assert "[1" not in str(info.value)   # no value of the table in the message


def test_category_dtype_read_from_values_warns_unless_domain_names_it():
    values = ["a"] * 119 + ["rare"]
    frame = pd.DataFrame({"c": pd.Series(values).astype("category"),
                          "k": np.arange(120) % 3})
    with pytest.warns(PrivacyLeakWarning, match=r"domain of column\(s\) \[.c.\] \(the categories"):
        SaddlePointSynthesizer(epsilon=1.0, domain={"k": 3}, random_state=0).fit(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        SaddlePointSynthesizer(epsilon=1.0, domain={"k": 3, "c": ["a", "rare", "b"]}).fit(frame)


def test_drop_under_add_remove_releases_with_no_complete_row():
    # #28 item 6: with no complete row the fit raised, and one more complete row made it
    # release; under add_remove the row count is private, so both release
    incomplete = np.array([[1.0, np.nan], [np.nan, 2.0]] * 30)
    neighbour = np.vstack([incomplete, [[1.0, 2.0]]])
    domain = {0: {"low": 0, "high": 3}, 1: {"low": 0, "high": 3}}
    seen = []
    for X in (incomplete, neighbour):
        synth = SaddlePointSynthesizer(epsilon=1.0, missing="drop", neighbouring="add_remove",
                                       domain=domain).fit(X)
        seen.append((synth.domain_, synth.domain_shape_, synth.sample(3).shape))
    assert seen[0] == seen[1]
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError, match="leaves no row"):
        SaddlePointSynthesizer(missing="drop", domain=domain).fit(incomplete)   # replace_one


@pytest.mark.parametrize("domain", [{0: {"low": 3, "high": 1}, 1: 3},
                                    {0: {"low": float("nan"), "high": 1}, 1: 3},
                                    {0: [], 1: 3}])
def test_a_bad_domain_entry_is_refused_before_the_budget_is_reserved(domain):
    # the parameter alone is wrong: no row is read and nothing is charged (#28, item 4)
    from skdp import BudgetAccountant

    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="column 0"):
        SaddlePointSynthesizer(domain=domain, accountant=accountant).fit(np.zeros((10, 2)))
    assert accountant.spends == []
