"""Date and timestamp columns of the command line: ISO cells as the estimator's integers.

A domain entry ``{"low": "2015-11-01", "high": "2016-11-08", "date": true}`` reads ISO
dates as days from 1970-01-01; ``{"low": "2012-01-01T00:00:00Z", "high":
"2012-12-31T23:59:59Z", "datetime": true}`` reads ISO timestamps (a date and a time of
day) as whole seconds from 1970-01-01T00:00:00. Either is an integer column on public
bounds for the estimator, and its synthetic values are written back in the same ISO form.
The origin is public; the bounds are the domain file's.

Dates and timestamps written otherwise (``1/31/2002``, ``31.01.2002 14:05``) take a
``"format"`` (a :func:`~datetime.datetime.strptime` format such as ``"%m/%d/%Y"``, without
a time zone): the cells and the bounds are read with it and the synthetic values written
with it (:meth:`~datetime.datetime.strftime`: months and days zero-padded). A format that
writes no date (times of day, ``"%H:%M:%S"``) counts seconds from midnight.

With ``"kind": "numeric"`` in place of the bounds (``{"kind": "numeric", "date": true}``),
the estimator finds the bounds privately; such a timestamp column has no time zone.

A timestamp with a time zone (``Z``, ``+01:00``) is read as the UTC instant it names;
one without is read as written. The bounds say which a column holds, and its cells must
agree with them; synthetic timestamps are written with the low bound's separator (``T``
or a space) and, for a zoned column, in UTC with its ``Z`` or ``+00:00``. A fraction of
a second is rounded to the second (the column's resolution).
"""

import datetime
import re

__all__ = ["TIME_KEYS", "Clock", "clock_format", "date_format", "instant", "is_date",
           "kind_spelling", "time_key", "time_span"]

TIME_KEYS = ("date", "datetime")
"""The entry keys of a date (days) and a timestamp (seconds) column."""

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=datetime.timezone.utc)


def is_date(cell):
    """Whether a cell spells an ISO date, ``YYYY-MM-DD`` (no time of day).

    Examples
    --------
    >>> is_date("2016-11-08"), is_date("2016-11-08T06:00:42Z"), is_date("8/11/2016")
    (True, False, False)
    """
    return _date(cell) is not None


def time_key(entry):
    """``"date"``, ``"datetime"`` or None: which ISO column a domain entry describes.

    Examples
    --------
    >>> time_key({"low": "2015-11-01", "high": "2016-11-08", "date": True})
    'date'
    >>> time_key({"low": 0, "high": 9}), time_key(["a"])
    (None, None)
    """
    if not isinstance(entry, dict):
        return None
    keys = [k for k in TIME_KEYS if entry.get(k) is True]
    return keys[0] if keys else None


def time_span(cells):
    """``(key, first, last, format, ambiguous)`` of non-missing cells that are all ISO dates
    (``"date"``), all ISO timestamps, every one with a time zone or none (``"datetime"``),
    all dates in one of the forms of :func:`date_format` (``"date"`` and that format), or all
    times of day (:func:`clock_format`: ``"datetime"`` and that format): the key of their
    entry, the cells of the first and last day or instant (read from the data: the caller
    says so), the entry's ``"format"`` (None: ISO) and whether day and month could not be
    told apart (:func:`date_format`); None otherwise. Each distinct cell is read once.

    Examples
    --------
    >>> time_span(["2016-11-08", "2015-11-06"])
    ('date', '2015-11-06', '2016-11-08', None, False)
    >>> time_span(["2012-01-01T06:16:41Z", "2011-12-31T23:59:02Z"])
    ('datetime', '2011-12-31T23:59:02Z', '2012-01-01T06:16:41Z', None, False)
    >>> time_span(["12/1/2015", "1/30/2016"])
    ('date', '12/1/2015', '1/30/2016', '%m/%d/%Y', False)
    >>> time_span(["02:55:10", "2:31:38"])
    ('datetime', '2:31:38', '02:55:10', '%H:%M:%S', False)
    >>> time_span(["2012-01-01T06:16:41Z", "2012-01-01T06:16:41"]), time_span(["a"])
    (None, None)
    """
    distinct = set(cells)
    if distinct and all(map(is_date, distinct)):
        return "date", min(distinct), max(distinct), None, False
    found = _dates(distinct)
    if found is not None:
        key, fmt, ambiguous, parsed = found
        return (key, *_ends(parsed), fmt, ambiguous)
    found = _clocks(distinct)
    if found is not None:
        fmt, parsed = found
        return ("datetime", *_ends(parsed), fmt, False)
    instants = {c: instant(c) for c in distinct}
    if not distinct or None in instants.values() or \
            len({t.tzinfo is None for t in instants.values()}) != 1:
        return None
    return ("datetime", *_ends(instants), None, False)


