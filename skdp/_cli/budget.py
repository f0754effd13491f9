"""``python -m skdp budget FILE|URL``: a budget store's spends, who spent them and each dataset's
composed total; ``python -m skdp budget-setup URL``: a PostgreSQL store's schema and roles.

Also the accountant that ``synthesize --store`` charges.
"""

import math
import os
import time

from ..privacy.accountant import BudgetAccountant
from ..privacy.ledger import describe_composition
from ..privacy.accountant import open_store
from ..privacy.store import STATUSES, is_url, store_name

__all__ = ["explain_total", "store_accountant", "setup_store", "show_budget"]

COLUMNS = ("id", "time (UTC)", "status", "label", "solver", "epsilon", "delta", "relation",
           "seed", "by", "purpose")


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
        if not is_url(args.store) and not os.path.exists(args.store):
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
            row.get("neighbouring") or "replace_one", _seed(row["seed"]), _by(row),
            row["purpose"] or ""]


def _by(row):
    """Who spent it: the server's role (``spent_by``), or a file's host and process."""
    if row.get("spent_by"):
        return row["spent_by"]
    return f"{row['host'] or '?'}:{row['pid'] or '?'}"


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
    if not is_url(args.store) and not os.path.isfile(args.store):
        raise ValueError(f"no budget store {args.store}.")
    store = open_store(args.store)
    names = store.datasets() if args.dataset is None else [args.dataset]
    if args.dataset is not None and args.dataset not in store.datasets():
        raise ValueError(f"the budget store {store_name(args.store)} has no dataset "
                         f"{args.dataset!r}; it has {store.datasets()}.")
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


def setup_store(args):
    """Run ``python -m skdp budget-setup URL``: print the schema and roles, or apply them."""
    if not is_url(args.url):
        raise ValueError(f"budget-setup takes a postgresql:// URL, not {args.url!r} (a SQLite "
                         "file store needs no setup).")
    from ..privacy.store_postgres import PostgresBudgetStore, schema_sql

    if not args.apply:
        print(schema_sql(), end="")
        return 0
    store = PostgresBudgetStore(args.url)  # creates what is missing, then checks it
    con = store._connect()
    con.execute(schema_sql())  # roles, privileges and triggers brought up to date
    print(f"the budget store {store.path} is ready: grant skdp_curator, skdp_analyst or "
          "skdp_auditor to login roles (GRANT skdp_analyst TO alice).")
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
