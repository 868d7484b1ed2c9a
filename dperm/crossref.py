"""Cross-references between spec records and the code that states, implements and audits them.

Three kinds of link, all read from source files with :mod:`ast` (nothing is imported, so the scan
covers code that needs numpy and audit test files that are not importable modules):

* **docstring sections**: the numpydoc sections ``Privacy`` and ``Utility`` (custom sections,
  rendered by Sphinx's napoleon through ``docs/conf.py``) name the spec ids a function's
  guarantee rests on (:func:`documented`);
* **algorithm tags**: the comments ``# [paper Alg.N Lk]`` in ``reference/`` mark the lines
  implementing algorithm box ``paper.alg_N`` (:func:`algorithm_tags`);
* **audits**: the audit suite's test files (``test_*.py`` anywhere under ``audits/``) that
  mention a record id (:func:`audit_mentions`).

>>> docstring_sections('''Sum.
...
... Privacy
... -------
... ``gaussian.analytic``: exact.
... ''')
{'Privacy': '``gaussian.analytic``: exact.'}
>>> sorted(record_ids("``gaussian.analytic`` and bst14.thm_II_1, not spec.gaussian.analytic_sigma",
...                   ["gaussian.analytic", "bst14.thm_II_1"]))
['bst14.thm_II_1', 'gaussian.analytic']
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

__all__ = [
    "SECTIONS",
    "DOCUMENTED_PACKAGES",
    "ALGORITHM_TAG",
    "Section",
    "Mention",
    "repository_root",
    "docstring_sections",
    "record_ids",
    "id_candidates",
    "documented",
    "algorithm_tags",
    "audit_mentions",
]

#: Custom numpydoc sections that name spec ids (``docs/conf.py`` declares them to napoleon).
SECTIONS = ("Privacy", "Utility")

#: ``# [bst14 Alg.1 L5]`` or ``# [bst14 Alg.3 L1-2]`` (a range of lines).
ALGORITHM_TAG = re.compile(r"#.*\[(?P<paper>[a-z0-9]+) Alg\.(?P<alg>\d+) L(?P<lo>\d+)(?:-(?P<hi>\d+))?[\] ]")

#: A token shaped like a record id (``paper.item``), not part of a longer dotted name.
_ID_SHAPE = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)\.([A-Za-z][A-Za-z0-9_]*)(?![\w]|\.\w)")
_BACKTICKED = re.compile(r"``([^`]+)``")


@dataclass(frozen=True)
class Section:
    """One ``Privacy``/``Utility`` docstring section of an object."""

    path: str  # repository-relative, posix
    qualname: str  # dotted: module.object
    lineno: int
    heading: str
    text: str


@dataclass(frozen=True)
class Mention:
    """A place in a file that refers to a record: the top-level object around it, if any."""

    path: str
    qualname: str | None  # "test_alg1_output_privacy", "Class.method"; None: module level
    lineno: int
    detail: str = ""  # tags: the labels found ("L1, L2"); audits: "module docstring" at module level


def repository_root() -> Path:
    """The checkout this package runs from (``dperm/`` sits at its top)."""
    return Path(__file__).resolve().parent.parent


def docstring_sections(docstring: str, headings: Iterable[str] = SECTIONS) -> dict[str, str]:
    """The text of each numpydoc section among ``headings`` (a heading line over a dash rule)."""
    lines = docstring.expandtabs().splitlines()
    starts = [i for i in range(len(lines) - 1)
              if lines[i].strip() and set(lines[i + 1].strip()) == {"-"} and len(lines[i + 1].strip()) >= 3]
    wanted = set(headings)
    out = {}
    for k, i in enumerate(starts):
        heading = lines[i].strip()
        if heading in wanted:
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            out[heading] = "\n".join(line.strip() for line in lines[i + 2:end]).strip()
    return out


def id_candidates(text: str, heads: Iterable[str]) -> set[str]:
    """Tokens of ``text`` that look like record ids: ``head.item`` with a known ``head``, or any
    ``paper.item``-shaped token in double backticks (so a renamed prefix is caught too)."""
    heads = set(heads)
    found = {m.group(0) for m in _ID_SHAPE.finditer(text) if m.group(1) in heads}
    for m in _BACKTICKED.finditer(text):
        token = m.group(1).strip()
        if re.fullmatch(r"[a-z][a-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*", token):
            found.add(token)
    return found


def record_ids(text: str, ids: Iterable[str]) -> set[str]:
    """The registered ``ids`` that ``text`` mentions as whole tokens."""
    ids = set(ids)
    return id_candidates(text, {i.split(".")[0] for i in ids}) & ids


def _python_files(root: Path, folder: str) -> list[Path]:
    base = root / folder
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts) if base.is_dir() else []


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _objects(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualname, node) of module-level functions and classes and of their methods."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node
            if isinstance(node, ast.ClassDef):
                for child in node.body:
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield f"{node.name}.{child.name}", child


def _is_audit_test(path: Path) -> bool:
    return path.name.startswith("test_")


#: Packages whose docstrings state guarantees by spec id (the audit harness's Privacy sections state
#: the audits' own error rates, not spec records).
DOCUMENTED_PACKAGES = ("spec", "reference", "dperm")


def documented(root: Path, folders: Iterable[str] = DOCUMENTED_PACKAGES) -> list[Section]:
    """Every Privacy/Utility docstring section of the modules under ``folders`` (never a test file)."""
    out = []
    for folder in folders:
        for path in _python_files(root, folder):
            if _is_audit_test(path):
                continue
            tree = ast.parse(path.read_text(), filename=str(path))
            module = _module_name(root, path)
            rel = path.relative_to(root).as_posix()
            nodes = [(module, tree)] + [(f"{module}.{q}", n) for q, n in _objects(tree)]
            for qualname, node in nodes:
                doc = ast.get_docstring(node, clean=True)
                if not doc:
                    continue
                for heading, text in docstring_sections(doc).items():
                    out.append(Section(rel, qualname, getattr(node, "lineno", 1), heading, text))
    return out


def _enclosing(tree: ast.Module, lineno: int) -> str | None:
    """The top-level function, class or method whose source spans ``lineno``."""
    best = None
    for qualname, node in _objects(tree):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if start <= lineno <= node.end_lineno:
            best = qualname  # a method comes after its class: the innermost wins
    return best


def algorithm_tags(root: Path) -> dict[str, list[Mention]]:
    """``{"bst14.alg_1": [Mention(reference/..., "reference...noise_gd", line, "L1, ..."), ...]}``.

    One mention per tagged function (its first tag's line), with the line labels it carries.
    """
    found: dict[tuple[str, str], tuple[str, int, set]] = {}
    for path in _python_files(root, "reference"):
        text = path.read_text()
        tree = None
        module = _module_name(root, path)
        for lineno, line in enumerate(text.splitlines(), start=1):
            m = ALGORITHM_TAG.search(line)
            if not m:
                continue
            tree = tree or ast.parse(text, filename=str(path))
            inner = _enclosing(tree, lineno)
            key = (f"{m['paper']}.alg_{m['alg']}", f"{module}.{inner}" if inner else module)
            rel, first, labels = found.setdefault(key, (path.relative_to(root).as_posix(), lineno, set()))
            labels.update(range(int(m["lo"]), int(m["hi"] or m["lo"]) + 1))
    out: dict[str, list[Mention]] = {}
    for (record_id, qualname), (rel, lineno, labels) in found.items():
        detail = ", ".join(f"L{k}" for k in sorted(labels))
        out.setdefault(record_id, []).append(Mention(rel, qualname, lineno, detail))
    return out


def audit_mentions(root: Path, ids: Iterable[str]) -> dict[str, list[Mention]]:
    """``{record_id: [Mention(audits/.../test_x.py, "test_y" or None, line), ...]}`` over the audit suite."""
    ids = sorted(set(ids))
    patterns = {i: re.compile(r"(?<![\w.])" + re.escape(i) + r"(?![\w])") for i in ids}
    out: dict[str, list[Mention]] = {}
    for path in _python_files(root, "audits"):
        if not _is_audit_test(path):
            continue
        text = path.read_text()
        tree = ast.parse(text, filename=str(path))
        rel = path.relative_to(root).as_posix()
        line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        docstring_end = _docstring_end(tree)
        for record_id, pattern in patterns.items():
            seen: set = set()
            for m in pattern.finditer(text):
                lineno = _line_of(line_starts, m.start())
                qualname = _enclosing(tree, lineno)
                detail = "" if qualname else ("module docstring" if lineno <= docstring_end else "module level")
                if (qualname, detail) not in seen:
                    seen.add((qualname, detail))
                    out.setdefault(record_id, []).append(Mention(rel, qualname, lineno, detail))
    return out


def _docstring_end(tree: ast.Module) -> int:
    """Last line of the module docstring (0 without one)."""
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno
    return 0


def _line_of(line_starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(line_starts, offset)
