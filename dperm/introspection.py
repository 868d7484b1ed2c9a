"""What a reference algorithm takes, read from its signature and docstring, and how to build it.

``dperm run`` works for every function of ``reference.<paper>.ALGORITHMS``, including papers that
land later, without a hand-kept table: the parameters are the function's keyword-only arguments;
a parameter whose name is in :mod:`spec.vocabulary` is a number (an integer for integer terms)
with the vocabulary's meaning; the others (``schedule``, ``calibration``, ``theta_1``,
``sampler``, ...) take JSON values or words, with the meaning from the numpydoc ``Parameters``
section. Losses and domains are built by class name from :mod:`reference.losses` and
:mod:`reference.domains` (as the vectors do); an object parameter such as a sampler is built by
the name of a class the algorithm's paper package exports (``QuadraticRejectionSampler``, or
``{"name": "GridWalkSampler", "parameters": {...}}``).

>>> from reference.bst14 import NoiseGD
>>> [p.name for p in parameters(NoiseGD.configure)]
['n', 'epsilon', 'delta', 'schedule', 'theta_1', 'calibration', 'allow_unproven']
>>> p = parameters(NoiseGD.configure)[3]
>>> p.required, p.canonical, p.choices
(True, False, ('lipschitz', 'strongly_convex'))
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
from dataclasses import dataclass


__all__ = ["Parameter", "parameters", "RESERVED", "takes", "loose_value", "build_named", "classes",
           "paper_classes", "loss_classes", "domain_classes", "regulariser_classes", "LOSS_KEYS", "DOMAIN_KEYS",
           "StaticBox", "static_boxes", "static_parameters"]

#: Keywords every reference algorithm may take that are not parameters of the run: the data's
#: setting (``loss``, ``domain``), the batch size (``runs``) and the randomness hooks.
RESERVED = ("loss", "domain", "runs", "rng", "noise", "transcript")

#: The vector format's key for a loss's keywords and a domain's (``reference/vectors/schema.json``).
LOSS_KEYS, DOMAIN_KEYS = "bounds", "parameters"


@dataclass(frozen=True)
class Parameter:
    """One keyword parameter of a reference algorithm."""

    name: str
    required: bool
    default: object
    canonical: bool  # a spec.vocabulary name: a number
    integer: bool
    meaning: str
    choices: tuple | None = None

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


_SECTION = re.compile(r"^\s*Parameters\s*\n\s*-{3,}\s*\n(?P<body>.*?)(?:\n\s*\n\s*[A-Z][A-Za-z ]+\n\s*-{3,}|\Z)", re.S | re.M)
_ENTRY = re.compile(r"^(?P<indent>\s*)(?P<names>[A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::\s*(?P<type>.*))?$")


def _docstring_parameters(function) -> dict[str, tuple[str, str]]:
    """name -> (type text, the whole description) from a numpydoc Parameters section."""
    doc = inspect.getdoc(function) or ""
    m = _SECTION.search(doc)
    if not m:
        return {}
    out, current, indent = {}, None, None
    for line in m["body"].splitlines():
        entry = _ENTRY.match(line)
        if entry and (indent is None or len(entry["indent"]) <= indent):
            indent = len(entry["indent"])
            current = [n.strip() for n in entry["names"].split(",")]
            for name in current:
                out[name] = [entry["type"] or "", ""]
        elif current and line.strip():
            for name in current:
                out[name][1] = (out[name][1] + " " + line.strip()).strip()
    return {k: (t, _plain(d)) for k, (t, d) in out.items()}


def _plain(text: str) -> str:
    """Docstring markup as plain text: ``:func:`x``` -> ``x``, double backquotes dropped."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def _choices(type_text: str) -> tuple | None:
    m = re.match(r"^\{(.*)\}", type_text.strip())
    if not m:
        return None
    items = [x.strip().strip("'\"") for x in m.group(1).split(",")]
    return tuple(x for x in items if x) or None


