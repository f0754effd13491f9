"""Typed, immutable ledger events (issue 29 item 2): one frozen dataclass per mechanism kind.

Each kind holds only the parameters that apply to it (no ``nan`` fields), keeps its old
``kind`` word, and is stored in the flat format skdp wrote before, so that a budget store
shared with an older skdp reads the same composition.
"""

import dataclasses
import json
import math
import pickle

import pytest

from skdp.privacy import (ApproxEvent, ExponentialEvent, GaussianEvent, LedgerEntry,
                          PrivacyLedger, PureEvent, SubsampledGaussianEvent, ZCDPEvent)
from skdp.privacy.accountant import _compact, add_remove_as_replace_one
from skdp.privacy.ledger import EVENT_KINDS
from skdp.privacy.store import StoreError, decode_parts, encode_parts

KINDS = {GaussianEvent: "gaussian", SubsampledGaussianEvent: "subsampled_gaussian",
         ZCDPEvent: "zcdp", ExponentialEvent: "exponential", PureEvent: "pure",
         ApproxEvent: "approx"}
FIELDS = {GaussianEvent: {"mu", "rho", "replace_ratio"},
          SubsampledGaussianEvent: {"mu", "q", "rho"}, ZCDPEvent: {"rho"},
          ExponentialEvent: {"epsilon"}, PureEvent: {"epsilon"},
          ApproxEvent: {"epsilon", "delta"}}


def _every_kind():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 2.0, count=3, label="g")
    ledger.gaussian(2.0, 3.0, label="g ratio", replace_sensitivity=2.0 * math.sqrt(2.0))
    ledger.subsampled_gaussian(1.0, 1.5, 0.01, count=100, label="steps")
    ledger.zcdp(0.01, count=2, label="z")
    ledger.exponential(0.3, count=4, label="select")
    ledger.pure(0.2, label="pure")
    ledger.approx(0.1, 1e-7, label="approx")
    return ledger


# the flat JSON the encoder of skdp before typed events wrote for _every_kind()'s entries
# (one dataclass with every field, nan left out): the stored format must not change
OLD_TEXT = (
    '[{"kind": "gaussian", "count": 3, "delta": 0.0, "rho": 0.125, "mu": 0.5, "label": "g"}, '
    '{"kind": "gaussian", "count": 1, "delta": 0.0, "rho": 0.2222222222222222, '
    '"mu": 0.6666666666666666, "label": "g ratio", "replace_ratio": 1.4142135623733338}, '
    '{"kind": "subsampled_gaussian", "count": 100, "delta": 0.0, "rho": 0.8888888888888888, '
    '"mu": 0.6666666666666666, "q": 0.01, "label": "steps"}, '
    '{"kind": "zcdp", "count": 2, "delta": 0.0, "rho": 0.01, "label": "z"}, '
    '{"kind": "exponential", "count": 4, "epsilon": 0.3, "delta": 0.0, "rho": 0.01125, '
    '"label": "select"}, '
    '{"kind": "pure", "count": 1, "epsilon": 0.2, "delta": 0.0, '
    '"rho": 0.020000000000000004, "label": "pure"}, '
    '{"kind": "approx", "count": 1, "epsilon": 0.1, "delta": 1e-07, "label": "approx"}]')


def test_each_kind_is_its_own_event_with_its_old_kind_word():
    ledger = _every_kind()
    assert [type(e) for e in ledger.entries] == [
        GaussianEvent, GaussianEvent, SubsampledGaussianEvent, ZCDPEvent, ExponentialEvent,
        PureEvent, ApproxEvent]
    assert EVENT_KINDS == tuple(KINDS.values())
    for e in ledger.entries:
        assert isinstance(e, LedgerEntry)
        assert e.kind == KINDS[type(e)] == type(e).kind
        assert {f.name for f in dataclasses.fields(e)} == FIELDS[type(e)] | {"count", "label"}


def test_no_event_holds_a_field_that_does_not_apply_nor_a_nan():
    for e in _every_kind().entries:
        for f in dataclasses.fields(e):
            value = getattr(e, f.name)
            assert not (isinstance(value, float) and math.isnan(value)), (e, f.name)
        for name in {"epsilon", "delta", "mu", "q", "replace_ratio"} - FIELDS[type(e)]:
            assert not hasattr(e, name), (e, name)
    for entry in _every_kind().log():
        assert not any(isinstance(v, float) and math.isnan(v) for v in entry.values()), entry
    gauss, with_ratio = _every_kind().entries[:2]
    assert gauss.replace_ratio is None  # not recorded: None, not nan
    assert with_ratio.replace_ratio == pytest.approx(math.sqrt(2.0))


@pytest.mark.parametrize("event", _every_kind().entries, ids=lambda e: e.kind)
def test_events_are_immutable_and_hashable(event):
    for f in dataclasses.fields(event):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, f.name, getattr(event, f.name))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.kind = "zcdp"  # read-only
    assert type(event).kind == KINDS[type(event)]
    assert hash(event) == hash(dataclasses.replace(event))
    assert event == dataclasses.replace(event) and event != dataclasses.replace(event, count=7)


