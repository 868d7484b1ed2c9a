"""``dperm run ALGORITHM DATA`` (configure, then run) and ``dperm calibrate ALGORITHM`` (configure only).

::

    dperm run bst14.alg_1 mydata.csv --loss Hinge feature_norm=1 --domain L2Ball radius=1 dim=3 \\
          --epsilon 1 --delta 1e-5 --schedule lipschitz [--runs R] [--seed S] [--vector OUT.json] [--json]
    dperm calibrate bst14.alg_1 --n 569 --loss Hinge feature_norm=1 --domain L2Ball radius=1 dim=3 \\
          --epsilon 1 --delta 1e-5 --schedule lipschitz          # the configuration table, no data
    dperm run --config run.toml            # the same settings from a TOML or JSON file
    dperm run --list                       # every algorithm, loss and domain, with what each takes
    dperm run bst14.alg_1 --help           # that algorithm's parameters, with their meanings

``ALGORITHM`` is an algorithm record id: a key of ``reference.<paper>.BOXES`` (the configured
boxes of :mod:`reference.configured`), including papers added later. ``DATA`` is a CSV file
(numbers, one record per row, an optional header line) or a ``.npy`` array of shape ``(n, k)``;
rows of supervised losses are ``x_1, ..., x_p, y``.

Losses, domains and regularisers have one syntax: ``--loss NAME KEY=VALUE ...`` (values are JSON:
``lower=[-1,-1]``), or one JSON object with the keywords beside the name, ``--regulariser
'{"name": "L2Regulariser", "strength": 0.1}'`` (the same spelling in a config file). A box that
handles a regulariser by its prox (wang17 Algorithms 1-2, wang19 Algorithms 1 and 3) gets it as
it is; for the others ``--regulariser`` adds it to every example (``Regularised``).

Running configures the box first, from public values only (:meth:`Configured.describe` is
printed: the noise scale, T, the step sizes, the loss constants it used with their source, the
claim and its certificate, the flags), then runs its line-tagged loop on the data. A configuration
whose claim is not proven at the given values (a printed calibration outside its validity) is
refused (exit 2) with the calibration that does hold; ``--allow-unproven`` runs it anyway and
marks the output and the vector ``unproven-claim``. A theorem default that degenerates (T = 1, a
floor that binds) is explained by a ``dperm: note:`` line on stderr. A run of more than
:data:`LONG_WORK` gradient evaluations first prints its work, then its progress and an ETA on
stderr; Ctrl-C ends it with exit status 130 and one line.

``--vector OUT.json`` records the noise tape and writes a known-answer vector from the configured
box and the tape (:func:`reference.vectors.from_run.vector_of_run`, any of the 18 boxes) that you
can replay in your own code and check with ``dperm vectors check OUT.json --outputs MINE.json``.

A config file holds the same settings (command-line options override it)::

    algorithm = "bst14.alg_1"
    data = "mydata.csv"                  # relative to the config file
    runs = 1
    seed = 7
    loss = {name = "Hinge", feature_norm = 1.0}
    domain = {name = "L2Ball", radius = 1.0, dim = 3}
    [parameters]
    epsilon = 1.0
    delta = 1e-5
    schedule = "lipschitz"
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import math
import re
import sys
import time
from pathlib import Path

from dperm.arguments import UsageError, integer, number, typed

__all__ = ["add_arguments", "algorithm_in", "execute", "calibrate_command", "is_algorithm", "load_data",
           "load_config", "build_component", "CONFIG_KEYS", "LONG_WORK"]

#: The keys of a config file.
CONFIG_KEYS = ("algorithm", "data", "loss", "domain", "regulariser", "parameters", "runs", "seed", "vector",
               "allow_unproven")

#: Rows of an output array shown in plain text (all of them are in --json and the vector).
SHOWN_RUNS = 10

#: A run of at least this many gradient evaluations prints its work first and its progress on stderr.
LONG_WORK = 2_000_000

#: Seconds between two progress lines.
PROGRESS_EVERY = 2.0

#: Keywords of ``configure`` that are not options of the box: the setting and the data's size.
SETTING = ("loss", "domain", "regulariser", "n", "dimension", "allow_unproven")

_ID_LIKE = re.compile(r"^[A-Za-z]+[0-9]*\.[A-Za-z_]*[0-9]+$")


# ------------------------------------------------------------------------------ the algorithm


def is_algorithm(token: str) -> bool:
    """Whether ``token`` names an algorithm box (read from the source: no paper is imported)."""
    from dperm.introspection import static_boxes

    return token in static_boxes()


def _unknown(token: str) -> UsageError:
    from dperm.introspection import static_boxes

    known = list(static_boxes())
    close = difflib.get_close_matches(token, known, n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}?" if close else f"it must be one of {', '.join(known)}"
    return UsageError(f"ALGORITHM ({token}) is not an algorithm record id of reference.<paper>.BOXES; {hint}")


def algorithm_in(argv: list[str]) -> str | None:
    """The algorithm named on a ``dperm run``/``calibrate`` command line (to add its options before
    parsing): the first word after the verb, else the config file's ``algorithm``.

    A first word that looks like an algorithm id (``bst14.alg1``) but is none, and is no file, is an
    error with a "did you mean" whatever options follow (UsageError).
    """
    verb_at = next((i for i, t in enumerate(argv) if not t.startswith("-")), None)
    first = argv[verb_at + 1] if verb_at is not None and verb_at + 1 < len(argv) else None
    if first is not None and not first.startswith("-"):
        if is_algorithm(first):
            return first
        if not Path(first).exists() and (_ID_LIKE.match(first) or _close_to_an_id(first)):
            raise _unknown(first)
    for i, token in enumerate(argv):
        path = token.partition("=")[2] if token.startswith("--config=") else (
            argv[i + 1] if token == "--config" and i + 1 < len(argv) else None)
        if path:
            try:
                name = load_config(path).get("algorithm")
            except Exception:  # reported when the command runs
                return None
            return name if isinstance(name, str) and is_algorithm(name) else None
    return None


def _close_to_an_id(token: str) -> bool:
    if "." not in token:
        return False
    from dperm.introspection import static_boxes

    return bool(difflib.get_close_matches(token, list(static_boxes()), n=1, cutoff=0.8))


def _sentence(text: str) -> str:
    """A help text as a whole sentence: capitalised, ending with a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def add_arguments(parser: argparse.ArgumentParser, algorithm: str | None, *, calibrate: bool = False) -> None:
    """The ``dperm run`` options (``calibrate=True``: ``dperm calibrate ALGORITHM``'s), with the
    algorithm's own options when it is known."""
    parser.add_argument("algorithm", nargs="?", metavar="ALGORITHM",
                        help="The algorithm record id, e.g. bst14.alg_1 (dperm run --list shows them).")
    if not calibrate:
        parser.add_argument("data", nargs="?", metavar="DATA",
                            help="A CSV file (one record per row, an optional header line) or a .npy array of shape "
                                 "(n, k); rows of supervised losses are x_1, ..., x_p, y.")
        parser.add_argument("--config", metavar="FILE",
                            help="A TOML or JSON file with algorithm, data, loss, domain, regulariser, parameters, "
                                 "runs, seed, vector; options given here override it.")
    else:
        parser.add_argument("--n", type=typed(integer, "--n"), metavar="INT", required=False,
                            help="The number of records the configuration is for (required; at least 2).")
        parser.add_argument("--dimension", type=typed(integer, "--dimension"), metavar="INT",
                            help="The dimension p, for boxes without a domain (the others take the domain's).")
    parser.add_argument("--loss", nargs="+", metavar=("NAME", "KEY=VALUE"),
                        help="A class of reference.losses and its keywords, e.g. --loss Hinge feature_norm=1, or one "
                             "JSON object '{\"name\": \"Hinge\", \"feature_norm\": 1}'.")
    parser.add_argument("--domain", nargs="+", metavar=("NAME", "KEY=VALUE"),
                        help="A class of reference.domains and its keywords, e.g. --domain L2Ball radius=1 dim=3 or "
                             "--domain Box lower=[-1,-1] upper=[1,1], or one JSON object.")
    parser.add_argument("--regulariser", "--regularizer", nargs="+", metavar=("NAME", "KEY=VALUE"),
                        help="A regulariser of reference.losses and its keywords, e.g. --regulariser L2Regulariser "
                             "strength=0.1, or one JSON object; boxes with a prox step use it there, the others add "
                             "it to every example.")
    parser.add_argument("--allow-unproven", action="store_true", default=None,
                        help="Run a configuration whose claim is not proven at these values (research only): the "
                             "output and the vector are marked unproven-claim.")
    if not calibrate:
        parser.add_argument("--runs", type=typed(integer, "--runs"), metavar="INT",
                            help="The number of independent runs on the same data (default 1).")
        parser.add_argument("--seed", type=typed(integer, "--seed"), metavar="INT",
                            help="The seed of the draws (by default one is drawn and printed, so that the run can be "
                                 "reproduced).")
        parser.add_argument("--vector", metavar="FILE",
                            help="Also write a known-answer vector with the recorded noise tape to FILE (check your "
                                 "implementation with dperm vectors check FILE --outputs MINE.json).")
        parser.add_argument("--progress", action="store_true",
                            help=f"Show the work and the progress on stderr even for a short run (a run of "
                                 f"{LONG_WORK:,} gradient evaluations or more always shows them).")
    parser.add_argument("--list", action="store_true",
                        help="List the algorithms (with their options), losses, domains and regularisers, and exit.")
    parser.add_argument("--json", action="store_true", help="Write machine-readable output (strict JSON, indented by 2).")
    if algorithm is None:
        return
    from dperm import introspection

    found = introspection.static_boxes()[algorithm]  # from the source: --help imports no paper
    group = parser.add_argument_group(f"options of {algorithm} ({found.module}.{found.name}.configure)")
    for p in introspection.static_parameters(algorithm, skip=SETTING):
        spellings = [p.option] + ([f"--{p.name}"] if "_" in p.name else [])
        if p.canonical:
            kind = typed(integer if p.integer else number, p.option)
            metavar = "INT" if p.integer else "X"
        else:
            kind, metavar = introspection.loose_value, "{" + ",".join(p.choices) + "}" if p.choices else "VALUE"
        text = _sentence(p.meaning or p.name.replace("_", " "))
        if p.required:
            text += " Required."
        elif "default" not in text.lower():  # the docstring may state the default already
            text += f" Default: {p.default!r}."
        group.add_argument(*spellings, dest=f"param_{p.name}", type=kind, metavar=metavar, default=None, help=text)


