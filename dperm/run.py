"""``dperm run ALGORITHM DATA``: run any reference algorithm on your own data.

::

    dperm run bst14.alg_1 mydata.csv --loss Hinge feature_norm=1 --domain L2Ball radius=1 dim=3 \\
          --epsilon 1 --delta 1e-5 --schedule lipschitz [--runs R] [--seed S] [--vector OUT.json] [--json]
    dperm run --config run.toml            # the same settings from a TOML or JSON file
    dperm run --list                       # every algorithm, loss and domain, with what each takes
    dperm run bst14.alg_1 --help           # that algorithm's parameters, with their meanings

``ALGORITHM`` is an algorithm record id; every key of ``reference.<paper>.ALGORITHMS`` works
(:mod:`reference.algorithms`), including papers added later. ``DATA`` is a CSV file (numbers,
one record per row, an optional header line) or a ``.npy`` array of shape ``(n, k)``; rows of
supervised losses are ``x_1, ..., x_p, y``. ``--loss NAME KEY=VALUE ...`` and ``--domain NAME
KEY=VALUE ...`` name classes of :mod:`reference.losses` and :mod:`reference.domains` and their
keywords (values are JSON: ``lower=[-1,-1]``). The algorithm's own parameters are options
(:mod:`dperm.introspection`): canonical names of :mod:`spec.vocabulary` are numbers, the others
take a word or a JSON value (``--schedule lipschitz``, ``--theta-1 [[0.5,0.5]]``, ``--sampler
QuadraticRejectionSampler``).

The output names the spec ids whose formulas gave the run's constants, the calibration (the
result's scalar fields: sigma, steps, ...), the seed that reproduces the run and the output.
``--vector OUT.json`` also records the noise tape and writes a known-answer vector
(``reference/vectors/schema.json``; :mod:`reference.vectors.from_run`) that you can replay in
your own code and check with ``dperm vectors check OUT.json --outputs MINE.json``.

A config file holds the same settings (command-line options override it)::

    algorithm = "bst14.alg_1"
    data = "mydata.csv"                  # relative to the config file
    runs = 1
    seed = 7
    [loss]
    name = "Hinge"
    feature_norm = 1.0                   # the class's keywords beside its name
    [domain]
    name = "L2Ball"
    radius = 1.0
    dim = 3
    [parameters]
    epsilon = 1.0
    delta = 1e-5
    schedule = "lipschitz"

The keywords may also be nested as in a vector file (``bounds = {feature_norm = 1.0}``,
``parameters = {radius = 1.0, dim = 3}``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
from pathlib import Path

from dperm.arguments import UsageError, integer, number, typed

__all__ = ["add_arguments", "algorithm_in", "execute", "load_data", "load_config", "CONFIG_KEYS"]

#: The keys of a config file.
CONFIG_KEYS = ("algorithm", "data", "loss", "domain", "parameters", "runs", "seed", "vector")

#: Rows of an output array shown in plain text (all of them are in --json and the vector).
SHOWN_RUNS = 10


def algorithm_in(argv: list[str]) -> str | None:
    """The algorithm named on a ``dperm run`` command line (to add its options before parsing):
    the first word that is an algorithm id, else the config file's ``algorithm``."""
    from spec import index  # the algorithm ids without importing every paper

    table = set(index.algorithm_ids())
    for token in argv:
        if token in table:
            return token
    for i, token in enumerate(argv):
        path = token.partition("=")[2] if token.startswith("--config=") else (
            argv[i + 1] if token == "--config" and i + 1 < len(argv) else None)
        if path:
            try:
                return load_config(path).get("algorithm")
            except Exception:  # reported when the command runs
                return None
    return None


