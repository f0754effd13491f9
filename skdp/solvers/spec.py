"""The solver contract: one spec per solver, one result type, options checked against the spec.

Every estimator keeps one registry, a dict from solver name to
:class:`SolverSpec`. A spec says what the solver is (family, paper and
theorem, how it splits its budget, whether it streams, which backends run it)
and which ``solver_options`` it accepts, each an :class:`Option` with its
type, default and range. The estimator validates a user's ``solver_options``
with :meth:`SolverSpec.check_options` before any data is read: an unknown key
or a value of the wrong type or range raises ``ValueError`` naming the valid
choices. What an estimator decides by solver (which run on Dask, which the
``auto`` rule may pick, which fit a loss, a model or a neighbouring relation,
which stream, which release a graphical model, which publish extra fitted
attributes) is a fact of the spec, queried with :func:`solvers_with` and
:func:`choices_with`: no list of solver names lives outside the registries. The
docs' solver tables are generated from the registries (:func:`solver_table`), so
they cannot drift from the code. Every solver of an estimator is called the same
way, ``spec.fn(problem, budget, options)`` (``budget`` a
:class:`~skdp.privacy.budget.Budget`), and returns a :class:`SolverResult`.
"""

from dataclasses import dataclass, field
import importlib
from numbers import Integral, Real
import warnings

__all__ = ["Option", "SolverSpec", "SolverResult", "SolverRef", "AutoFrom", "solver_table",
           "solvers_with", "auto_solvers", "auto_by_size", "choices_with", "deprecated_names"]


@dataclass(frozen=True)
class Option:
    """One accepted key of ``solver_options``.

    Parameters
    ----------
    name : str
    kind : {'int', 'float', 'bool', 'str'}
        Type of the value (an int is accepted where a float is expected).
    default : object
        Value used when the key is absent (``None``: the solver's own rule,
        described in ``doc``).
    low, high : float, default=None
        Closed bounds of a numeric value.
    choices : tuple, default=None
        Allowed values of a string option.
    low_open, high_open : bool, default=False
        The bound is excluded (``value > low``, ``value < high``).
    doc : str, default=''
        One line for the docs' tables.
    none_ok : bool, default=False
        ``None`` is accepted (the solver's own rule).
    """

    name: str
    kind: str
    default: object = None
    low: float | None = None
    high: float | None = None
    choices: tuple | None = None
    low_open: bool = False
    high_open: bool = False
    doc: str = ""
    none_ok: bool = False

    def check(self, value, solver):
        """``value`` checked against the option's type and range; raises ``ValueError``."""
        where = f"solver_options[{self.name!r}] of solver={solver!r}"
        if value is None and (self.none_ok or self.default is None):
            return value
        if not _is_kind(value, self.kind):
            raise ValueError(f"{where} must be {_KIND_WORDS[self.kind]}, got {value!r}.")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{where} must be one of {list(self.choices)}, got {value!r}.")
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            raise ValueError(f"{where} must be {'>' if self.low_open else '>='} {self.low}, "
                             f"got {value!r}.")
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            raise ValueError(f"{where} must be {'<' if self.high_open else '<='} {self.high}, "
                             f"got {value!r}.")
        return float(value) if self.kind == "float" else value

    def describe(self):
        """The option as one line of a table: type, range and default."""
        rng = ""
        if self.choices is not None:
            rng = " in {" + ", ".join(map(str, self.choices)) + "}"
        elif self.low is not None or self.high is not None:
            lo = "(" if self.low_open or self.low is None else "["
            hi = ")" if self.high_open or self.high is None else "]"
            rng = (f" in {lo}{'-inf' if self.low is None else self.low}, "
                   f"{'inf' if self.high is None else self.high}{hi}")
        return f"{self.kind}{rng}, default {self.default!r}"


_KIND_WORDS = {"int": "an integer", "float": "a real number", "bool": "a boolean",
               "str": "a string"}


def _is_kind(value, kind):
    if isinstance(value, bool):
        return kind == "bool"
    if kind == "int":
        return isinstance(value, Integral)
    if kind == "float":
        return isinstance(value, Real)
    if kind == "str":
        return isinstance(value, str)
    return False