# ------------------------------------------------------------------------------------- inputs


def load_data(path) -> "np.ndarray":  # noqa: F821
    """A data file as a float array of shape (n, k): ``.npy``, or CSV with an optional header line."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"data ({path}) must be an existing file (CSV or .npy)")
    if path.suffix == ".npy":
        try:
            rows = np.load(path, allow_pickle=False)
        except ValueError as err:
            raise UsageError(f"data ({path}) is not a numeric .npy array: {err}") from None
        if rows.ndim == 1:
            rows = rows[:, None]
        if rows.ndim != 2 or rows.dtype.kind not in "iuf":
            raise UsageError(f"data ({path}, shape {rows.shape}, dtype {rows.dtype}) must be a numeric array of "
                             "shape (n, k)")
        return rows.astype(np.float64)
    with path.open(newline="") as fh:
        lines = [row for row in csv.reader(fh) if row and any(cell.strip() for cell in row)]
    if not lines:
        raise UsageError(f"data ({path}) is empty")
    out = []
    for number_, row in enumerate(lines, start=1):
        try:
            out.append([float(cell) for cell in row])
        except ValueError:
            if number_ == 1:  # a header line
                continue
            bad = next(c for c in row if not _is_float(c))
            raise UsageError(f"data ({path}) line {number_}: {bad.strip()!r} is not a number") from None
    widths = {len(r) for r in out}
    if len(widths) != 1:
        lengths = [len(r) for r in out]
        first = next(i for i, k in enumerate(lengths) if k != lengths[0])
        raise UsageError(f"data ({path}) rows must have the same number of columns: row {first + 1} has "
                         f"{lengths[first]}, row 1 has {lengths[0]}")
    return np.asarray(out, dtype=np.float64)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_config(path) -> dict:
    """A run's settings from a TOML (Python >= 3.11, or the tomli package) or JSON file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise UsageError(f"--config ({path}) cannot be read: {err.strerror or err}") from None
    if path.suffix == ".json":
        try:
            config = json.loads(text)
        except json.JSONDecodeError as err:
            raise UsageError(f"--config ({path}) is not JSON: line {err.lineno}: {err.msg}") from None
    else:
        try:
            import tomllib
        except ImportError:  # Python 3.10
            try:
                import tomli as tomllib
            except ImportError:
                raise UsageError(f"--config ({path}): reading TOML needs Python >= 3.11 or the tomli package; "
                                 "or write the config as JSON") from None
        try:
            config = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise UsageError(f"--config ({path}) is not TOML: {err}") from None
    if not isinstance(config, dict):
        raise UsageError(f"--config ({path}) must hold a table (object) of settings")
    unknown = [k for k in config if k not in CONFIG_KEYS]
    if unknown:
        raise UsageError(f"--config ({path}): unknown key {', '.join(map(repr, unknown))}; the keys are "
                         f"{', '.join(CONFIG_KEYS)}")
    if "data" in config:
        config["data"] = str((path.parent / str(config["data"])).resolve())
    if "vector" in config:
        config["vector"] = str((path.parent / str(config["vector"])).resolve())
    return config