def parameters(function, *, skip: tuple[str, ...] = ()) -> list[Parameter]:
    """The run parameters of ``function`` (a reference function or a box's ``configure``): its keyword
    parameters, minus :data:`RESERVED` and ``skip`` (a leading positional ``data`` is not one)."""
    from spec.vocabulary import VOCABULARY

    docs = _docstring_parameters(function)
    out = []
    for p in inspect.signature(function).parameters.values():
        if p.name in RESERVED or p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            continue
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.name in ("data", "values"):
            continue
        term = VOCABULARY.get(p.name)
        type_text, description = docs.get(p.name, ("", ""))
        meaning = description or (term.meaning if term else "")
        required = p.default is inspect.Parameter.empty
        out.append(Parameter(
            name=p.name, required=required, default=None if required else p.default,
            canonical=term is not None, integer=bool(term and term.integer), meaning=meaning,
            choices=_choices(type_text),
        ))
    return out


def takes(function, name: str) -> bool:
    """Whether ``function`` has a keyword parameter ``name`` (``loss``, ``domain``, ``runs``, ...)."""
    return name in inspect.signature(function).parameters


def loose_value(text: str):
    """A command-line value of a non-canonical parameter: JSON when it parses (numbers, lists,
    objects, true/false/null), else the word itself (``lipschitz``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def classes(module) -> dict[str, type]:
    """The classes a package exports (``__all__``) that can be built from a name and keywords: not
    exceptions, not abstract, not algorithm results, no ``*args`` constructor."""
    from reference.configured import Configured
    from reference.results import AlgorithmResult

    out = {}
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        if (isinstance(obj, type) and not issubclass(obj, (BaseException, AlgorithmResult, Configured))
                and not inspect.isabstract(obj) and not _varargs(obj)):
            out[name] = obj
    return out


def _varargs(cls) -> bool:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())


def build_named(kind: str, spec, table: dict[str, type], *, key: str = "parameters"):
    """Build ``{"name": N, key: {...}}`` (or a bare ``"N"``) from the classes in ``table``.

    ``kind`` names the option in messages (``--loss``). Nested ``{"name": ...}`` values whose
    name is in ``table`` are built too.
    """
    from spec.errors import ParameterError

    if isinstance(spec, str):
        spec = {"name": spec, key: {}}
    if not isinstance(spec, dict) or "name" not in spec:
        raise ParameterError(f"{kind} ({json.dumps(spec)}) must be a class name or {{\"name\": ..., \"{key}\": {{...}}}}")
    extra = [k for k in spec if k not in ("name", key)]
    if extra:
        raise ParameterError(f"{kind} ({spec['name']}): unknown key {', '.join(map(repr, extra))}; "
                             f"it has 'name' and '{key}'")
    name = spec["name"]
    if name not in table:
        raise ParameterError(f"{kind} ({name}) must be one of {', '.join(sorted(table))}")
    cls = table[name]
    values = dict(spec.get(key) or {})
    for k, v in values.items():
        if isinstance(v, dict) and v.get("name") in table:
            values[k] = build_named(f"{kind} {name} {k}", v, table, key=key)
    named = [p for p in inspect.signature(cls).parameters.values()
             if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unknown = [k for k in values if k not in [p.name for p in named]]
    missing = [p.name for p in named if p.default is inspect.Parameter.empty and p.name not in values]
    takes_text = ", ".join(f"{p.name}" + ("" if p.default is inspect.Parameter.empty else f"={p.default!r}")
                           for p in named)
    if unknown:
        raise ParameterError(f"{kind} {name}: unknown keyword {', '.join(unknown)}; it takes {takes_text or 'none'}")
    if missing:
        raise ParameterError(f"{kind} {name}: missing {', '.join(missing)}; it takes {takes_text}")
    try:
        return cls(**values)
    except TypeError as err:
        raise ParameterError(f"{kind} {name}: {err}") from None


def paper_classes(record_id: str) -> dict[str, type]:
    """The buildable classes of the algorithm's paper package (samplers, ...)."""
    return classes(importlib.import_module(f"reference.{record_id.split('.')[0]}"))


def loss_classes() -> dict[str, type]:
    """Classes of :mod:`reference.losses` (losses, and regularisers for ``Regularised``)."""
    from reference import losses

    return {k: v for k, v in classes(losses).items() if issubclass(v, (losses.Loss, losses.Regulariser))}