@dataclass(frozen=True)
class AutoFrom:
    """Where an estimator's ``solver='auto'`` runs a solver instead of its full-pass one, by
    the public shape of ``X`` (issue 31): from ``rows`` rows, or from ``size`` cells
    (``n_samples * n_features``), whichever comes first.

    The full-pass solvers (the regressor's ``adaptive_gd``, the classifier's ``noisy_gd``)
    read every row at each of up to ``T`` steps (2,000, resp. 200), so their cost is
    ``passes x n x d``, and their number of passes grows with ``n`` (the noise of a step
    falls as ``1/n``, so a fixed budget buys more steps); a subsampled solver reads about 4
    passes in all. ``rows``: where the subsampled solver stops losing accuracy on the
    real-table suite (below it, the noise of a subsampled step is too large for the
    signal); ``size``: where the full passes cost too much whatever ``n``. Both measured in
    ``benchmarks/RESULTS.md``.

    Examples
    --------
    >>> rule = AutoFrom(rows=50_000, size=1e7)
    >>> rule.applies(49_999, 49_999 * 3), rule.applies(50_000, 150_000), rule.applies(20_000, 2e7)
    (False, True, True)
    """

    rows: float = float("inf")
    size: float = float("inf")

    def applies(self, rows, size):
        """Whether ``X`` of ``rows`` rows and ``size = rows * n_features`` cells (public) is at
        or above either threshold."""
        return rows >= self.rows or size >= self.size


@dataclass(frozen=True)
class SolverSpec:
    """What a solver is and what it accepts.

    Parameters
    ----------
    name : str
        Registry key (the estimator's ``solver`` value).
    fn : callable
        ``fn(problem, budget, options) -> SolverResult``.
    family : str
        Solver subpackage (``'minimax'``, ``'kl'``, ``'synth'``,
        ``'streaming'``, ``'goldstein'``).
    paper : str
        Paper and algorithm/theorem it implements (``'002 Alg. 1, Thm 3.1'``).
    budget : str
        How it splits its budget, in one line.
    options : tuple of Option
        The ``solver_options`` keys it accepts.
    streaming : bool, default=False
        Single pass, continued by ``partial_fit``.
    backends : tuple of str, default=('numpy', 'array_api')
        Where it runs: ``'numpy'`` and/or ``'array_api'`` (CuPy, PyTorch, array-api-strict;
        checked by ``tests/solvers/test_solvers.py`` and ``tests/solvers/test_torch.py``).
    dask : bool, default=False
        It fits a Dask collection: each data pass one reduction over the
        partitions (batch solvers), or chunk after chunk on the client
        (streaming solvers).
    auto : bool, default=False
        The estimator's ``solver='auto'`` rule may pick it (the rule itself,
        on public quantities, stays in the estimator: ``resolve_solver``).
        ``'auto'`` has a fact (runs on Dask, fits ``add_remove``) when every
        solver the rule may pick has it (:func:`choices_with`).
    auto_from : AutoFrom or None, default=None
        The shapes of ``X`` from which ``'auto'`` picks it over the estimator's
        full-pass solver on a private fit (:func:`auto_by_size`; the estimator's
        ``resolve_solver`` reads it). None: not by size.
    gaussian : bool, default=False
        Every release is Gaussian and composed in a Gaussian-DP filter, so the
        estimator converts its budget to ``mu``-GDP exactly (Dong–Roth–Su
        2022, Cor. 2.13; the regressor's ``fit_budget``) instead of to zCDP.
        Only the regressor reads it: the classifier calibrates every solver
        on its own (``remaining_gdp``).
    losses : tuple of str, default=None
        The ``loss`` values it fits (None: every loss of the estimator).
    models : tuple of str, default=None
        The ``model`` values it fits (None: every model of the estimator).
    neighbourings : tuple of str, default=('replace_one',)
        The neighbouring relations its guarantee holds under.
    graphical_model : bool, default=False
        It releases a graphical model (``model_``, ``cliques_``) instead of a
        dense histogram (the synthesizer).
    info_attributes : tuple of (str, str), default=()
        ``(attribute, key)``: the fitted attribute the estimator sets from
        ``result.info[key]`` (public: computed from released values and
        public parameters), e.g. paper 001's certificate.

    Examples
    --------
    >>> spec = SolverSpec("gd", fn=None, family="kl", paper="004 Alg. 1",
    ...                   budget="T equal Gaussian steps",
    ...                   options=(Option("n_iter", "int", 10, low=1),))
    >>> spec.check_options({"n_iter": 5})
    {'n_iter': 5}
    >>> spec.check_options({"n_itr": 5})
    Traceback (most recent call last):
    ...
    ValueError: unknown option 'n_itr' in solver_options of solver='gd'; valid keys: ['n_iter'].
    """

    name: str
    fn: object
    family: str
    paper: str
    budget: str
    options: tuple = ()
    streaming: bool = False
    backends: tuple = ("numpy", "array_api")
    dask: bool = False
    auto: bool = False
    auto_from: AutoFrom | None = None
    gaussian: bool = False
    losses: tuple | None = None
    models: tuple | None = None
    neighbourings: tuple = ("replace_one",)
    graphical_model: bool = False
    info_attributes: tuple = ()

    @property
    def option_names(self):
        return sorted(o.name for o in self.options)

    def has(self, **facts):
        """Whether the spec has every fact: ``field=value`` for a field, or ``loss``,
        ``model``, ``neighbouring``, ``backend`` for a value of its tuple (None: any).

        Examples
        --------
        >>> spec = SolverSpec("gd", fn=None, family="kl", paper="004", budget="T steps",
        ...                   dask=True, losses=("squared",))
        >>> spec.has(dask=True, loss="squared"), spec.has(loss="huber"), spec.has(model="mlp")
        (True, False, True)
        """
        for key, value in facts.items():
            if key in _MEMBERSHIP:
                allowed = getattr(self, _MEMBERSHIP[key])
                if allowed is not None and value not in allowed:
                    return False
            elif key not in _FACTS:
                raise TypeError(f"unknown solver fact {key!r}; valid: "
                                f"{sorted(_FACTS | set(_MEMBERSHIP))}.")
            elif getattr(self, key) != value:
                return False
        return True

    def check_options(self, options):
        """The user's ``solver_options`` checked against the spec (only the keys given).

        Raises ``ValueError`` for an unknown key (naming the valid ones) and for
        a value of the wrong type or range.
        """
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ValueError(f"solver_options must be a dict or None, got {options!r}.")
        by_name = {o.name: o for o in self.options}
        out = {}
        for key, value in options.items():
            if key not in by_name:
                raise ValueError(f"unknown option {key!r} in solver_options of "
                                 f"solver={self.name!r}; valid keys: {self.option_names}.")
            out[key] = by_name[key].check(value, self.name)
        return out

    def resolve_options(self, options):
        """:meth:`check_options`, completed with the defaults of the keys not given."""
        given = self.check_options(options)
        return {o.name: given.get(o.name, o.default) for o in self.options}