def _spec_of(option: str, words: list[str] | None, config_value):
    """``--loss Hinge feature_norm=1``, ``--loss '{"name": "Hinge", "feature_norm": 1}'`` or the
    config's value as ``{"name": ..., keyword: value, ...}`` (the one spelling: keywords beside the name)."""
    from dperm.introspection import loose_value

    if words:
        if len(words) == 1 and words[0].lstrip().startswith("{"):
            try:
                value = json.loads(words[0])
            except json.JSONDecodeError as err:
                raise UsageError(f"{option} ({words[0]}) is not JSON: {err.msg}") from None
            return _flat(option, value)
        values = {"name": words[0]}
        for word in words[1:]:
            name, sep, text = word.partition("=")
            if not sep or not name:
                raise UsageError(f"{option} {words[0]}: {word!r} must look like key=value, e.g. radius=1")
            values[name] = loose_value(text)
        return values
    if config_value is None:
        return None
    return _flat(f"{option} in the config", config_value)


def _flat(where: str, value):
    if isinstance(value, str):
        return {"name": value}
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise UsageError(f"{where} ({json.dumps(value)}) must be a class name or an object with \"name\" and the "
                         "class's keywords beside it")
    nested = [k for k in ("bounds", "parameters") if isinstance(value.get(k), dict)]
    if nested:
        raise UsageError(f"{where} ({json.dumps(value)}): write the keywords beside the name, e.g. "
                         f"{{\"name\": \"{value['name']}\", ...}}, not nested under {nested[0]!r}")
    return dict(value)


