"""Generate the known-answer vectors: ``python -m reference.vectors.generate [--paper P] [--out DIR] [--fresh]``.

One generator for every paper. A paper's cases live in ``reference/<paper>/vectors.py``
(``CASES``, ``build_vector(case, tape)``, ``compute(vector, tape)``); its vectors in
``reference/vectors/<paper>/``; one schema, ``reference/vectors/schema.json``, for all.

A vector is defined by its inputs and its noise tape; everything else (derived constants,
checkpoints, output) is recomputed by the reference from them. When a vector file already
exists (under ``--source``, default the committed ``reference/vectors``), its stored tape is
reused, so regeneration is deterministic on any machine (and where only the last bits of the
recomputed checkpoints or output differ, within the vector's tolerance, the stored ones are kept);
a tape is drawn from the case's fixed seed only when the vector is new (or with ``--fresh``).
Every vector must declare only what is true (:mod:`reference.vectors.declared`): the generator
refuses one that does not. Output is canonical JSON: sorted keys,
one-space indentation, floats written by ``repr`` (shortest round-trip form).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
from pathlib import Path

import numpy as np

import reference
from reference.tape import NoiseTape

__all__ = ["VECTOR_ROOT", "SCHEMA_PATH", "papers", "cases_of", "vector_dir", "vector_files", "compute",
           "dumps", "generate", "main"]

VECTOR_ROOT = Path(__file__).resolve().parent
SCHEMA_PATH = VECTOR_ROOT / "schema.json"


def papers() -> list[str]:
    """The reference packages that define vector cases (``reference/<paper>/vectors.py``)."""
    out = []
    for m in pkgutil.iter_modules(reference.__path__):
        if m.ispkg and importlib.util.find_spec(f"reference.{m.name}.vectors") is not None:
            out.append(m.name)
    return sorted(out)


def _cases_module(paper: str):
    return importlib.import_module(f"reference.{paper}.vectors")


def cases_of(paper: str) -> tuple:
    """The vector cases of ``paper``."""
    return tuple(_cases_module(paper).CASES)


def vector_dir(paper: str, root: Path = VECTOR_ROOT) -> Path:
    """Where ``paper``'s vectors live under ``root``."""
    return Path(root) / paper


def vector_files(root: Path = VECTOR_ROOT) -> list[Path]:
    """Every committed vector file (all papers)."""
    return sorted(Path(root).glob("*/*.json"))


def compute(vector: dict, tape: NoiseTape) -> dict:
    """Run the reference on a vector's inputs with ``tape`` (dispatched on the paper key of
    ``vector["algorithm"]``); returns derived, checkpoints, output and flags (departures included)."""
    from reference.vectors.build import with_departures

    paper = vector["algorithm"].split()[0]
    return with_departures(vector, _cases_module(paper).compute(vector, tape))


def dumps(vector: dict) -> str:
    """Canonical JSON: sorted keys, indent 1, floats by repr, trailing newline."""
    return json.dumps(vector, sort_keys=True, indent=1, allow_nan=False) + "\n"


def generate(out_root=VECTOR_ROOT, *, source_root=VECTOR_ROOT, fresh: bool = False,
             only: list[str] | None = None) -> list[Path]:
    """Write every case's vector to ``out_root/<paper>/``; reuse tapes stored under ``source_root``."""
    written = []
    for paper in papers():
        if only and paper not in only:
            continue
        module = _cases_module(paper)
        out = vector_dir(paper, out_root)
        out.mkdir(parents=True, exist_ok=True)
        for case in module.CASES:
            stored = vector_dir(paper, source_root) / f"{case['id']}.json"
            old = json.loads(stored.read_text()) if stored.exists() and not fresh else None
            tape = None if old is None else NoiseTape.from_dict(old["tape"])
            vector = module.build_vector(case, tape)
            path = out / f"{case['id']}.json"
            path.write_text(dumps(_keep_stored_floats(vector, old)))
            written.append(path)
    return written


def _within(a, b, tolerance: dict) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance["absolute"] + tolerance["relative"] * np.abs(b)))


def _keep_stored_floats(vector: dict, old: dict | None) -> dict:
    """``vector``, with the stored checkpoints and output when nothing else changed and the recomputed
    ones match them within the vector's tolerance: the last bits of BLAS and libm results differ
    between machines, and regeneration should not rewrite a vector for them."""
    if old is None or any(vector.get(k) != old.get(k) for k in vector if k not in ("checkpoints", "output")):
        return vector
    tol = vector["tolerance"]
    same = (len(vector["checkpoints"]) == len(old["checkpoints"])
            and all((a["step"], a["iterate"]) == (b["step"], b["iterate"]) and _within(a["theta"], b["theta"], tol)
                    for a, b in zip(vector["checkpoints"], old["checkpoints"]))
            and vector["output"].keys() == old["output"].keys()
            and all(_within(vector["output"][k], old["output"][k], tol) for k in vector["output"]))
    return {**vector, "checkpoints": old["checkpoints"], "output": old["output"]} if same else vector


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(VECTOR_ROOT), help="output root (one folder per paper)")
    parser.add_argument("--source", default=str(VECTOR_ROOT), help="root whose stored tapes are reused")
    parser.add_argument("--fresh", action="store_true", help="draw new tapes from the cases' fixed seeds")
    parser.add_argument("--paper", action="append", choices=papers(), help="only this paper (repeatable)")
    args = parser.parse_args(argv)
    for path in generate(args.out, source_root=args.source, fresh=args.fresh, only=args.paper):
        print(f"{path.parent.name}/{path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