def add_arguments(parser: argparse.ArgumentParser, algorithm: str | None) -> None:
    """The ``dperm run`` options, with ``algorithm``'s own parameters when it is known."""
    parser.add_argument("algorithm", nargs="?", metavar="ALGORITHM",
                        help="algorithm record id, e.g. bst14.alg_1 (dperm run --list shows them)")
    parser.add_argument("data", nargs="?", metavar="DATA",
                        help="CSV file (one record per row, optional header) or .npy array of shape (n, k); "
                             "rows of supervised losses are x_1, ..., x_p, y")
    parser.add_argument("--config", metavar="FILE",
                        help="TOML or JSON file with algorithm, data, loss, domain, parameters, runs, seed, "
                             "vector; options given here override it")
    parser.add_argument("--loss", nargs="+", metavar=("NAME", "KEY=VALUE"),
                        help="a class of reference.losses and its keywords, e.g. --loss Hinge feature_norm=1")
    parser.add_argument("--domain", nargs="+", metavar=("NAME", "KEY=VALUE"),
                        help="a class of reference.domains and its keywords, e.g. --domain L2Ball radius=1 dim=3 "
                             "or --domain Box lower=[-1,-1] upper=[1,1]")
    parser.add_argument("--runs", type=typed(integer, "--runs"), metavar="INT",
                        help="independent runs on the same data (default 1)")
    parser.add_argument("--seed", type=typed(integer, "--seed"), metavar="INT",
                        help="seed of the draws (default: drawn and printed, so the run can be reproduced)")
    parser.add_argument("--vector", metavar="FILE",
                        help="also write a known-answer vector with the recorded noise tape to FILE "
                             "(check your implementation with dperm vectors check FILE --outputs MINE.json)")
    parser.add_argument("--list", action="store_true",
                        help="list the algorithms (with their parameters), losses and domains, and exit")
    parser.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    if algorithm is None:
        return
    from dperm import introspection

    found = _table()["parameters"].get(algorithm)  # --help imports no paper
    if found is None:
        return
    group = parser.add_argument_group(f"parameters of {algorithm} ({found['function']})")
    for p in found["parameters"]:
        spellings = [p["option"]] + ([f"--{p['name']}"] if "_" in p["name"] else [])
        if p["canonical"]:
            kind = typed(integer if p["integer"] else number, p["option"])
            metavar = "INT" if p["integer"] else "X"
        else:
            kind = introspection.loose_value
            metavar = "{" + ",".join(p["choices"]) + "}" if p["choices"] else "VALUE"
        text = p["meaning"] or p["name"]
        if p["required"]:
            text += " (required)"
        elif "default" not in text.lower():  # the docstring may state the default already
            text += f" (default {p['default']})"
        group.add_argument(*spellings, dest=f"param_{p['name']}", type=kind, metavar=metavar, default=None,
                           help=text)


def _parameter_table() -> dict:
    """Algorithm id -> its function and parameters, as add_arguments shows them (defaults by repr)."""
    from dperm import introspection
    from reference.algorithms import algorithms

    return {
        algorithm: {
            "function": f"{function.__module__}.{function.__name__}",
            "parameters": [{"name": p.name, "option": p.option, "canonical": p.canonical, "integer": p.integer,
                            "choices": list(p.choices) if p.choices else None, "meaning": p.meaning,
                            "required": p.required, "default": repr(p.default)}
                           for p in introspection.parameters(function)],
        }
        for algorithm, function in algorithms().items()
    }


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


def _named(option: str, words: list[str] | None, config_value, key: str):
    """``--loss Hinge feature_norm=1`` (or the config's table) as ``{"name": ..., key: {...}}``."""
    from dperm.introspection import loose_value

    if words:
        values = {}
        for word in words[1:]:
            name, sep, text = word.partition("=")
            if not sep or not name:
                raise UsageError(f"{option} {words[0]}: {word!r} must look like key=value, e.g. radius=1")
            values[name] = loose_value(text)
        return {"name": words[0], key: values}
    if config_value is None:
        return None
    if isinstance(config_value, str):
        return {"name": config_value, key: {}}
    if isinstance(config_value, dict):
        # the keywords beside the name (``radius = 1``), or nested as in a vector file
        # (``parameters = {...}``, ``bounds = {...}``)
        values = {k: v for k, v in config_value.items() if k not in ("name", "parameters", "bounds")}
        for nested in ("parameters", "bounds"):
            inner = config_value.get(nested, {})
            if not isinstance(inner, dict):
                raise UsageError(f"{option} in the config: {nested} ({inner!r}) must be a table of keywords")
            values.update(inner)
        return {"name": config_value.get("name"), key: values}
    raise UsageError(f"{option} in the config ({config_value!r}) must be a name or a table with name and {key}")


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


# ------------------------------------------------------------------------------------ running


def _describe(obj) -> str:
    return repr(obj)


def _table() -> dict:
    """What --list and ALGORITHM --help show. Building it imports every paper, so it is kept by
    spec.cache (keyed by the sources of spec, reference and dperm) and built once."""
    from spec import cache

    def build():
        return {"listing": _listing_data(), "parameters": _parameter_table()}

    return cache.cached("run-table", build, packages=("spec", "reference", "dperm"))


def _listing(as_json: bool):
    found = _table()["listing"]
    rows, losses, domains = found["algorithms"], found["losses"], found["domains"]
    if as_json:
        return {"algorithms": rows, "losses": losses, "domains": domains}
    return _listing_text(rows, losses, domains)