def build_component(option: str, spec: dict, table: dict[str, type]):
    """The object ``{"name": N, keyword: value, ...}`` names, from the classes in ``table``."""
    from dperm import introspection

    keywords = {k: v for k, v in spec.items() if k != "name"}
    return introspection.build_named(option, {"name": spec["name"], "parameters": keywords}, table)


def _parameter_value(p, value, where: str):
    """A config value checked against the parameter's kind (canonical names are numbers)."""
    if not p.canonical:
        return value
    if p.integer:
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{p.name} ({value!r}{where}) must be an integer")
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{p.name} ({value!r}{where}) must be a number")
    return value if p.integer else float(value)


# ------------------------------------------------------------------------------------ listing


def _listing(as_json: bool):
    import inspect

    from dperm import introspection

    rows = []
    for record_id, found in introspection.static_boxes().items():  # from the source: no paper imported
        params = introspection.static_parameters(record_id, skip=SETTING)
        declared = {entry[0] for entry in found.signature}
        takes = [k for k in ("loss", "domain", "regulariser", "dimension") if k in declared]
        rows.append({
            "algorithm": record_id, "configured": f"{found.module}.{found.name}",
            "takes": takes,
            "required": [p.name for p in params if p.required],
            "optional": {p.name: _jsonable(p.default) for p in params if not p.required},
        })

    def keywords(cls):
        return [p.name + ("" if p.default is inspect.Parameter.empty else "=" + repr(p.default))
                for p in inspect.signature(cls).parameters.values()
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]

    losses = {name: keywords(cls) for name, cls in sorted(introspection.loss_classes().items())}
    domains = {name: keywords(cls) for name, cls in sorted(introspection.domain_classes().items())}
    regularisers = {name: keywords(cls) for name, cls in sorted(introspection.regulariser_classes().items())}
    if as_json:
        return {"algorithms": rows, "losses": losses, "domains": domains, "regularisers": regularisers}
    width = max(len(r["algorithm"]) for r in rows)
    lines = ["algorithms (reference.<paper>.BOXES; dperm run ALGORITHM --help for the meanings):"]
    for r in rows:
        options = ["DATA"] + [f"--{k}" for k in r["takes"] if k in ("loss", "domain")]
        options += ["--" + k.replace("_", "-") for k in r["required"]]
        options += [f"[--{k.replace('_', '-')} {v!r}]" if v is not None else f"[--{k.replace('_', '-')}]"
                    for k, v in r["optional"].items()]
        lines.append(f"  {r['algorithm']:<{width}}  {' '.join(options)}  ({r['configured']})")
    lines.append("losses (reference.losses; --loss NAME KEY=VALUE ...):")
    lines += [f"  {name}  {' '.join(kw)}" for name, kw in losses.items()]
    lines.append("domains (reference.domains; --domain NAME KEY=VALUE ...):")
    lines += [f"  {name}  {' '.join(kw)}" for name, kw in domains.items()]
    lines.append("regularisers (reference.losses; --regulariser NAME KEY=VALUE ...):")
    lines += [f"  {name}  {' '.join(kw)}" for name, kw in regularisers.items()]
    return "\n".join(lines)


