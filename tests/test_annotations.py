"""Self-guard: the public API of the listed modules is fully annotated.

A public function or method (name not starting with ``_``; dunder methods of classes included,
``__init__`` too) must annotate every parameter but ``self``/``cls`` and its return. Methods
count in public classes and in private base classes of a public class of the same module (their
public methods are inherited API). Nested functions are not API. The shared aliases are used by
name: every ``rng`` is a ``RngLike`` (:mod:`reference.rng`), every ``noise=None`` a ``NoiseLike``
or ``NoiseSource | None`` (:mod:`reference.tape`).

Add a module to :data:`ANNOTATED` once it is fully annotated.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Modules whose public API is fully annotated (paths from the repository root).
ANNOTATED = (
    "spec/__init__.py",
    "spec/cache.py",
    "spec/calibrations.py",
    "spec/composition.py",
    "spec/errors.py",
    "spec/exponential.py",
    "spec/gaussian.py",
    "spec/index.py",
    "spec/inversion.py",
    "spec/jsonable.py",
    "spec/lazy.py",
    "spec/laplace.py",
    "spec/profiles.py",
    "spec/rdp.py",
    "spec/rdp_subsampled.py",
    "spec/record.py",
    "spec/registry.py",
    "spec/render.py",
    "spec/sensitivity.py",
    "spec/validate.py",
    "spec/vocabulary.py",
    "spec/zcdp.py",
    "spec/bst14/__init__.py",
    "spec/bst14/exponential_sampling.py",
    "spec/bst14/grid_walk.py",
    "spec/bst14/localization_algorithms.py",
    "spec/bst14/lower_bounds.py",
    "spec/bst14/noisy_sgd.py",
    "spec/bst14/noisy_sgd_privacy.py",
    "spec/bst14/symbols.py",
    "spec/bst14/table_i.py",
    "spec/wang17/__init__.py",
    "spec/wang17/accelerated_mirror_descent.py",
    "spec/wang17/gradient_descent.py",
    "spec/wang17/moments_accountant.py",
    "spec/wang19/__init__.py",
    "spec/wang19/definitions.py",
    "spec/wang19/proximal_gradient.py",
    "spec/wang19/frank_wolfe.py",
    "spec/wang19/frank_wolfe_l1.py",
    "spec/wang19/gaussian_width.py",
    "spec/wang19/mirror_descent.py",
    "spec/wang19/population.py",
    "spec/wang19/symbols.py",
    "spec/wang20/__init__.py",
    "spec/wang20/gradient_descent.py",
    "spec/wang20/sample_and_aggregate.py",
    "spec/wang20/symbols.py",
    "spec/zhang17/__init__.py",
    "spec/zhang17/convex_utility.py",
    "spec/zhang17/preliminaries.py",
    "spec/zhang17/stability.py",
    "spec/zhang17/symbols.py",
    "spec/zhang17/table.py",
    "reference/__init__.py",
    "reference/algorithms.py",
    "reference/arrays.py",
    "reference/problem.py",
    "reference/proximal.py",
    "reference/results.py",
    "reference/rng.py",
    "reference/samplers.py",
    "reference/schedules.py",
    "reference/solver.py",
    "reference/stationarity.py",
    "reference/tape.py",
    "reference/bst14/__init__.py",
    "reference/bst14/exponential_sampling.py",
    "reference/bst14/grid_walk.py",
    "reference/bst14/instances.py",
    "reference/bst14/localization_algorithms.py",
    "reference/bst14/noisy_sgd.py",
    "reference/bst14/vectors.py",
    "reference/domains/__init__.py",
    "reference/domains/balls.py",
    "reference/domains/base.py",
    "reference/domains/boxes.py",
    "reference/domains/euclidean.py",
    "reference/domains/intersection.py",
    "reference/domains/polytope.py",
    "reference/domains/simplex.py",
    "reference/losses/__init__.py",
    "reference/losses/base.py",
    "reference/losses/linear_predictors.py",
    "reference/losses/points.py",
    "reference/losses/regularisers.py",
    "reference/losses/robust.py",
    "reference/losses/bounds.py",
    "reference/mechanisms/__init__.py",
    "reference/mechanisms/additive.py",
    "reference/mechanisms/base.py",
    "reference/mechanisms/noisy_gd.py",
    "reference/mechanisms/selection.py",
    "reference/wang19/__init__.py",
    "reference/wang19/common.py",
    "reference/wang19/frank_wolfe.py",
    "reference/wang19/frank_wolfe_l1.py",
    "reference/wang19/mirror_descent.py",
    "reference/wang19/proximal_gradient.py",
    "reference/wang19/vectors.py",
    "reference/vectors/__init__.py",
    "reference/vectors/build.py",
    "reference/vectors/declared.py",
    "reference/vectors/departures.py",
    "reference/zhang17/__init__.py",
    "reference/zhang17/instances.py",
    "reference/zhang17/output_perturbation.py",
    "reference/zhang17/random_round_sgd.py",
    "reference/zhang17/vectors.py",
    "reference/vectors/check.py",
    "reference/vectors/from_run.py",
)

#: The one spelling of each shared parameter type (parameter name -> accepted annotations).
_ALIASES = {
    "rng": {"RngLike"},
    "noise": {"NoiseLike", "NoiseSource | None"},  # only where ``noise`` defaults to None
}


def _is_public(name: str, *, in_class: bool) -> bool:
    if name.startswith("__") and name.endswith("__"):
        return in_class
    return not name.startswith("_")


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _problems(func: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> list[str]:
    args = func.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    out = []
    for i, (arg, default) in enumerate(pairs):
        if i == 0 and in_class and not _is_static(func) and arg.arg in ("self", "cls"):
            continue
        if arg.annotation is None:
            out.append(f"parameter {arg.arg!r} is not annotated")
            continue
        accepted = _ALIASES.get(arg.arg)
        if arg.arg == "noise" and not (isinstance(default, ast.Constant) and default.value is None):
            accepted = None  # a required NoiseSource (an internal hook) is fine
        if accepted and ast.unparse(arg.annotation) not in accepted:
            out.append(f"parameter {arg.arg!r} is annotated {ast.unparse(arg.annotation)!r}, "
                       f"not {' or '.join(sorted(accepted))}")
    for star, arg in (("*", args.vararg), ("**", args.kwarg)):
        if arg is not None and arg.annotation is None:
            out.append(f"parameter {star}{arg.arg} is not annotated")
    if func.returns is None:
        out.append("no return annotation")
    return out


def unannotated(source: str, path: str) -> list[str]:
    """``path:line qualname: problem`` for every gap in the public API of a module's source."""
    tree = ast.parse(source)
    # private classes that a public class of this module extends: their public methods are API
    bases = {b.id for node in tree.body if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
             for b in node.bases if isinstance(b, ast.Name)}
    found: list[str] = []

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                if not node.name.startswith("_") or node.name in bases:
                    walk(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _is_public(node.name, in_class=in_class):
                    found.extend(f"{path}:{node.lineno} {prefix}{node.name}: {p}"
                                 for p in _problems(node, in_class))
            elif isinstance(node, ast.If):
                walk(node.body + node.orelse, prefix, in_class)
            elif isinstance(node, ast.Try):
                walk(node.body + node.orelse + node.finalbody, prefix, in_class)

    walk(tree.body, "", False)
    return found


@pytest.mark.parametrize("path", ANNOTATED)
def test_public_api_is_annotated(path):
    file = ROOT / path
    assert file.is_file(), f"{path} is listed in ANNOTATED but does not exist (renamed? update the list)"
    problems = unannotated(file.read_text(), path)
    assert not problems, "\n".join(problems)


def test_the_list_has_no_duplicates():
    assert len(set(ANNOTATED)) == len(ANNOTATED)


# --------------------------------------------------------------------------- the checker itself
_SAMPLE = textwrap.dedent('''
    def ok(x: int, *, rng: RngLike = None, noise: NoiseLike = None) -> int: ...
    def no_return(x: int): ...
    def bare(x, *args, **kw) -> None: ...
    def wrong_rng(*, rng: int | None = None) -> None: ...
    def _private(x): ...
    class _Base:
        def inherited(self, y): ...
    class Public(_Base):
        def __init__(self, a: int): ...
        def method(self, b: int) -> int:
            def nested(c): ...
            return b
        @staticmethod
        def static(self) -> None: ...
        @property
        def prop(self): ...
    class _Unused:
        def hidden(self, z): ...
''')


def test_checker_reports_each_kind_of_gap_with_file_and_line():
    problems = unannotated(_SAMPLE, "sample.py")
    assert problems == [
        "sample.py:3 no_return: no return annotation",
        "sample.py:4 bare: parameter 'x' is not annotated",
        "sample.py:4 bare: parameter *args is not annotated",
        "sample.py:4 bare: parameter **kw is not annotated",
        "sample.py:5 wrong_rng: parameter 'rng' is annotated 'int | None', not RngLike",
        "sample.py:8 _Base.inherited: parameter 'y' is not annotated",
        "sample.py:8 _Base.inherited: no return annotation",
        "sample.py:10 Public.__init__: no return annotation",
        "sample.py:15 Public.static: parameter 'self' is not annotated",
        "sample.py:17 Public.prop: no return annotation",
    ]