def regulariser_classes() -> dict[str, type]:
    """The regularisers of :mod:`reference.losses` (``--regulariser``)."""
    from reference import losses

    return {k: v for k, v in classes(losses).items() if issubclass(v, losses.Regulariser)}


def domain_classes() -> dict[str, type]:
    from reference import domains

    return classes(domains)


# ----------------------------------------------------------------------------- without imports
#
# ``dperm run --list`` and ``dperm run ALGORITHM --help`` read the boxes' ``configure`` signatures and
# docstrings from the source (ast), so that answering them imports no paper (neither reference's
# numpy code nor spec's sympy records); running a box imports its paper as usual.


@dataclass(frozen=True)
class StaticBox:
    """An algorithm box as its source declares it: id, module, class and ``configure``'s parameters."""

    record_id: str
    module: str
    name: str
    signature: tuple  # (name, required, default source text or value, type text, description)


def _reference_root():
    import importlib.util
    from pathlib import Path

    found = importlib.util.find_spec("reference")
    return Path(found.submodule_search_locations[0])


def _literal(node):
    import ast

    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


@functools.lru_cache(maxsize=None)
def _parsed(path):
    """The syntax tree of a source file (each file parsed once per process)."""
    import ast

    return ast.parse(path.read_text())


@functools.lru_cache(maxsize=None)
def static_boxes() -> dict[str, StaticBox]:
    """Record id -> :class:`StaticBox` of every ``reference.<paper>.BOXES`` entry, read without importing
    (once per process; do not modify the returned dict)."""
    import ast

    root = _reference_root()
    out = {}
    for init in sorted(root.glob("*/__init__.py")):
        tree = _parsed(init)
        where = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    where[alias.asname or alias.name] = node.module
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BOXES" for t in node.targets):
                for key, value in zip(node.value.keys, node.value.values):
                    out[key.value] = _static_box(key.value, where[value.id], value.id, root)
    return dict(sorted(out.items(), key=lambda kv: (kv[0].split(".")[0], int(kv[0].rpartition("_")[2]))))


def _static_box(record_id: str, module: str, name: str, root) -> StaticBox:
    import ast

    path = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
    tree = _parsed(path)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    configure = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "configure")
    doc = ast.get_docstring(configure) or ""
    docs = _docstring_parameters(_Documented(doc))
    args = configure.args
    params = []
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        type_text, description = docs.get(arg.arg, ("", ""))
        params.append((arg.arg, default is None, None if default is None else _literal(default), type_text,
                       description))
    return StaticBox(record_id, module, name, tuple(params))


class _Documented:
    """A stand-in with a docstring, for :func:`_docstring_parameters`."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc


@functools.lru_cache(maxsize=None)
def static_vocabulary() -> dict[str, tuple[str, bool]]:
    """name -> (meaning, integer) of :data:`spec.vocabulary.VOCABULARY`, read from its source (so that
    answering ``--help`` imports no spec record; ``tests/dperm/test_introspection.py`` checks it is
    the table the import gives)."""
    import ast
    import importlib.util
    from pathlib import Path

    path = Path(importlib.util.find_spec("spec").submodule_search_locations[0]) / "vocabulary.py"
    out = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Term":
            name, meaning = (ast.literal_eval(a) for a in node.args[:2])
            integer = any(k.arg == "integer" and ast.literal_eval(k.value) for k in node.keywords)
            out[name] = (meaning, integer)
    return out


def static_parameters(record_id: str, *, skip: tuple[str, ...] = ()) -> list[Parameter]:
    """:func:`parameters` of ``record_id``'s ``configure``, read from the source (no paper imported)."""
    vocabulary = static_vocabulary()
    box = static_boxes()[record_id]
    out = []
    for name, required, default, type_text, description in box.signature:
        if name in RESERVED or name in skip:
            continue
        term = vocabulary.get(name)
        out.append(Parameter(name=name, required=required, default=default, canonical=term is not None,
                             integer=bool(term and term[1]), meaning=description or (term[0] if term else ""),
                             choices=_choices(type_text)))
    return out
