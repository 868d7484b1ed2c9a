"""Generated documentation: ``python -m dperm.docs`` regenerates all of it in place.

* the reference pages ``docs/spec/<paper>.md``, ``docs/spec/primitives.md`` and their index
  ``docs/spec/README.md``, which holds the table of every spec record (:func:`spec_table`)
  (:mod:`dperm.pages`);
* the table of departures from the printed papers in ``docs/vectors/README.md``, with the
  committed vectors that carry each (between the ``departures`` markers; :func:`departures_table`).

They come from the registry and from the code that links to each record; tests regenerate them in
memory and fail when a file is stale, so the documentation cannot drift from the code.
``python -m dperm.docs --check`` only reports (exit status 1 when something is stale); ``--root``
writes under another copy of the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["spec_table", "departures_table", "update_block", "VECTORS_PAGE", "main"]

#: The page whose ``departures`` block :func:`departures_table` fills (relative to the repository).
VECTORS_PAGE = Path("docs") / "vectors" / "README.md"


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


def departures_table(root: Path) -> str:
    """Markdown table: every departure token, the record flag's summary, the committed vectors that carry it."""
    import json

    from reference.vectors.departures import departures

    carried: dict[str, list[str]] = {}
    for path in sorted((Path(root) / "reference" / "vectors").glob("*/*.json")):
        for flag in json.loads(path.read_text())["flags"]:
            carried.setdefault(flag, []).append(path.stem)
    rows = ["| flag | what dperm does instead of the print (the record's flag) | vectors that carry it |",
            "| --- | --- | --- |"]
    for token, d in departures().items():
        vectors = ", ".join(f"`{v}`" for v in carried.get(token, [])) or "none (no vector runs it)"
        rows.append(f"| `{token}` | {_cell(d.flag.summary)} | {vectors} |")
    return "\n".join(rows)


def update_block(path: Path, name: str, text: str, *, check: bool = False) -> bool:
    """Put ``text`` between ``<!-- name -->`` and ``<!-- /name -->`` in ``path``; True when it was current.

    With ``check`` nothing is written.
    """
    import re

    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    old = Path(path).read_text()
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(old):
        raise ValueError(f"{path} has no {begin} ... {end} block")
    new = pattern.sub(lambda _: f"{begin}\n{text}\n{end}", old)
    if new == old:
        return True
    if not check:
        Path(path).write_text(new)
    return False


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
    page = root / VECTORS_PAGE
    if page.is_file() and not update_block(page, "departures", departures_table(root), check=args.check):
        stale.append(page)
    verb = "stale" if args.check else "updated"
    for item in stale:
        print(f"{item}: {verb}")
    if not stale:
        print("documentation: up to date")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
