"""``dperm vectors list`` and ``dperm vectors check FILE --outputs MINE.json``.

``list`` shows the committed known-answer vectors (``reference/vectors/<paper>/``) with their
ids, algorithms, flags and spec ids. ``check`` compares your implementation's outputs with a
vector -- a file (e.g. one ``dperm run --vector`` wrote) or a committed vector's id -- under the
vector's tolerance, and reports the first mismatch precisely: the field, the index, your value,
the vector's, and the allowed difference (:mod:`reference.vectors.check`). Exit status: 0 when
every value matches, 1 on a mismatch, 2 on bad arguments or unreadable files.
"""

from __future__ import annotations

import argparse

from dperm.arguments import UsageError

__all__ = ["add_arguments", "execute"]


def add_arguments(parser: argparse.ArgumentParser, sub_parser_class) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=sub_parser_class)
    p = sub.add_parser("list", help="list the committed vectors: id, algorithm, flags, spec ids")
    p.add_argument("--paper", metavar="PAPER", help="only this paper's vectors (e.g. bst14)")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")
    p = sub.add_parser("check", help="compare your outputs with a vector under its tolerance",
                       epilog="MINE.json holds any of {\"output\": {\"theta\": [[...]]}, \"checkpoints\": "
                              "[{\"step\": t, \"theta\": [[...]]}], \"derived\": {\"sigma\": ...}} in the vector's "
                              "shapes. Exit status 0: every value matches; 1: a mismatch (the first is printed "
                              "with its field, index, your value, the vector's and the allowed difference); "
                              "2: bad arguments or unreadable files.")
    p.add_argument("vector", metavar="FILE", help="a vector file, or the id of a committed vector (dperm vectors list)")
    p.add_argument("--outputs", required=True, metavar="MINE.json",
                   help="your implementation's outputs (JSON, the vector's field shapes)")
    p.add_argument("--all", action="store_true", help="print every mismatch, not only the first")
    p.add_argument("--json", action="store_true", help="machine-readable output (strict JSON, indented by 2)")


def _list(args):
    import json

    from reference.vectors.generate import VECTOR_ROOT, papers, vector_files

    if args.paper is not None and args.paper not in papers():
        raise UsageError(f"--paper ({args.paper}) must be one of {', '.join(papers())}")
    rows = []
    for path in vector_files():
        if args.paper is not None and path.parent.name != args.paper:
            continue
        v = json.loads(path.read_text())
        rows.append({"id": v["id"], "algorithm": v["algorithm"], "flags": v["flags"], "spec": v["spec"],
                     "file": str(path.relative_to(VECTOR_ROOT.parent.parent))})
    if args.json:
        return rows
    widths = [max([len(r[k]) for r in rows] + [len(k)]) for k in ("id", "algorithm")]
    lines = [f"{'id':<{widths[0]}}  {'algorithm':<{widths[1]}}  flags; spec ids"]
    for r in rows:
        lines.append(f"{r['id']:<{widths[0]}}  {r['algorithm']:<{widths[1]}}  {', '.join(r['flags']) or '-'}; "
                     f"{', '.join(r['spec'])}")
    return "\n".join(lines)


def _check(args):
    from reference.vectors import check as checking

    vector = checking.load_vector(args.vector)
    outputs = checking.load_outputs(args.outputs)
    result = checking.check(vector, outputs)
    status = 0 if result.ok else 1
    if args.json:
        return result.to_dict(), status
    text = str(result)
    if args.all and len(result.mismatches) > 1:
        text += "\n" + "\n".join(f"  {m}" for m in result.mismatches)
    return text, status


def execute(args) -> tuple[object, int]:
    """(output, exit status) of ``dperm vectors ACTION``."""
    if args.action is None:
        raise UsageError("vectors needs an action: list or check (see dperm vectors --help)")
    if args.action == "list":
        return _list(args), 0
    return _check(args)