def _jsonable(value):
    """Results and their configurations without their transcript (the rest is written by
    :func:`spec.jsonable.strict`, the one JSON normaliser)."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.name not in ("transcript", "configuration")}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _strict(value):
    """``value`` as strict JSON (:func:`spec.jsonable.strict`; objects JSON cannot hold by their repr)."""
    from spec.jsonable import strict

    return strict(value, default=repr)


# -------------------------------------------------------------------------------- configuring


def _configure(args, config: dict, record_id: str, *, n: int, columns: int | None):
    """The configured box from the options, the config file and the data's shape (n, columns)."""
    import warnings

    from dperm import introspection
    from reference.algorithms import box
    from spec.errors import PrivacyLeakWarning

    cls = box(record_id)
    takes = {name: introspection.takes(cls.configure, name) for name in SETTING}
    call = {}
    built = {}
    for key, option, table in (("loss", "--loss", introspection.loss_classes),
                               ("domain", "--domain", introspection.domain_classes),
                               ("regulariser", "--regulariser", introspection.regulariser_classes)):
        spec = _spec_of(option, getattr(args, key), config.get(key))
        if spec is None:
            if takes[key] and key != "regulariser" and _required(cls, key):
                raise UsageError(f"{record_id} needs {option} NAME KEY=VALUE ... (dperm run --list shows them)")
            continue
        if not takes[key] and key != "regulariser":
            raise UsageError(f"{option} does not apply to {record_id}: {cls.__name__}.configure takes no {key}")
        built[key] = build_component(option, spec, table())
    params = {p.name: p for p in introspection.parameters(cls.configure, skip=SETTING)}
    config_params = config.get("parameters") or {}
    if not isinstance(config_params, dict):
        raise UsageError("parameters in the config must be a table of name = value")
    unknown = [k for k in config_params if k not in params]
    if unknown:
        raise UsageError(f"the config's parameters {', '.join(unknown)} do not apply to {record_id}; it takes "
                         f"{', '.join(params) or 'none'}")
    values = {k: _parameter_value(params[k], v, " in the config") for k, v in config_params.items()}
    for name in params:
        given = getattr(args, f"param_{name}", None)
        if given is not None:
            values[name] = given
    missing = [params[k].option for k in params if params[k].required and k not in values]
    if missing:
        raise UsageError(f"the following arguments are required for {record_id}: {', '.join(missing)}")
    paper = introspection.paper_classes(record_id)
    for name, value in list(values.items()):
        if not params[name].canonical and (isinstance(value, dict) and "name" in value
                                           or isinstance(value, str) and value in paper):
            values[name] = build_component(params[name].option, _flat(params[name].option, value), paper)
    loss = built.get("loss")
    if takes["dimension"]:
        if columns is not None:
            if loss is None:
                raise UsageError(f"{record_id} needs --loss to read the dimension of the data")
            call["dimension"] = loss.dim_of_row(columns)
        elif getattr(args, "dimension", None) is not None:
            call["dimension"] = args.dimension
        else:
            raise UsageError(f"calibrate {record_id} needs --dimension (the p of the data; it has no domain)")
    if "regulariser" in built:
        if takes["regulariser"]:
            call["regulariser"] = built["regulariser"]
        elif loss is not None:
            loss = _regularised(loss, built["regulariser"], built.get("domain"), call.get("dimension"))
        else:
            raise UsageError(f"--regulariser does not apply to {record_id}: it takes no loss")
    if loss is not None:
        call["loss"] = loss
    if "domain" in built:
        call["domain"] = built["domain"]
    allow = args.allow_unproven if args.allow_unproven is not None else bool(config.get("allow_unproven", False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        configured = cls.configure(n=n, **call, **values, allow_unproven=allow)
    for w in caught:  # one line each: the records' warnings name the option (--calibration analytic)
        if issubclass(w.category, PrivacyLeakWarning):
            warnings.warn(str(w.message).splitlines()[0], PrivacyLeakWarning, stacklevel=2)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return configured, values


def _required(cls, key: str) -> bool:
    import inspect

    p = inspect.signature(cls.configure).parameters.get(key)
    return p is not None and p.default is inspect.Parameter.empty


def _regularised(loss, regulariser, domain, dimension):
    """``loss + regulariser`` on every example, its constants on the domain's ball (a regulariser's
    Lipschitz constant grows with the radius)."""
    from reference.losses import Regularised

    radius = loss.domain_radius
    if radius is None and domain is not None and math.isfinite(domain.max_norm):
        radius = domain.max_norm
    dim = domain.dim if domain is not None else dimension
    return Regularised(loss, regulariser, domain_radius=radius, dim=dim)


# ------------------------------------------------------------------------------------ running


class _Progress:
    """The work line, then ``done/total`` with an ETA on stderr at most every :data:`PROGRESS_EVERY` s."""

    def __init__(self, label: str, work: int, *, stream=None) -> None:
        self.label, self.work, self.stream = label, work, stream or sys.stderr
        self.start = time.monotonic()
        self.last = self.start

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY and done < total:
            return
        self.last = now
        from spec.progress import duration  # spec is loaded by then (the run configured its box)

        elapsed = now - self.start
        eta = elapsed / done * (total - done) if done else float("inf")
        line = f"dperm: {self.label}: {done:,}/{total:,} steps, {duration(elapsed)} elapsed, ETA {duration(eta)}"
        end = "\r" if getattr(self.stream, "isatty", lambda: False)() and done < total else "\n"
        print(line, file=self.stream, end=end, flush=True)


def execute(args) -> tuple[object, int]:
    """Run ``dperm run`` for parsed ``args``: (output, exit status)."""
    if args.list:
        given = [o for o in ("algorithm", "data", "config", "loss", "domain", "vector") if getattr(args, o, None)]
        if given:
            raise UsageError(f"--list takes no other argument (got {', '.join(given)})")
        return _listing(args.json), 0
    config = load_config(args.config) if args.config else {}
    if args.algorithm is not None and not is_algorithm(args.algorithm) and args.data is None \
            and config.get("algorithm"):
        args.data, args.algorithm = args.algorithm, None  # dperm run --config FILE DATA
    record_id = args.algorithm or config.get("algorithm")
    if record_id is None:
        raise UsageError("run needs an algorithm: dperm run ALGORITHM DATA ... (dperm run --list shows them)")
    if not is_algorithm(record_id):
        raise _unknown(record_id)
    return _run(args, config, record_id), 0


def _run(args, config: dict, record_id: str):
    from reference.rng import fresh_seed

    data_path = args.data or config.get("data")
    if data_path is None:
        raise UsageError(f"run {record_id} needs DATA (a CSV or .npy file), on the command line or in the config")
    data = load_data(data_path)
    configured, values = _configure(args, config, record_id, n=int(data.shape[0]), columns=int(data.shape[1]))
    runs = args.runs if args.runs is not None else config.get("runs", 1)
    seed = args.seed if args.seed is not None else config.get("seed")
    seed = fresh_seed() if seed is None else seed
    vector_path = args.vector or config.get("vector")
    for note in configured.notes:
        print(f"dperm: note: {note}", file=sys.stderr)
    work = configured.gradient_evaluations(runs=runs)
    progress = None
    if work >= LONG_WORK or args.progress:
        print(f"dperm: {record_id}: {work:,} gradient evaluations ({runs} run{'s' if runs != 1 else ''}); progress "
              "and ETA follow, Ctrl-C stops", file=sys.stderr, flush=True)
        progress = _Progress(record_id, work)
    if vector_path:
        from reference.vectors.from_run import vector_id, vector_of_run
        from reference.vectors.generate import dumps

        try:
            result, vector = vector_of_run(configured, data, id=vector_id(Path(vector_path).stem), runs=runs,
                                           rng=seed)
        except ValueError as err:
            if type(err) is not ValueError:  # ParameterError and friends: the inputs' validation
                raise
            raise UsageError(f"--vector: {err}") from None
        Path(vector_path).write_text(dumps(vector))
    else:
        result, vector = configured.run(data, runs=runs, rng=seed, progress=progress), None
    return _output(args, record_id, configured, data_path, data, values, seed, result, vector, vector_path)


def _result_fields(result) -> dict:
    import dataclasses

    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)
            if f.name not in ("spec_ids", "seed", "transcript", "configuration")}


