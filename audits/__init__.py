"""dperm audits: privacy and utility audits with stated error rates.

``pytest audits`` runs the audit suite; the harness is importable for your own mechanisms::

    from audits import audit_privacy, replace_one
    pair = replace_one(data, 0, record)
    result = audit_privacy(mechanism, pair, epsilon=1.0, delta=1e-5, runs=200_000, seed=1)
    print(result)          # one line: claim, estimate, bound, runs, alpha, seed, verdict

Modules: :mod:`audits.stats` (Clopper-Pearson and DKW bounds, run counts for a target power),
:mod:`audits.pairs` (neighbouring pairs that are checked to be neighbours),
:mod:`audits.privacy` (:func:`audit_privacy`, point and profile modes),
:mod:`audits.utility` (:func:`audit_rate`, :func:`audit_level`, :func:`audit_band`),
:mod:`audits.adapters` (:func:`per_sample`: a one-sample function as a batched mechanism),
:mod:`audits.search` (:func:`search_pairs`: the worst neighbouring pair of a declared data domain),
:mod:`audits.execution` (``executor=``: runs in seeded chunks on any Executor or a Dask cluster),
:mod:`audits.streaming` (the test runs reduced chunk by chunk),
:mod:`audits.report`, :mod:`audits.plugin` (the pytest plugin) and :mod:`audits.command` (``dperm audit``).
"""

from __future__ import annotations

from audits.adapters import per_sample
from audits.pairs import (
    NeighbouringPair,
    add_remove_one,
    assert_neighbours,
    replace_one,
)
from audits.privacy import AuditResult, RngWarning, audit_privacy, audit_real_valued, claim_bound
from audits.stats import (
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    dkw_radius,
    runs_for_gaussian,
    runs_for_laplace,
    runs_for_point,
    runs_for_profile,
)
from audits.search import DataDomain, SearchResult, search_pairs
from audits.utility import BandResult, LevelResult, RateResult, audit_band, audit_level, audit_rate

__all__ = [
    "audit_privacy",
    "audit_real_valued",
    "AuditResult",
    "RngWarning",
    "claim_bound",
    "audit_rate",
    "RateResult",
    "audit_level",
    "LevelResult",
    "audit_band",
    "BandResult",
    "per_sample",
    "search_pairs",
    "DataDomain",
    "SearchResult",
    "NeighbouringPair",
    "replace_one",
    "add_remove_one",
    "assert_neighbours",
    "clopper_pearson",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dkw_radius",
    "runs_for_point",
    "runs_for_profile",
    "runs_for_gaussian",
    "runs_for_laplace",
]