def kind_spelling(cells):
    """``(key, format)`` of the entry ``{"kind": "numeric", key: true[, "format": format]}``
    for non-missing cells that :func:`time_span` reads (bounds found privately), None
    otherwise. ISO timestamps written with a space, or in UTC with a ``Z`` (R writes them
    so), get the format that writes them back so (a literal ``Z``: whole seconds of UTC);
    other zoned ISO timestamps (``+01:00``, fractions of a second with ``Z``) return None (a
    zone is read from the bounds).

    Examples
    --------
    >>> kind_spelling(["2016-11-08"]), kind_spelling(["2016-11-08 10:00:00"])
    (('date', None), ('datetime', '%Y-%m-%d %H:%M:%S'))
    >>> kind_spelling(["2013-04-17T00:00:00Z"])
    ('datetime', '%Y-%m-%dT%H:%M:%SZ')
    >>> kind_spelling(["2016-11-08T10:00:00+01:00"]), kind_spelling(["soon"])
    (None, None)
    """
    span = time_span(cells)
    if span is None:
        return None
    key, first, _, fmt, _ = span
    if key == "datetime" and fmt is None:
        zoned = instant(first).tzinfo is not None
        # written back as read: a space for ISO's "T"; UTC's "Z" as a literal of the format
        spelled = first[10] + ("Z" if zoned else "")
        written = _ISO_WRITTEN.get(spelled)
        if written is not None and _parsed(set(cells), written) is not None:
            fmt = written
        elif zoned:
            return None
    return key, fmt


_ISO_WRITTEN = {" ": "%Y-%m-%d %H:%M:%S", " Z": "%Y-%m-%d %H:%M:%SZ",
                "TZ": "%Y-%m-%dT%H:%M:%SZ"}
"""Formats that write ISO timestamps back as a column of them was written (the ``"T"``
without a zone is ISO's own)."""


def _ends(parsed):
    """The cells of the first and last value of ``{cell: value}`` (ties: the first cell)."""
    order = sorted((v, c) for c, v in parsed.items())
    return order[0][1], order[-1][1]


def _parsed(distinct, fmt):
    """``{cell: datetime}`` of cells that all parse with ``fmt``, else None."""
    try:
        return {c: datetime.datetime.strptime(c, fmt) for c in distinct}
    except ValueError:  # a 30th of February, hour 24
        return None


_CLOCK = re.compile(r"\d{1,2}:\d{2}(:\d{2})?")


def clock_format(cells):
    """``"%H:%M:%S"`` or ``"%H:%M"`` for non-missing cells that are all times of day (or
    durations under a day) written so, hours 0-23; None otherwise (a duration of 38 hours
    has no clock format).

    Examples
    --------
    >>> clock_format(["2:55:10", "11:38:36"]), clock_format(["7:05"]), clock_format(["38:31:00"])
    ('%H:%M:%S', '%H:%M', None)
    """
    found = _clocks(set(cells))
    return None if found is None else found[0]


def _clocks(distinct):
    """``(format, {cell: datetime})`` of :func:`clock_format`, else None."""
    parts = [_CLOCK.fullmatch(c) if isinstance(c, str) else None for c in distinct]
    if not parts or None in parts or len({m.group(1) is None for m in parts}) != 1:
        return None
    fmt = "%H:%M" if parts[0].group(1) is None else "%H:%M:%S"
    parsed = _parsed(distinct, fmt)
    return None if parsed is None else (fmt, parsed)


