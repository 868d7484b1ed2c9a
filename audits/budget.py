"""The family-wise false-alarm budget of ``pytest audits``, split hierarchically.

A whole run of the audit suite raises a false alarm (refutes a correct mechanism's claim, or fails
a correct rate) with probability at most :data:`FAMILY_ALPHA` = 0.01, by the union bound
(Bonferroni). The budget is split in two levels:

1. **Shares.** The primitives, each paper, and audits outside the repository's suite get fixed
   fractions of 0.01 (:data:`SHARES`). Adding a paper's audits therefore changes no other share.
2. **Slots.** Inside a share, each audit gets one of a fixed number of equal slots, so an audit's
   alpha -- hence its run counts, its numbers and its verdict -- is the same whether it runs alone,
   in a ``-k`` selection or in the full suite. A share that collects more audits than slots falls
   back to ``share alpha / K`` (still within the budget, but selections no longer reproduce the
   full run's numbers; the summary says so).

An audit's share is the folder directly under ``audits/suite/`` that holds its file
(``audits/suite/bst14/test_bst14_privacy.py`` -> ``bst14``). Audits collected from anywhere else
(a user's own files run with the plugin) share the ``other`` fraction.

>>> [(s.name, s.alpha_per_slot) for s in SHARES[:2]]
[('primitives', 0.00015625), ('bst14', 0.00015625)]
>>> abs(sum(float(s.fraction) for s in SHARES) - 1.0) < 1e-15
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import PurePosixPath

__all__ = ["FAMILY_ALPHA", "Share", "SHARES", "SUITE", "share_of", "share_named", "per_audit_alpha"]

#: Family-wise false-alarm rate of one whole ``pytest audits`` run.
FAMILY_ALPHA = 0.01

#: The folder of the repository's audit suite (test files; not an installed package).
SUITE = "audits/suite"


@dataclass(frozen=True)
class Share:
    """A fixed fraction of :data:`FAMILY_ALPHA`, split into ``slots`` equal per-audit shares."""

    name: str
    fraction: Fraction
    slots: int

    @property
    def alpha(self) -> float:
        """The share's part of the family-wise budget."""
        return float(self.fraction * Fraction(FAMILY_ALPHA))

    @property
    def alpha_per_slot(self) -> float:
        """One audit's alpha when the share holds at most ``slots`` audits."""
        return float(self.fraction * Fraction(FAMILY_ALPHA) / self.slots)


#: The split. The primitives and bst14 keep the 0.01/64 per audit they had before the split; each
#: later paper gets 1/10 of the budget over 12 slots (wang17 over 16: its one-run audit was its
#: 13th); audits outside the suite share the rest.
SHARES: tuple[Share, ...] = (
    Share("primitives", Fraction(1, 4), 16),
    Share("bst14", Fraction(1, 4), 16),
    Share("zhang17", Fraction(1, 10), 12),
    Share("wang17", Fraction(1, 10), 16),
    Share("wang19", Fraction(1, 10), 12),
    Share("wang20", Fraction(1, 10), 12),
    Share("other", Fraction(1, 10), 64),
)

_BY_NAME = {s.name: s for s in SHARES}


def share_named(name: str) -> Share:
    """The share called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"share ({name!r}) must be one of {sorted(_BY_NAME)}") from None


def share_of(path: str) -> Share:
    """The share of an audit in file ``path`` (a node id's path, relative to the rootdir).

    >>> share_of("audits/suite/wang19/test_wang19_privacy.py").name
    'wang19'
    >>> share_of("my_audits/test_mine.py").name
    'other'
    """
    parts = PurePosixPath(str(path).replace("\\", "/")).parts
    suite = PurePosixPath(SUITE).parts
    for i in range(len(parts) - len(suite)):
        if parts[i:i + len(suite)] == suite:
            folder = parts[i + len(suite)]
            if folder not in _BY_NAME or folder == "other":
                raise KeyError(f"audit folder {SUITE}/{folder} has no budget share; add one to audits.budget.SHARES")
            return _BY_NAME[folder]
    return _BY_NAME["other"]


def per_audit_alpha(share: Share, audits: int) -> float:
    """Alpha of one audit in ``share`` when ``audits`` of the share's audits were collected:
    ``share.alpha / max(audits, slots)``."""
    return share.alpha / max(int(audits), share.slots, 1)