def _output(args, record_id, configured, data_path, data, values, seed, result, vector, vector_path):
    import dataclasses

    import numpy as np

    fields = _result_fields(result)
    if args.json:
        out = {
            "algorithm": record_id, "configured": f"{type(configured).__module__}.{type(configured).__name__}",
            "data": {"path": str(data_path), "n": int(data.shape[0]), "columns": int(data.shape[1])},
            "parameters": {k: _jsonable(v) for k, v in values.items()},
            "configuration": configured.summary(),
            "seed": seed, "spec_ids": list(result.spec_ids),
            "result": _jsonable(fields),
            "vector": None if vector is None else {"path": str(vector_path), "id": vector["id"],
                                                   "tape_entries": len(vector["tape"]["entries"]),
                                                   "flags": vector["flags"]},
        }
        return _strict(out)
    lines = [configured.describe(), f"data: {data_path}: n = {data.shape[0]} rows of {data.shape[1]} columns",
             f"seed: {seed} (--seed {seed} reproduces this run)"]
    described = {q[0] for q in configured.quantities()} | set(configured.options)
    shown = [f.name for f in dataclasses.fields(result) if f.repr and f.name in fields and f.name != "theta"
             and f.name not in described and not isinstance(fields[f.name], (dict, np.ndarray))]
    width = max([len(k) for k in shown] + [5])
    if shown:
        lines.append("result: " + ", ".join(f"{k} = {_short(fields[k])}" for k in shown))
    lines += _field_lines("theta", fields["theta"], width)
    if vector is not None:
        lines.append(f"vector: {vector_path} ({len(vector['tape']['entries'])} tape entries; flags: "
                     f"{', '.join(vector['flags']) or 'none'}); compare your implementation's outputs with: "
                     f"dperm vectors check {vector_path} --outputs MINE.json")
    return "\n".join(lines)