_WRITTEN = re.compile(r"(?:(\d{1,2})([/.-])(\d{1,2})\2(\d{4})|(\d{4})([/.-])(\d{1,2})\6(\d{1,2}))"
                      r"(?: (\d{1,2}:\d{2}(?::\d{2})?))?")


def date_format(cells):
    """``(format, ambiguous)`` of non-missing cells that are all dates written with a
    four-digit year, the day and the month (one or two digits) and one separator (``/``,
    ``.`` or ``-``): day and month first (``"%d.%m.%Y"``, ``"%m/%d/%Y"``) or the year first
    (``"%Y/%m/%d"``), each optionally followed by a time of day (:func:`_dates`); None
    otherwise. Day and month are told apart by a cell whose first or
    second number is above 12; where none is, the order is ``ambiguous`` and taken as the
    separator's custom (month first with ``/``, day first with ``.`` and ``-``).

    Examples
    --------
    >>> date_format(["25.12.2015", "1.2.2016"]), date_format(["1/2/2016"])
    (('%d.%m.%Y', False), ('%m/%d/%Y', True))
    >>> date_format(["2015/12/25"]), date_format(["2016-11-08"]), date_format(["13/13/2016"])
    (('%Y/%m/%d', False), ('%Y-%m-%d', False), None)
    >>> date_format(["11/29/1996 0:00:00"]), date_format(["11/29/1996 14:05"])
    (('%m/%d/%Y 0:00:00', False), ('%m/%d/%Y %H:%M', False))
    """
    found = _dates(set(cells))
    return None if found is None else found[1:3]


def _dates(distinct):
    """``(key, format, ambiguous, {cell: datetime})`` of :func:`date_format`, else None:
    the key ``"date"``, or ``"datetime"`` where the cells add a time of day (``H:MM`` or
    ``H:MM:SS``, every cell alike); a time of day that is midnight in every cell, written
    alike, is a date whose format writes that time as it is (``"%m/%d/%Y 0:00:00"``)."""
    parts = [_WRITTEN.fullmatch(c) if isinstance(c, str) else None for c in distinct]
    if not parts or None in parts:
        return None
    times = {m.group(9) for m in parts}
    if (None in times and len(times) > 1) or len({t.count(":") for t in times - {None}}) > 1:
        return None  # a time of day in some cells only, or with seconds in some only
    seps = {m.group(2) or m.group(6) for m in parts}
    years_first = {m.group(5) is not None for m in parts}
    if len(seps) != 1 or len(years_first) != 1:
        return None
    sep = seps.pop()
    if years_first == {True} and sep == "-" and times != {None}:
        return None  # ISO timestamps (a space for the "T"): read by instant()
    if years_first.pop():
        fmt, ambiguous = f"%Y{sep}%m{sep}%d", False
    else:
        day_first = any(int(m.group(1)) > 12 for m in parts)
        month_first = any(int(m.group(3)) > 12 for m in parts)
        if day_first and month_first:
            return None
        ambiguous = not (day_first or month_first)
        if month_first or (ambiguous and sep == "/"):
            fmt = f"%m{sep}%d{sep}%Y"
        else:
            fmt = f"%d{sep}%m{sep}%Y"
    key, time = "date", min(times - {None}, default=None)
    if time is not None and len(times) == 1 and not time.strip("0:"):
        fmt += f" {time}"  # midnight in every cell, written alike: a date, its time as written
    elif time is not None:
        key, fmt = "datetime", fmt + (" %H:%M:%S" if time.count(":") == 2 else " %H:%M")
    parsed = _parsed(distinct, fmt)
    return None if parsed is None else (key, fmt, ambiguous, parsed)


def _date(cell):
    if not isinstance(cell, str) or len(cell) != 10:
        return None
    try:
        return datetime.date.fromisoformat(cell)
    except ValueError:
        return None


