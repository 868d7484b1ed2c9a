"""Generated documentation: ``python -m dperm.docs`` regenerates all of it in place.

* the README's table of spec records (between the ``spec-table`` markers);
* the reference pages ``docs/spec/<paper>.md``, ``docs/spec/primitives.md`` and their index
  (:mod:`dperm.pages`).

Both come from the registry (and, for the pages, from the code that links to each record); tests
regenerate them in memory and fail when a file is stale, so the documentation cannot drift from
the code. ``python -m dperm.docs --check`` only reports (exit status 1 when something is stale).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["spec_table", "update_readme", "BEGIN", "END"]

BEGIN = "<!-- spec-table -->"
END = "<!-- /spec-table -->"


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


def update_readme(path: Path, *, check: bool = False) -> bool:
    """Rewrite the generated section of ``path``; with ``check`` only report staleness.

    Returns True when the file is (or was) up to date.
    """
    text = path.read_text()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {BEGIN} ... {END} section")
    new = pattern.sub(lambda _: f"{BEGIN}\n{spec_table()}\n{END}", text)
    if new == text:
        return True
    if not check:
        path.write_text(new)
    return False


def main(argv: list[str] | None = None) -> int:
    """Regenerate the README table and the reference pages; ``--check``: only report, exit 1 if stale."""
    import argparse

    from dperm import pages

    parser = argparse.ArgumentParser(prog="python -m dperm.docs", description=__doc__.splitlines()[0])
    parser.add_argument("readme", nargs="?", type=Path, default=None,
                        help="the README to update (default: the repository's README.md)")
    parser.add_argument("--check", action="store_true", help="report stale files without writing; exit 1 if any")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    root = Path(__file__).resolve().parent.parent
    path = args.readme or root / "README.md"
    stale = [] if update_readme(path, check=args.check) else [path]
    stale += [root / rel for rel in pages.write_pages(root, check=args.check)]
    verb = "stale" if args.check else "updated"
    for item in stale:
        print(f"{item}: {verb}")
    if not stale:
        print("documentation: up to date")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
