"""Computed columns of the command line: a column computed from others after the release.

Two entry forms say that a column is a public function of other columns: the column is not
modelled and its CSV cells are never read; each synthetic row's value is computed from that
row's synthetic values of the columns it names. Computing it is post-processing of the
release, so it costs no budget, and the synthetic table keeps the exact relation that two
separately modelled columns lose (a synthetic ``exper`` of 7 beside an ``expersq`` of 36; a
species beside another species' genus).

- ``{"formula": "exper ** 2"}`` (optionally ``"integer": true``, :class:`Formula`): an
  arithmetic expression of numbers, column names (a name that is not a Python identifier
  between backticks: ``log(`IQ.verb`)``), ``+ - * / **``, one comparison (``hours > 0``:
  1 or 0), parentheses and the functions of :data:`FUNCTIONS`. The columns it names are
  modelled numeric columns of the domain file (bounds, codes or numeric categories; not
  dates). A row's value is missing where a named column is missing or the result is not a
  finite number (``log(0)``).
- ``{"lookup": "species_id", "values": {"AB": "Amphispiza", ...}}`` (:class:`Lookup`): a
  table from each category of a modelled column with a list of categories (or codes) to a
  value (a string, number, boolean or null: missing); a row's value is missing where the
  column it looks up is. A codebook's hierarchy (a species' genus, an occupation's major
  group) or a code's label.
"""

import ast
import math
import re

import numpy as np

from .domain import CsvCells, _is_number, _number, is_computed

__all__ = ["FUNCTIONS", "Formula", "Lookup", "computed_column", "computed_columns"]

FUNCTIONS = {"log": np.log, "log1p": np.log1p, "exp": np.exp, "expm1": np.expm1,
             "sqrt": np.sqrt, "abs": np.abs}
"""The functions a formula may call (one argument each; ``log`` is the natural logarithm)."""

_OPERATORS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
              ast.Div: np.divide, ast.Pow: np.power}
_COMPARISONS = {ast.Gt: np.greater, ast.GtE: np.greater_equal, ast.Lt: np.less,
                ast.LtE: np.less_equal, ast.Eq: np.equal, ast.NotEq: np.not_equal}
_KEYS = {"formula", "integer", "note"}
_QUOTED = re.compile(r"`([^`]*)`")


def _source(name, used, entries):
    """The modelled column ``used`` that column ``name`` is computed from: its
    :class:`~.domain.CsvCells` (checked: an entry in the file, not itself computed)."""
    if used == name:
        raise ValueError(f"column {name!r} is computed from the column itself.")
    if used not in entries:
        raise ValueError(f"column {name!r} is computed from {used!r}, which has no entry in "
                         "the domain file (a computed column reads modelled columns with "
                         "public entries).")
    if is_computed(entries[used]):
        raise ValueError(f"column {name!r} is computed from {used!r}, itself a computed "
                         "column: compute it from the modelled column instead.")
    return CsvCells(used, entries[used])