_MEMBERSHIP = {"loss": "losses", "model": "models", "neighbouring": "neighbourings",
               "backend": "backends"}
_FACTS = {"family", "streaming", "dask", "auto", "gaussian", "graphical_model"}


def solvers_with(specs, **facts):
    """The names of the solvers of a registry with every fact (:meth:`SolverSpec.has`),
    in registry order.

    Examples
    --------
    >>> specs = {n: SolverSpec(n, None, "kl", "004", "b", dask=d, auto=a)
    ...          for n, d, a in [("a", True, True), ("b", False, True), ("c", True, False)]}
    >>> solvers_with(specs, dask=True), solvers_with(specs, auto=True, dask=True)
    (('a', 'c'), ('a',))
    """
    return tuple(name for name, spec in specs.items() if spec.has(**facts))


def auto_solvers(specs, **context):
    """The solvers ``solver='auto'`` may pick, in a context (``loss=``, ``model=``...)."""
    return solvers_with(specs, auto=True, **context)


def auto_by_size(specs, rows, size, **context):
    """The solver ``'auto'`` picks by the public shape of ``X`` (its spec's
    :class:`AutoFrom` applies), or None: the estimator's rule goes on by its other facts.

    Examples
    --------
    >>> specs = {"gd": SolverSpec("gd", None, "kl", "004", "b", auto=True),
    ...          "sgd": SolverSpec("sgd", None, "kl", "A16", "b", auto=True,
    ...                            auto_from=AutoFrom(rows=50_000, size=1e7))}
    >>> auto_by_size(specs, 1000, 1000 * 30), auto_by_size(specs, 10**6, 3 * 10**6)
    (None, 'sgd')
    """
    for name in auto_solvers(specs, **context):
        rule = specs[name].auto_from
        if rule is not None and rule.applies(rows, size):
            return name
    return None