def _short(value) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field_lines(name: str, value, width: int) -> list[str]:
    import numpy as np

    value = np.asarray(value)
    rows = [f"{name}[{r}]".ljust(width + 4) + f" = {[float(x) for x in row]!r}"
            for r, row in enumerate(value[:SHOWN_RUNS])]
    if value.shape[0] > SHOWN_RUNS:
        rows.append(f"... {value.shape[0] - SHOWN_RUNS} more runs (--json or --vector has them all)")
    return rows


# ---------------------------------------------------------------------------------- calibrate


def calibrate_execute(args) -> tuple[object, int]:
    """``dperm calibrate ALGORITHM``: configure without data and print the configuration."""
    if args.list:
        return _listing(args.json), 0
    record_id = args.algorithm
    if record_id is None or not is_algorithm(record_id):
        raise _unknown(str(record_id))
    if args.n is None:
        raise UsageError(f"calibrate {record_id} needs --n (the number of records the configuration is for)")
    configured, _ = _configure(args, {}, record_id, n=args.n, columns=None)
    for note in configured.notes:
        print(f"dperm: note: {note}", file=sys.stderr)
    if args.json:
        return _strict(configured.summary()), 0
    return configured.describe(), 0


def calibrate_command(argv: list[str], parser_class) -> argparse.Namespace:
    """Parse ``dperm calibrate ALGORITHM ...`` (the algorithm's options added before parsing)."""
    algorithm = algorithm_in(argv)
    parser = parser_class(prog="dperm calibrate", description="Configure an algorithm box without data and print "
                          "its configuration: the noise scale, T, the step sizes, the loss constants it used with "
                          "their source, the claim and its certificate, the flags and the work.",
                          epilog=_CALIBRATE_EPILOG)
    add_arguments(parser, algorithm, calibrate=True)
    return parser.parse_args(argv[argv.index("calibrate") + 1:])


_CALIBRATE_EPILOG = ("Exit status: 0 on success; 2: bad arguments, or a configuration whose claim is not proven "
                     "(the message names the calibration that holds; --allow-unproven shows it anyway), or an "
                     "assumption that fails (one line 'dperm: error: ...').")
