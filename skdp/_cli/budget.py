"""``python -m skdp budget FILE``: a budget store's spends and each dataset's composed total.

Also the accountant that ``synthesize --store`` charges.
"""

import math
import os
import time

from ..privacy.accountant import BudgetAccountant
from ..privacy.ledger import describe_composition
from ..privacy.ledger_store import STATUSES, LedgerStore

__all__ = ["explain_total", "show_budget", "store_accountant"]

COLUMNS = ("id", "time (UTC)", "status", "label", "solver", "epsilon", "delta", "relation",
           "seed", "purpose")


def store_accountant(args):
    """The accountant of ``synthesize --store FILE --dataset NAME``, or None without --store.

    The dataset's budget is ``--budget-epsilon``/``--budget-delta`` (set once
    in the file), else the one stored in it.
    """
    if args.store is None:
        if args.dataset is not None:
            raise ValueError("--dataset names a budget in a store: give --store FILE too.")
        return None
    if not args.dataset:
        raise ValueError("--store needs --dataset NAME: a store holds one budget per dataset.")
    given = (args.budget_epsilon, args.budget_delta)
    if given == (None, None):
        if not os.path.exists(args.store):
            raise ValueError(f"no budget store {args.store}: create it by giving the dataset's "
                             "budget (--budget-epsilon, --budget-delta).")
        return BudgetAccountant.open(args.store, args.dataset, purpose=args.purpose)
    if None in given:
        raise ValueError("give both --budget-epsilon and --budget-delta, or neither.")
    return BudgetAccountant(*given, store=args.store, dataset=args.dataset,
                            purpose=args.purpose)


def _cells(row):
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(row["created"]))
    return [str(row["id"]), when, row["status"], row["label"], row["solver"] or "",
            f"{row['epsilon']:.6g}", f"{row['delta']:.3g}",
            row.get("neighbouring") or "replace_one", _seed(row["seed"]),
            row["purpose"] or ""]


def _seed(stored):
    """The seed column: the start of the seed's fingerprint (a file stores no seed)."""
    if not stored:
        return ""
    return stored[:19] + "..." if stored.startswith("scrypt:") else stored


def _table(rows):
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
             for cells in [list(COLUMNS), *rows]]
    return "\n".join(lines)


def show_budget(args):
    """Run ``python -m skdp budget``: print the spends and totals; return the exit status."""
    if not os.path.isfile(args.store):
        raise ValueError(f"no budget store {args.store}.")
    store = LedgerStore(args.store)
    names = store.datasets() if args.dataset is None else [args.dataset]
    if args.dataset is not None and args.dataset not in store.datasets():
        raise ValueError(f"the budget store {args.store} has no dataset {args.dataset!r}; it has "
                         f"{store.datasets()}.")
    for name in names:
        cap = store.budget(name) or (float("inf"), 1.0)
        acc = BudgetAccountant(*cap, store=args.store, dataset=name,
                               neighbouring=store.relation(name) or "replace_one")
        rows = store.rows(name, STATUSES)
        eps, delta, method = acc.composition()
        left = acc.remaining()
        print(f"dataset {name}: budget epsilon={cap[0]:g}, delta={cap[1]:g}, neighbouring="
              f"{acc.neighbouring}")
        print(_table([_cells(r) for r in rows]) if rows else "(no spends)")
        counted = [r for r in rows if r["status"] != "released"]
        print(f"total: epsilon={eps:.6g}, delta={delta:.3g} over {len(counted)} counted spends "
              f"(composition: {method}); left: epsilon={left[0]:.6g}, delta={left[1]:.3g}")
        converted = [r for r in counted
                     if (r.get("neighbouring") or "replace_one") != acc.neighbouring]
        text = explain_total(eps, method, [r["epsilon"] for r in counted])
        if converted:
            text += (f" {len(converted)} spend(s) stated under another neighbouring relation "
                     f"are counted on this {acc.neighbouring} budget by group privacy for "
                     "groups of two, or each Gaussian release by its recorded replace-one / "
                     "add-remove sensitivity ratio (the epsilon column is as charged, the "
                     "total converted).")
        print("  " + text + "\n")
    return 0


def explain_total(epsilon, method, epsilons):
    """Why a composed total is what it is, in words: the rule, and the sum it is compared with.

    Parameters
    ----------
    epsilon : float
        The composed total (:meth:`~skdp.BudgetAccountant.composition`).
    method : str
        Its rule.
    epsilons : list of float
        The counted spends' epsilons (the column printed above the total).

    Returns
    -------
    text : str
        Sentences: :func:`~skdp.privacy.ledger.describe_composition`'s, and
        the sum of the column where the total is below it.

    Examples
    --------
    >>> explain_total(0.98, "gdp", [0.5, 0.5])[:27]
    'Gaussian DP (Dong-Roth-Su):'
    """
    text = describe_composition(method)
    column = math.fsum(epsilons)
    if method not in ("none", "basic", "basic+none") and epsilons and epsilon < column:
        text += (f" The epsilon column adds up to {column:.6g} (basic composition): the "
                 f"accountant keeps {epsilon:.6g}, the smaller of the two, both valid bounds "
                 "for all these spends together.")
    return text