def choices_with(specs, context=None, **facts):
    """The ``solver`` values with the facts in a context: :func:`solvers_with`, preceded by
    ``'auto'`` when every solver the ``auto`` rule may pick there has them.

    Examples
    --------
    >>> specs = {n: SolverSpec(n, None, "kl", "004", "b", dask=d, auto=a)
    ...          for n, d, a in [("a", True, True), ("b", False, True), ("c", True, False)]}
    >>> choices_with(specs, dask=True)  # 'b' may be picked and does not run on Dask
    ('a', 'c')
    >>> choices_with({n: s for n, s in specs.items() if n != "b"}, dask=True)
    ('auto', 'a', 'c')
    """
    context = context or {}
    picks = auto_solvers(specs, **context)
    auto = picks and all(specs[name].has(**facts) for name in picks)
    return ("auto",) * bool(auto) + solvers_with(specs, **context, **facts)


class SolverRef:
    """A solver function named by its module and attribute, imported on its first call.

    A registry of such references imports none of its solvers' dependencies,
    so the command line's ``--help`` lists the synthesizer's solvers from its
    specs without loading SciPy or scikit-learn.

    Examples
    --------
    >>> ref = SolverRef("math", "hypot")
    >>> ref.__name__, ref(3.0, 4.0)
    ('hypot', 5.0)
    """

    def __init__(self, module, name):
        self.module, self.__name__ = module, name

    def resolve(self):
        return getattr(importlib.import_module(self.module), self.__name__)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self):
        return f"SolverRef({self.module!r}, {self.__name__!r})"


def deprecated_names(module, names):
    """A module ``__getattr__`` serving old names with a ``FutureWarning``.

    ``names``: ``{old name: (value function, what to use instead)}``; each
    access computes the value from the registry.

    Examples
    --------
    >>> getattr_ = deprecated_names("mod", {"OLD": (lambda: (1, 2), "NEW")})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = getattr_("OLD")
    >>> value, caught[0].category.__name__
    ((1, 2), 'FutureWarning')
    """

    def __getattr__(name):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value, instead = names[name]
        warnings.warn(f"{module}.{name} is deprecated and will be removed; use {instead} "
                      "(the solvers' facts live in their SolverSpec).", FutureWarning,
                      stacklevel=2)
        return value()

    return __getattr__


@dataclass
class SolverResult:
    """What every solver returns.

    Parameters
    ----------
    solution : object
        The released point: ``(coef, intercept)`` arrays of a classifier,
        the parameter vector of a regressor, the histogram of a synthesizer.
    n_iter : int
        Steps run.
    history : list, default=[]
        Per-step log (noise scale, cost, ...).
    info : dict, default={}
        Solver-specific diagnostics (all public: computed from released values
        and public parameters).
    state : object, default=None
        Streaming solvers: what ``partial_fit`` continues (secret: holds the
        noise generator).
    """

    solution: object
    n_iter: int
    history: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    state: object = None


def _auto_from_words(rule):
    """`` from n >= 50000 or n d >= 1e+07``: an :class:`AutoFrom` in a table's words."""
    words = [f"n >= {rule.rows:g}" if rule.rows != float("inf") else "",
             f"n d >= {rule.size:g}" if rule.size != float("inf") else ""]
    return " from " + " or ".join(w for w in words if w)


def solver_table(registry):
    """A reStructuredText table of a registry: name (with its facts streaming, Dask, picked
    by ``auto``), family, paper, budget, options.

    Examples
    --------
    >>> spec = SolverSpec("gd", fn=None, family="kl", paper="004 Alg. 1", budget="T steps",
    ...                   options=(Option("n_iter", "int", 10, low=1, doc="steps"),))
    >>> print(solver_table({"gd": spec}).splitlines()[1])
       :header-rows: 1
    """
    rows = [("solver", "family", "paper", "budget", "options")]
    for name, spec in registry.items():
        opts = "; ".join(f"``{o.name}`` ({o.describe()})" for o in spec.options) or "none"
        picked = "picked by auto" + (_auto_from_words(spec.auto_from) if spec.auto_from else "")
        flags = [word for word, on in (("streaming", spec.streaming), ("Dask", spec.dask),
                                       (picked, spec.auto)) if on]
        flags = f" ({', '.join(flags)})" if flags else ""
        rows.append((f"``{name}``{flags}", spec.family, spec.paper, spec.budget, opts))
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 12 8 18 30 32", ""]
    for row in rows:
        lines.append("   * - " + row[0])
        lines.extend("     - " + cell for cell in row[1:])
    return "\n".join(lines) + "\n"