def test_derived_rho_is_the_formula_of_each_kind():
    # exponential: bounded range, eps**2 / 8 (Cesar-Rogers Lemma 3.2); pure: eps**2 / 2
    # (Bun-Steinke Prop. 1.4); Gaussian: Delta**2 / (2 sigma**2) (Prop. 1.6) and mu = Delta/sigma
    ledger = _every_kind()
    g, _, sub, z, exp_, pure, _ = ledger.entries
    assert (g.mu, g.rho) == (0.5, 0.125)
    assert sub.mu == pytest.approx(1.0 / 1.5) and sub.rho == pytest.approx(2 * sub.mu**2)
    assert z.rho == 0.01
    assert exp_.rho == pytest.approx(0.3**2 / 8, rel=1e-15)
    assert pure.rho == pytest.approx(0.2**2 / 2, rel=1e-15)
    # the totals are those of the flat entries: rho of the non-approx parts
    assert ledger.rho == pytest.approx(3 * 0.125 + 2 / 9 + 100 * sub.rho + 2 * 0.01
                                       + 4 * 0.3**2 / 8 + 0.2**2 / 2, rel=1e-14)


def test_the_store_format_is_the_flat_one_and_round_trips():
    ledger = _every_kind()
    text = encode_parts(ledger.entries)
    assert text == OLD_TEXT  # byte for byte: an older skdp sharing the store reads it
    assert decode_parts(text) == ledger.entries
    assert decode_parts(OLD_TEXT) == ledger.entries  # a file written before typed events
    compact = _compact(ledger)
    assert decode_parts(encode_parts(compact.entries)) == compact.entries
    for delta in (1e-6, 1e-3):
        assert PrivacyLedger(decode_parts(OLD_TEXT)).spent(delta) == ledger.spent(delta)
    # the flat entries of skdp before typed events composed to these (main at 888c5b3)
    assert ledger.spent(1e-6)[0] == pytest.approx(7.7315409239202095, rel=1e-9)
    assert ledger.spent(1e-3) == (pytest.approx(5.143185098047278, rel=1e-9), "basic+pld+zcdp")


@pytest.mark.parametrize("part, word", [
    ({"kind": "zcdp", "rho": 0.1, "mu": 0.3}, "no field 'mu'"),
    ({"kind": "exponential", "epsilon": 0.4, "rho": 0.5}, "no field 'rho'"),
    ({"kind": "gaussian", "rho": 0.125, "mu": 0.5, "delta": 1e-6}, "no field 'delta'"),
    ({"kind": "gaussian", "rho": 0.125, "mu": 0.5, "replace_ratio": 3.0}, "replace_ratio"),
    ({"kind": "laplace", "epsilon": 0.4}, "upgrade skdp"),
    ({"kind": "zcdp", "rho": 0.1, "sigma": 2.0}, "upgrade skdp"),
])
def test_a_stored_part_that_does_not_fit_its_kind_is_refused(part, word):
    with pytest.raises(StoreError, match=word):
        decode_parts(json.dumps([part]))


def test_the_old_flat_constructor_and_pickles_still_give_events():
    with pytest.warns(FutureWarning, match="typed events"):
        event = LedgerEntry("exponential", 2, epsilon=0.5, rho=0.03125, label="select")
    assert event == ExponentialEvent(0.5, count=2, label="select")
    with pytest.warns(FutureWarning):
        assert LedgerEntry("gaussian", rho=0.125, mu=0.5) == GaussianEvent(0.5, 0.125)

    # a pickle as skdp before typed events wrote its one dataclass (protocol 2: the class,
    # NEWOBJ, its __dict__, BUILD)
    old = dict(kind="approx", count=1, epsilon=0.1, delta=1e-7, rho=math.nan, mu=math.nan,
               q=math.nan, label="approx", replace_ratio=math.nan)
    data = (b"\x80\x02cskdp.privacy.ledger\nLedgerEntry\n)\x81"
            + pickle.dumps(old, protocol=2)[2:-1] + b"b.")
    back = pickle.loads(data)
    assert type(back) is ApproxEvent and back == ApproxEvent(0.1, 1e-7, label="approx")
    for e in _every_kind().entries:  # and an event's own pickle
        assert pickle.loads(pickle.dumps(e)) == e


def test_conversion_to_replace_one_keeps_the_kinds_and_values():
    ledger = _every_kind()
    ledger.entries.pop(2)  # a subsampled part cannot be converted
    out = add_remove_as_replace_one(ledger).entries
    assert [type(e) for e in out] == [type(e) for e in ledger.entries]
    g, g_ratio, z, exp_, pure, approx = out
    assert (g.mu, g.rho, g.replace_ratio) == (1.0, 0.5, None)  # group privacy: 2 mu, 4 rho
    assert g_ratio.mu == pytest.approx(math.sqrt(2.0) * 2 / 3) and g_ratio.replace_ratio is None
    assert z.rho == 0.04
    assert (exp_.epsilon, exp_.rho) == (0.6, 4 * ledger.entries[3].rho)  # bit for bit
    assert (pure.epsilon, pure.rho) == (0.4, 4 * ledger.entries[4].rho)
    assert approx.epsilon == 0.2
    assert approx.delta == pytest.approx((1 + math.exp(0.1)) * 1e-7)


def test_a_gaussian_ratio_outside_one_to_two_is_refused():
    with pytest.raises(ValueError, match="replace_ratio"):
        GaussianEvent(0.5, 0.125, replace_ratio=2.5)
    with pytest.raises(TypeError):
        ZCDPEvent(0.1, epsilon=0.3)  # no such field
