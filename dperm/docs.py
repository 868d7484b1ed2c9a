"""Generated documentation: ``python -m dperm.docs`` regenerates all of it in place.

* the reference pages ``docs/spec/<paper>.md``, ``docs/spec/primitives.md`` and their index
  ``docs/spec/README.md``, which holds the table of every spec record (:func:`spec_table`)
  (:mod:`dperm.pages`).

They come from the registry and from the code that links to each record; tests regenerate them in
memory and fail when a file is stale, so the documentation cannot drift from the code.
``python -m dperm.docs --check`` only reports (exit status 1 when something is stale); ``--root``
writes under another copy of the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["spec_table", "main"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def spec_table() -> str:
    """Markdown table: id, citation, claim kind, flags, summary."""
    import spec

    rows = ["| id | citation | privacy / utility | flags | summary |", "| --- | --- | --- | --- | --- |"]
    for r in spec.records():
        claims = []
        if r.privacy is not None:
            claims.append(r.privacy.model.value)
        for u in r.utility:  # a table of many cells bounds one quantity: list it once
            if u.quantity.value not in claims:
                claims.append(u.quantity.value)
        flags = ", ".join(sorted({f.kind.value for f in r.flags})) or "-"
        rows.append(
            f"| `{r.id}` | {_cell(str(r.citation))} | {_cell('; '.join(claims) or '-')} | "
            f"{_cell(flags)} | {_cell(r.summary)} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Regenerate the reference pages and their index; ``--check``: only report, exit 1 if stale."""
    import argparse

    from dperm import pages

    parser = argparse.ArgumentParser(prog="python -m dperm.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None,
                        help="the repository to write under (default: this one)")
    parser.add_argument("--check", action="store_true", help="report stale files without writing; exit 1 if any")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    root = args.root or Path(__file__).resolve().parent.parent
    stale = [root / rel for rel in pages.write_pages(root, check=args.check)]
    verb = "stale" if args.check else "updated"
    for item in stale:
        print(f"{item}: {verb}")
    if not stale:
        print("documentation: up to date")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
