"""Formula columns of the command line: a column computed from others after the release.

A domain entry ``{"formula": "exper ** 2"}`` (optionally ``"integer": true``) says that the
column is a public function of other columns (a square, a logarithm, as a codebook defines
it): the column is not modelled and its CSV cells are never read; each synthetic row's value
is computed from that row's synthetic values of the columns the formula names. Computing it
is post-processing of the release, so it costs no budget, and the synthetic table keeps the
exact relation that two separately modelled columns (``exper`` and ``expersq`` at their own
bins) lose.

A formula is an arithmetic expression of numbers, column names (a name that is not a Python
identifier between backticks: ```IQ.verb` - 12``), ``+ - * / **``, parentheses and the
functions of :data:`FUNCTIONS`. The columns it names are modelled numeric columns of the
domain file (bounds, codes or numeric categories; not dates, not other formulas). A row's
value is missing where a named column is missing or the result is not a finite number
(``log(0)``).
"""

import ast
import math
import re

import numpy as np

__all__ = ["FUNCTIONS", "Formula", "formula_columns", "is_formula"]

FUNCTIONS = {"log": np.log, "log1p": np.log1p, "exp": np.exp, "expm1": np.expm1,
             "sqrt": np.sqrt, "abs": np.abs}
"""The functions a formula may call (one argument each; ``log`` is the natural logarithm)."""

_OPERATORS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
              ast.Div: np.divide, ast.Pow: np.power}
_KEYS = {"formula", "integer", "note"}
_QUOTED = re.compile(r"`([^`]*)`")


def is_formula(entry):
    """Whether a domain entry is a formula entry (a dict with a ``"formula"`` key)."""
    return isinstance(entry, dict) and "formula" in entry


class Formula:
    """A formula column: its entry checked against the domain file, its values computed.

    Parameters
    ----------
    name : str
        The column's name.
    entry : dict
        Its domain entry, ``{"formula": text}`` with optional ``"integer"`` (bool: the values
        are written rounded to integers) and ``"note"``.
    entries : dict
        The domain file's other entries (column name -> entry): each column the formula
        names must be a modelled numeric column there.

    Examples
    --------
    >>> f = Formula("expersq", {"formula": "exper ** 2", "integer": True},
    ...             {"exper": {"low": 0, "high": 60, "integer": True}})
    >>> f.names
    ['exper']
    >>> f.compute({"exper": np.array([3.0, np.nan, 10.0])})
    array([  9.,  nan, 100.])
    >>> f.format(9.0), f.format(float("nan"))
    ('9', '')
    """

    def __init__(self, name, entry, entries):
        self.name = name
        self.entry = entry
        extra = set(entry) - _KEYS
        if extra:
            raise ValueError(f"column {name!r}: a formula entry takes the keys "
                             f"{sorted(_KEYS)}, not {sorted(extra)}.")
        text = entry["formula"]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"column {name!r}: \"formula\" is a text such as \"x ** 2\", "
                             f"got {text!r}.")
        self.integer = entry.get("integer", False)
        if not isinstance(self.integer, bool):
            raise ValueError(f"column {name!r}: \"integer\" is true or false, got "
                             f"{self.integer!r}.")
        self.text = text
        self._quoted = {}
        self._tree = self._parse(_QUOTED.sub(self._quote, text))
        self.names = list(dict.fromkeys(self._names(self._tree.body)))
        self._check_names(entries)
        self.form, self.clock, self.width = "formula", None, 18

    def _quote(self, match):
        key = f"_skdp_column_{len(self._quoted)}"
        self._quoted[key] = match.group(1)
        return key

    def _parse(self, text):
        try:
            return ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            raise ValueError(f"column {self.name!r}: the formula {self.text!r} is not an "
                             "arithmetic expression.") from None

    def _names(self, node):
        """The column names a parsed expression reads, in order; refuse anything else."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return []
        if isinstance(node, ast.Name):
            return [self._quoted.get(node.id, node.id)]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return self._names(node.left) + self._names(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._names(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in FUNCTIONS and len(node.args) == 1 and not node.keywords:
            return self._names(node.args[0])
        raise ValueError(f"column {self.name!r}: the formula {self.text!r} may hold numbers, "
                         f"column names, + - * / **, parentheses and the functions "
                         f"{', '.join(FUNCTIONS)} (one argument each), not "
                         f"{ast.unparse(node)!r}.")

    def _check_names(self, entries):
        from .domain import CsvCells

        if not self.names:
            raise ValueError(f"column {self.name!r}: the formula {self.text!r} names no "
                             "column (a constant column needs no release).")
        for used in self.names:
            if used == self.name:
                raise ValueError(f"column {self.name!r}: its formula names the column itself.")
            if used not in entries:
                raise ValueError(f"column {self.name!r}: its formula names {used!r}, which has "
                                 "no entry in the domain file (a formula reads modelled "
                                 "numeric columns with public entries).")
            if is_formula(entries[used]):
                raise ValueError(f"column {self.name!r}: its formula names {used!r}, itself "
                                 "a formula column: write its formula in instead.")
            col = CsvCells(used, entries[used])
            if col.clock is not None or not _numeric(col):
                raise ValueError(f"column {self.name!r}: its formula names {used!r}, which is "
                                 "not a numeric column (bounds, codes or numeric categories; "
                                 "a date column's days are not offered).")

    def compute(self, values):
        """The column's values from the named columns' (``values``: name -> float array,
        NaN where missing); NaN where a name is missing or the result is not finite."""
        with np.errstate(all="ignore"):
            out = np.asarray(self._eval(self._tree.body, values), dtype=float)
        out = np.broadcast_to(out, np.shape(values[self.names[0]])).copy()
        out[~np.isfinite(out)] = np.nan
        return out

    def _eval(self, node, values):
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return values[self._quoted.get(node.id, node.id)]
        if isinstance(node, ast.BinOp):
            return _OPERATORS[type(node.op)](self._eval(node.left, values),
                                             self._eval(node.right, values))
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, values)
            return -v if isinstance(node.op, ast.USub) else v
        return FUNCTIONS[node.func.id](self._eval(node.args[0], values))

    def parse(self, cell, where="CSV"):
        """The value of a non-missing cell of a file that is scored, not fitted (the
        holdout): a finite number (the training file's cells of the column are never read)."""
        from .domain import _number

        v = _number(cell)
        if v is None:
            raise ValueError(f"{where}: column {self.name!r} is a formula column (numeric) but "
                             "the cell is not a finite number.")
        return float(v)

    def format(self, value):
        """The CSV text of a computed value (an empty cell for a missing one)."""
        if value is None or not math.isfinite(value):
            return ""
        return str(int(round(value))) if self.integer else repr(float(value))


def formula_columns(domain, header):
    """``{name: Formula}`` for the formula entries of a domain file (in ``header``'s order),
    each checked against the file's other entries; ``{}`` for ``--domain private``.

    Examples
    --------
    >>> d = {"age": {"low": 16, "high": 99}, "agesq": {"formula": "age ** 2"}}
    >>> list(formula_columns(d, ["age", "agesq"]))
    ['agesq']
    """
    if not isinstance(domain, dict):
        return {}
    return {name: Formula(name, domain[name], domain) for name in header
            if is_formula(domain.get(name))}


def _numeric(col):
    """Whether a column's synthetic values are numbers (``col``: its CsvCells)."""
    if col.form != "categories":
        return col.form in ("bounds", "codes", "numeric")
    cats = col.entry if isinstance(col.entry, list) else col.entry["categories"]
    return all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cats)