def instant(cell):
    """The datetime an ISO timestamp spells, else None: ``YYYY-MM-DD``, ``T`` or a space, a
    time of day (``HH:MM``, seconds and their fraction optional), and optionally ``Z`` (UTC)
    or an offset.

    Examples
    --------
    >>> instant("2012-01-01T06:16:41Z")
    datetime.datetime(2012, 1, 1, 6, 16, 41, tzinfo=datetime.timezone.utc)
    >>> instant("2012-01-01 06:16"), instant("2012-01-01"), instant("06:16:41")
    (datetime.datetime(2012, 1, 1, 6, 16), None, None)
    """
    if not isinstance(cell, str) or len(cell) < 16 or cell[10] not in "T ":
        return None
    text = cell[:-1] + "+00:00" if cell.endswith("Z") else cell
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None


def _origin(fmt):
    """The day or instant a column's integers count from: 1970-01-01, or for a ``"format"``
    that writes no date (times of day, ``"%H:%M"``) the day :func:`~datetime.datetime.strptime`
    puts such cells on (1900-01-01), so that times of day are seconds from midnight.

    Examples
    --------
    >>> _origin("%m/%d/%Y"), _origin("%H:%M")
    (datetime.datetime(1970, 1, 1, 0, 0), datetime.datetime(1900, 1, 1, 0, 0))
    """
    if fmt is None:
        return _EPOCH
    return datetime.datetime.strptime(_EPOCH.strftime(fmt), fmt)