def _check_keys(name, entry, keys):
    extra = set(entry) - keys
    if extra:
        raise ValueError(f"column {name!r}: a {'formula' if 'formula' in entry else 'lookup'} "
                         f"entry takes the keys {sorted(keys)}, not {sorted(extra)}.")


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
        _check_keys(name, entry, _KEYS)
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
        if isinstance(node, ast.Constant) and _is_number(node.value):
            return []
        if isinstance(node, ast.Name):
            return [self._quoted.get(node.id, node.id)]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return self._names(node.left) + self._names(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._names(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and type(node.ops[0]) in _COMPARISONS:
            return self._names(node.left) + self._names(node.comparators[0])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in FUNCTIONS and len(node.args) == 1 and not node.keywords:
            return self._names(node.args[0])
        raise ValueError(f"column {self.name!r}: the formula {self.text!r} may hold numbers, "
                         f"column names, + - * / **, one comparison (> >= < <= == !=: 1 "
                         "or 0), parentheses and the functions "
                         f"{', '.join(FUNCTIONS)} (one argument each), not "
                         f"{ast.unparse(node)!r}.")

    def _check_names(self, entries):
        if not self.names:
            raise ValueError(f"column {self.name!r}: the formula {self.text!r} names no "
                             "column (a constant column needs no release).")
        for used in self.names:
            col = _source(self.name, used, entries)
            if col.clock is not None or not _numeric(col):
                raise ValueError(f"column {self.name!r}: its formula names {used!r}, which is "
                                 "not a numeric column (bounds, codes or numeric categories; "
                                 "a date column's days are not offered).")

    def compute(self, values):
        """The column's values from the named columns' as written (``values``: name -> array
        of numbers, None or NaN where missing); NaN where a name is missing or the result is
        not finite."""
        values = {name: _floats(values[name]) for name in self.names}
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
        if isinstance(node, ast.Compare):  # 1 or 0; missing where a side is
            left, right = self._eval(node.left, values), self._eval(node.comparators[0], values)
            out = _COMPARISONS[type(node.ops[0])](left, right).astype(float)
            return np.where(np.isnan(left) | np.isnan(right), np.nan, out)
        return FUNCTIONS[node.func.id](self._eval(node.args[0], values))

    def parse_held(self, cell, where="CSV"):
        """``(value, True)`` for a non-missing cell of a file that is scored, not fitted (the
        holdout): a finite number (the training file's cells of the column are never read)."""
        return _parse_number(self.name, cell, where, "formula"), True

    def format(self, value):
        """The CSV text of a computed value (an empty cell for a missing one)."""
        if value is None or not math.isfinite(value):
            return ""
        return str(int(round(value))) if self.integer else repr(float(value))

    def score_entry(self):
        """How ``--holdout`` bins the column: as a numeric one."""
        return {"kind": "numeric"}


def _parse_number(name, cell, where, kind):
    v = _number(cell)
    if v is None:
        raise ValueError(f"{where}: column {name!r} is a {kind} column of numbers but the "
                         "cell is not a finite number.")
    return float(v)


def _floats(cells):
    """Values as floats, NaN where missing (None)."""
    return np.array([np.nan if v is None else float(v) for v in cells], dtype=float)


class Lookup:
    """A lookup column: a value for each category of a modelled column.

    Parameters
    ----------
    name : str
        The column's name.
    entry : dict
        Its domain entry, ``{"lookup": column, "values": {category: value}}`` (optionally a
        ``"note"``): ``values`` has a key for every category (code) of ``column``, written as
        the CSV writes it (``"1"``, ``"True"``, ``"AB"``), and JSON scalars as values
        (``null``: missing).
    entries : dict
        The domain file's other entries: ``column`` must be a modelled column there with a
        list of categories or codes.

    Examples
    --------
    >>> f = Lookup("genus", {"lookup": "sp", "values": {"AB": "Amphispiza", "DM": "Dipodomys"}},
    ...            {"sp": ["AB", "DM"]})
    >>> f.compute({"sp": np.array(["DM", None, "AB"], dtype=object)}).tolist()
    ['Dipodomys', None, 'Amphispiza']
    >>> f.format("Dipodomys"), f.format(None)
    ('Dipodomys', '')
    """

    def __init__(self, name, entry, entries):
        self.name = name
        self.entry = entry
        _check_keys(name, entry, {"lookup", "values", "note"})
        used, table = entry["lookup"], entry.get("values")
        if not isinstance(used, str):
            raise ValueError(f"column {name!r}: \"lookup\" names a column, got {used!r}.")
        self.names = [used]
        self._source = _source(name, used, entries)
        if self._source.form not in ("categories", "codes"):
            raise ValueError(f"column {name!r} looks up {used!r}, which has no list of "
                             "categories or codes to look up.")
        if not isinstance(table, dict) or not all(
                v is None or isinstance(v, (str, int, float, bool)) for v in table.values()):
            raise ValueError(f"column {name!r}: \"values\" maps each category of {used!r} to "
                             "a string, number, boolean or null.")
        keys = self._keys()
        lacking, unknown = [k for k in keys if k not in table], [k for k in table if k not in keys]
        if lacking or unknown:
            raise ValueError(f"column {name!r}: \"values\" must have a key for each of the "
                             f"{len(keys)} categories of {used!r} and no other"
                             + (f"; it lacks {_some(lacking)}" if lacking else "")
                             + (f"; {used!r} has no category {_some(unknown)}" if unknown
                                else "") + ".")
        self.table = table
        self.integer = False
        self.form, self.clock = "lookup", None
        self.width = max([len(self.format(v)) for v in table.values()] + [1])
        self._cells = {self.format(v): v for v in table.values() if v is not None}
        self._numbers = bool(self._cells) and all(map(_is_number, self._cells.values()))

    def _keys(self):
        src = self._source
        if src.form == "codes":
            return [str(i) for i in range(src.codes)]
        cats = src.entry if isinstance(src.entry, list) else src.entry["categories"]
        return [src.format(c) for c in cats]

    def compute(self, values):
        """The column's values for the looked-up column's values as written (``values``:
        name -> array; None where missing)."""
        src = self._source
        return np.array([None if v is None or v != v else self.table.get(src.format(v))
                         for v in values[self.names[0]]], dtype=object)

    def parse_held(self, cell, where="CSV"):
        """``(value, inside)`` for a non-missing cell of a file that is scored, not fitted
        (the holdout): a number where the table's values are numbers, else one of its values
        as written, or the cell itself where it is none of them (``inside`` False: a value no
        synthetic row takes)."""
        if self._numbers:
            return _parse_number(self.name, cell, where, "lookup"), True
        return (self._cells[cell], True) if cell in self._cells else (cell, False)

    def format(self, value):
        """The CSV text of a looked-up value (an empty cell for a missing one)."""
        if value is None:
            return ""
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        return value if isinstance(value, str) else repr(value) if isinstance(value, float) \
            else str(value)

    def score_entry(self):
        """How ``--holdout`` bins the column: numbers as a numeric column, else categories."""
        if self._numbers:
            return {"kind": "numeric"}
        return {"categories": list(self._cells.values())}


def _some(keys):
    return ", ".join(repr(k) for k in keys[:5]) + (f" and {len(keys) - 5} more"
                                                   if len(keys) > 5 else "")


def computed_columns(domain, header):
    """``{name: Formula or Lookup}`` for the computed entries of a domain file (in
    ``header``'s order), each checked against the file's other entries; ``{}`` for
    ``--domain private``.

    Examples
    --------
    >>> d = {"age": {"low": 16, "high": 99}, "agesq": {"formula": "age ** 2"}}
    >>> list(computed_columns(d, ["age", "agesq"]))
    ['agesq']
    """
    if not isinstance(domain, dict):
        return {}
    return {name: computed_column(name, domain[name], domain) for name in header
            if is_computed(domain.get(name))}


def computed_column(name, entry, entries):
    """A computed entry's :class:`Formula` or :class:`Lookup` (checked against ``entries``)."""
    if "formula" in entry and "lookup" in entry:
        raise ValueError(f"column {name!r}: an entry has \"formula\" or \"lookup\", not both.")
    return (Formula if "formula" in entry else Lookup)(name, entry, entries)


def _numeric(col):
    """Whether a column's synthetic values are numbers (``col``: its CsvCells)."""
    if col.form != "categories":
        return col.form in ("bounds", "codes", "numeric")
    cats = col.entry if isinstance(col.entry, list) else col.entry["categories"]
    return all(map(_is_number, cats))
