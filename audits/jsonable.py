"""Results as strict JSON: the audit results' ``to_dict`` methods use :func:`spec.jsonable.strict`.

One normaliser for everything dperm writes as JSON, with one spelling of what JSON cannot hold: a
non-finite number is ``null`` and its path is listed in the result's ``"infinite"`` (``"nan"``)
list. Reading a result back for arithmetic, :func:`spec.jsonable.restore` undoes it.
"""

from __future__ import annotations

from spec.jsonable import restore, strict

__all__ = ["jsonable", "restore"]

#: ``jsonable(d)``: ``d`` as strict JSON (:func:`spec.jsonable.strict`).
jsonable = strict