class Clock:
    """How the cells of a date or timestamp column map to integers and back (public).

    Parameters
    ----------
    name : str
        Column name (for errors).
    entry : dict
        Its domain entry, with ``"date": true`` or ``"datetime": true``.

    Examples
    --------
    >>> c = Clock("t", {"low": "2012-01-01 00:00:00", "high": "2012-12-31 23:59:59",
    ...                 "datetime": True})
    >>> c.bounds()
    (1325376000, 1356998399)
    >>> c.value("2012-01-01 06:16:41", "line 2"), c.format(1325398601.4)
    (1325398601, '2012-01-01 06:16:41')
    >>> Clock("d", {"low": "1970-01-02", "high": "1970-02-01", "date": True}).bounds()
    (1, 31)
    >>> us = Clock("d", {"low": "1/2/1970", "high": "2/1/1970", "date": True,
    ...                  "format": "%m/%d/%Y"})
    >>> us.bounds(), us.value("1/31/1970", "line 2"), us.format(30)
    ((1, 31), 30, '01/31/1970')
    """

    def __init__(self, name, entry):
        self.name = name
        self.key = time_key(entry)
        if [k for k in TIME_KEYS if entry.get(k) is True] != [self.key]:
            raise ValueError(f"column {name!r} says both \"date\" and \"datetime\": a date "
                             "column holds days, a datetime column seconds; keep one.")
        self.fmt = self._format(entry.get("format"))
        self.origin = _origin(self.fmt)
        if entry.get("integer", True) is not True:
            raise ValueError(f"column {name!r} is a {self.key} column: its values are whole "
                             f"{self._unit()}s, it cannot say \"integer\": false.")
        if entry.get("kind") == "numeric" and "low" not in entry and "high" not in entry:
            # the kind public, the bounds found privately: timestamps read as written, no zone
            self.zoned, self.separator, self.suffix = False, "T", ""
            self._low = self._high = None
            return
        if "low" not in entry or "high" not in entry:
            raise ValueError(f"column {name!r} is a {self.key} column (\"{self.key}\": true): "
                             f"it needs \"low\" and \"high\", each {self.spelling()} "
                             "known without the data, or \"kind\": \"numeric\" (its bounds "
                             "found privately).")
        low = entry["low"]
        first = instant(low) if self.key == "datetime" and self.fmt is None else None
        self.zoned = first is not None and first.tzinfo is not None
        self.separator = low[10] if first is not None else "T"
        self.suffix = ("Z" if low.endswith("Z") else "+00:00") if self.zoned else ""
        self._low = self._bound(low, "low")
        self._high = self._bound(entry["high"], "high")

    def _format(self, fmt):
        """The entry's ``"format"`` (None: ISO), checked."""
        if fmt is None:
            return None
        if not isinstance(fmt, str) or "%" not in fmt:
            raise ValueError(f"column {self.name!r}: \"format\" is a strptime format such as "
                             f"\"%m/%d/%Y\", got {fmt!r}.")
        if "%z" in fmt or "%Z" in fmt:
            raise ValueError(f"column {self.name!r}: a \"format\" cannot hold a time zone "
                             "(%z, %Z); write zoned timestamps as ISO (no \"format\").")
        try:
            datetime.datetime(2001, 2, 3, 4, 5, 6).strftime(fmt)
        except ValueError:
            raise ValueError(f"column {self.name!r}: \"format\" {fmt!r} is not a strptime "
                             "format.") from None
        return fmt

    def _unit(self):
        return "day" if self.key == "date" else "second"

    def spelling(self):
        """How the column's cells are written, with its article (``"an ISO date"``, ``"a date
        in the format '%m/%d/%Y'"``)."""
        if self.fmt is not None:
            return f"a {'date' if self.key == 'date' else 'timestamp'} in the format {self.fmt!r}"
        return "an ISO date" if self.key == "date" else "an ISO timestamp"

    def _bound(self, text, key):
        value = self._parse(text) if isinstance(text, str) else None
        if value is None:
            form = "" if self.fmt is not None else " \"YYYY-MM-DD\"" if self.key == "date" \
                else " \"YYYY-MM-DDTHH:MM:SS\" (a space for T, Z or an offset allowed)"
            raise ValueError(f"column {self.name!r} is a {self.key} column (\"{self.key}\": "
                             f"true): its {key!r} must be {self.spelling()}{form}, got "
                             f"{text!r}.")
        if value == "zone":
            raise ValueError(f"column {self.name!r}: its \"low\" and \"high\" must both carry a "
                             "time zone or neither.")
        return value

    def _parse(self, cell):
        """The integer a cell spells; ``"zone"`` for a timestamp whose zone disagrees with
        the low bound's; None for another spelling."""
        if self.fmt is not None:
            try:
                t = datetime.datetime.strptime(cell, self.fmt)
            except ValueError:
                return None
            if self.key == "date":
                return (t.date() - self.origin.date()).days
            return round((t - self.origin).total_seconds())
        if self.key == "date":
            day = _date(cell)
            return None if day is None else (day - _EPOCH.date()).days
        t = instant(cell)
        if t is None:
            return None
        if (t.tzinfo is not None) != self.zoned:
            return "zone"
        return round(((t - _EPOCH_UTC) if self.zoned else (t - _EPOCH)).total_seconds())

    def read(self, text):
        """The integer a text spells in the column's form, else None (a forbid's value)."""
        value = self._parse(text)
        return None if value == "zone" else value

    def bounds(self):
        """``(low, high)`` as the estimator's integers (None, None with ``"kind": "numeric"``:
        found privately)."""
        return self._low, self._high

    def value(self, cell, where):
        """The integer of a non-missing cell (``where`` locates it in errors)."""
        value = self._parse(cell)
        if value == "zone":
            has = "has none" if self.zoned else "has one"
            why = "its bounds say so" if self._low is not None else \
                "a \"kind\" entry's timestamps have none"
            raise ValueError(f"{where}: column {self.name!r} holds timestamps "
                             f"{'with' if self.zoned else 'without'} a time zone ({why}) but "
                             f"the cell {has}.")
        if value is None:
            raise ValueError(f"{where}: column {self.name!r} is a {self.key} column in the "
                             f"domain but the cell is not {self.spelling()} (list other "
                             "spellings of a missing cell in --na-values).")
        return value

    def format(self, value):
        """The text of a synthetic value (days or seconds from the origin): ISO, or in the
        entry's ``"format"``."""
        step = datetime.timedelta(**{f"{self._unit()}s": int(round(float(value)))})
        if self.fmt is not None:
            return (self.origin + step).strftime(self.fmt)
        if self.key == "date":
            return (_EPOCH.date() + step).isoformat()
        return (_EPOCH + step).strftime(f"%Y-%m-%d{self.separator}%H:%M:%S") + self.suffix
