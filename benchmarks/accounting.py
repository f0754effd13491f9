"""How tight is skdp's accounting? Composed Gaussian mechanisms against dp-accounting.

For a Gaussian mechanism with noise multiplier sigma composed T times, print the
epsilon at delta = 1e-6 by skdp's exact GDP rule (what PrivacyLedger uses when
every part is Gaussian), skdp's zCDP rule (CKS conversion over all orders),
dp-accounting's RDP accountant (its default order grid) and its PLD accountant
(numerical, discretised), and the time each takes.

Run: python benchmarks/accounting.py   (needs the test extra: dp-accounting)
"""

import time

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant

from skdp.privacy import PrivacyLedger, zcdp_to_approx_dp

DELTA = 1e-6


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, 1e3 * (time.perf_counter() - start)


def skdp_gdp(sigma, steps):
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, sigma, count=steps)
    return ledger.spent(DELTA)[0]


def skdp_zcdp(sigma, steps):
    return zcdp_to_approx_dp(steps / (2 * sigma**2), DELTA)


def dpa(accountant, sigma, steps):
    accountant.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(sigma), steps))
    return accountant.get_epsilon(DELTA)


def main():
    print("| sigma | T | skdp GDP (exact) | skdp zCDP (CKS) | dp-acc RDP | dp-acc PLD |")
    print("|---|---|---|---|---|---|")
    for sigma, steps in [(1.0, 1), (4.0, 10), (10.0, 100), (2.0, 100), (50.0, 10_000)]:
        cells = []
        for fn in (lambda: skdp_gdp(sigma, steps), lambda: skdp_zcdp(sigma, steps),
                   lambda: dpa(rdp_privacy_accountant.RdpAccountant(), sigma, steps),
                   lambda: dpa(pld_privacy_accountant.PLDAccountant(), sigma, steps)):
            value, ms = timed(fn)
            cells.append(f"{value:.4f} ({ms:.1f} ms)")
        print(f"| {sigma} | {steps} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