def _listing_data() -> dict:
    from dperm import introspection
    from reference.algorithms import algorithms

    rows = []
    for record_id, function in algorithms().items():
        params = introspection.parameters(function)
        rows.append({
            "algorithm": record_id, "function": f"{function.__module__}.{function.__name__}",
            "takes": [k for k in ("loss", "domain", "runs") if introspection.takes(function, k)],
            "required": [p.name for p in params if p.required],
            "optional": {p.name: _jsonable(p.default) for p in params if not p.required},
        })
    import inspect

    def keywords(cls):
        return [p.name + ("" if p.default is inspect.Parameter.empty else "=" + repr(p.default))
                for p in inspect.signature(cls).parameters.values()
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]

    losses = {name: keywords(cls) for name, cls in sorted(introspection.loss_classes().items())}
    domains = {name: keywords(cls) for name, cls in sorted(introspection.domain_classes().items())}
    return {"algorithms": rows, "losses": losses, "domains": domains}


def _listing_text(rows, losses, domains) -> str:
    width = max(len(r["algorithm"]) for r in rows)
    lines = ["algorithms (reference.<paper>.ALGORITHMS; dperm run ALGORITHM --help for the meanings):"]
    for r in rows:
        options = ["DATA"] + [f"--{k}" for k in r["takes"] if k != "runs"]
        options += ["--" + k.replace("_", "-") for k in r["required"]]
        options += [f"[--{k.replace('_', '-')} {v!r}]" if v is not None else f"[--{k.replace('_', '-')}]"
                    for k, v in r["optional"].items()]
        lines.append(f"  {r['algorithm']:<{width}}  {' '.join(options)}  ({r['function']})")
    lines.append("losses (reference.losses; --loss NAME KEY=VALUE ...):")
    lines += [f"  {name}  {' '.join(kw)}" for name, kw in losses.items()]
    lines.append("domains (reference.domains; --domain NAME KEY=VALUE ...):")
    lines += [f"  {name}  {' '.join(kw)}" for name, kw in domains.items()]
    return "\n".join(lines)


def _jsonable(value):
    """``value`` as JSON values (spec.jsonable; an object the JSON cannot hold by its repr)."""
    from spec.jsonable import convert

    return convert(value, default=repr, found={})


def execute(args) -> tuple[object, int]:
    """Run ``dperm run`` for parsed ``args``: (output, exit status)."""
    if args.list:
        given = [o for o in ("algorithm", "data", "config", "loss", "domain", "vector") if getattr(args, o)]
        if given:
            raise UsageError(f"--list takes no other argument (got {', '.join(given)})")
        return _listing(args.json), 0
    config = load_config(args.config) if args.config else {}
    from reference.algorithms import algorithms

    table = algorithms()
    if args.algorithm not in table and args.data is None and config.get("algorithm"):
        args.data, args.algorithm = args.algorithm, None  # dperm run --config FILE DATA
    record_id = args.algorithm or config.get("algorithm")
    if record_id is None:
        raise UsageError("run needs an algorithm: dperm run ALGORITHM DATA ... (dperm run --list shows them)")
    if record_id not in table:
        import difflib

        close = difflib.get_close_matches(record_id, list(table), n=3, cutoff=0.6)
        hint = f"did you mean {', '.join(close)}?" if close else f"one of {', '.join(table)}"
        raise UsageError(f"ALGORITHM ({record_id}) must be an algorithm record id of reference.<paper>.ALGORITHMS; "
                         f"{hint}")
    function = table[record_id]
    return _run(args, config, record_id, function)


