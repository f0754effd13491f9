"""Column domains of :class:`~skdp.synthesizer.SaddlePointSynthesizer` and of the CLI's
domain files: one domain model.

A column's domain is public: its kind (categorical or numeric), its
categories or its bounds and bins, whether its values are integers and
whether it has a missing-value cell. All of these come from the column's
``domain`` entry or its dtype, never from its values: one private value must
not change the shape or the type of the release (issue 15, item 2). Only the
columns whose domain is found privately (a Gaussian-noised histogram) or
derived from the data (a warned leak) read values, and only for their
categories or bounds.

- :mod:`.values`: comparison keys (:func:`value_key`), missing values, dtypes;
- :mod:`.parse`: the one parser of a domain entry (:func:`parse_entry`), used by
  the estimator's ``domain=`` and by the CLI's domain files
  (:mod:`skdp._cli.domain` keeps only file and CSV-cell concerns);
- :mod:`.column`: :class:`Column`, a column's domain (plan, encode, decode);
- :mod:`.private`: the private domain mechanisms, each one accounted Gaussian
  release through :class:`~skdp.privacy.budget.Budget`.

Error messages name columns, never values: a value outside a public domain
gives a fixed message naming its column.
"""

from .column import Column, derive, plan_column
from .parse import entry_form, parse_entry
from .values import OTHER, missing_mask, value_key

__all__ = ["Column", "OTHER", "derive", "entry_form", "missing_mask", "parse_entry",
           "plan_column", "value_key"]
