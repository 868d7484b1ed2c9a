"""Generated README sections: ``python -m dperm.docs`` rewrites them in place.

The README's table of spec records is generated from the registry; a test fails when it is
stale, so the README cannot drift from the code.
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
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "README.md"
    up_to_date = update_readme(path)
    print(f"{path}: {'up to date' if up_to_date else 'updated'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