def _run(args, config: dict, record_id: str, function) -> tuple[object, int]:
    import numpy as np

    from dperm import introspection
    from reference.rng import fresh_seed

    data_path = args.data or config.get("data")
    if data_path is None:
        raise UsageError(f"run {record_id} needs DATA (a CSV or .npy file), on the command line or in the config")
    data = load_data(data_path)
    keywords = {}
    for key, option, keys, table in (("loss", "--loss", introspection.LOSS_KEYS, introspection.loss_classes),
                                     ("domain", "--domain", introspection.DOMAIN_KEYS, introspection.domain_classes)):
        spec = _named(option, getattr(args, key), config.get(key), keys)
        if introspection.takes(function, key):
            if spec is None:
                raise UsageError(f"run {record_id} needs {option} NAME KEY=VALUE ... (dperm run --list shows them)")
            obj = introspection.build_named(option, spec, table(), key=keys)
            keywords[key] = obj
            keywords[f"_{key}_spec"] = spec
        elif spec is not None:
            raise UsageError(f"{option} does not apply to {record_id}: {function.__name__} takes no {key}")
    params = {p.name: p for p in introspection.parameters(function)}
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
        raise UsageError(f"the following arguments are required for run {record_id}: {', '.join(missing)}")
    paper = introspection.paper_classes(record_id)
    for name, value in list(values.items()):
        if not params[name].canonical and (isinstance(value, dict) and "name" in value
                                           or isinstance(value, str) and value in paper):
            values[name] = introspection.build_named(params[name].option, value, paper)
    runs = args.runs if args.runs is not None else config.get("runs", 1)
    if introspection.takes(function, "runs"):
        values["runs"] = runs
    elif args.runs is not None:
        raise UsageError(f"--runs does not apply to {record_id}")
    seed = args.seed if args.seed is not None else config.get("seed")
    seed = fresh_seed() if seed is None else seed
    vector_path = args.vector or config.get("vector")
    loss_spec, domain_spec = keywords.pop("_loss_spec", None), keywords.pop("_domain_spec", None)
    call = {**keywords, **values}
    if vector_path:
        from reference.vectors.from_run import record_run, vector_id
        from reference.vectors.generate import dumps

        described = dict(call)
        if loss_spec is not None:
            described["loss"] = loss_spec
        if domain_spec is not None:
            described["domain"] = domain_spec
        try:
            result, vector = record_run(record_id, data, id=vector_id(Path(vector_path).stem), rng=seed, **described)
        except ValueError as err:
            if type(err) is not ValueError:  # ParameterError and friends: the inputs' validation
                raise
            raise UsageError(f"--vector: {err}") from None
        Path(vector_path).write_text(dumps(vector))
    else:
        result, vector = function(data, rng=seed, **call), None
    return _output(args, record_id, function, data_path, data, call, params, values, seed, result, vector,
                   vector_path), 0


def _output(args, record_id, function, data_path, data, call, params, values, seed, result, vector, vector_path):
    import spec

    record = spec.get(record_id)
    defaults = {p.name: p.default for p in params.values()
                if not p.required and p.name not in values and p.default is not None}
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)
              if f.name not in ("spec_ids", "seed", "transcript")}
    shown = [f.name for f in dataclasses.fields(result) if f.repr and f.name in fields]
    if args.json:
        out = {
            "algorithm": record_id, "citation": str(record.citation), "function": f"{function.__module__}.{function.__name__}",
            "data": {"path": str(data_path), "n": int(data.shape[0]), "columns": int(data.shape[1])},
            "loss": repr(call["loss"]) if "loss" in call else None,
            "domain": repr(call["domain"]) if "domain" in call else None,
            "parameters": values,
            "defaults": defaults,
            "seed": seed, "spec_ids": list(result.spec_ids),
            "result": fields,
            "vector": None if vector is None else {"path": str(vector_path), "id": vector["id"],
                                                   "tape_entries": len(vector["tape"]["entries"]),
                                                   "checkpoints": len(vector["checkpoints"])},
        }
        from spec.jsonable import strict

        return strict(out, default=repr)
    given = ", ".join(f"{k}={_short(v)}" for k, v in values.items())
    lines = [
        f"{record_id}: {record.citation} ({function.__module__}.{function.__name__})",
        f"data: {data_path}: n = {data.shape[0]} rows of {data.shape[1]} columns"
        + (f"; loss {call['loss']!r}" if "loss" in call else "")
        + (f"; domain {call['domain']!r}" if "domain" in call else ""),
        f"parameters: {given or '(none)'}"
        + (f"; defaults: {', '.join(f'{k}={v!r}' for k, v in defaults.items())}" if defaults else ""),
        f"spec ids: {', '.join(result.spec_ids)}",
        f"seed: {seed} (--seed {seed} reproduces this run)",
    ]
    width = max((len(k) for k in shown), default=0)
    import numpy as np

    shown.sort(key=lambda k: isinstance(fields[k], np.ndarray))  # the calibration first, then the output
    for name in shown:
        lines += _field_lines(name, fields[name], width)
    if vector is not None:
        lines.append(f"vector: {vector_path} ({len(vector['tape']['entries'])} tape entries, "
                     f"{len(vector['checkpoints'])} checkpoint{'' if len(vector['checkpoints']) == 1 else 's'}); "
                     "compare your implementation's outputs with: "
                     f"dperm vectors check {vector_path} --outputs MINE.json")
    return "\n".join(lines)


def _short(value) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field_lines(name: str, value, width: int) -> list[str]:
    import numpy as np

    if isinstance(value, np.ndarray) and value.ndim == 2:
        rows = [f"{name}[{r}]".ljust(width + 4) + f" = {[float(x) for x in row]!r}"
                for r, row in enumerate(value[:SHOWN_RUNS])]
        if value.shape[0] > SHOWN_RUNS:
            rows.append(f"... {value.shape[0] - SHOWN_RUNS} more runs (--json or --vector has them all)")
        return rows
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    return [f"{name.ljust(width + 4)} = {value!r}"]
