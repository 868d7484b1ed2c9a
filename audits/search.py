"""Pair search: find a bad neighbouring pair in a declared data domain, then audit it honestly.

Every catch of the audit relies on a neighbouring pair that shows the leak. For code we did not
write, the worst pair is not known; :func:`search_pairs` looks for it:

1. **Candidates** (:func:`candidate_pairs`). From a declared :class:`DataDomain` (records in the
   box ``[low, high]^dimension``, datasets of ``size`` records): *extreme records* (the corners of
   the box -- all of them up to dimension 3, else the two main diagonal corners and the
   ``2 dimension`` axis extremes -- and the centre), *base datasets* (all records at the centre,
   at the low corner, at the high corner) and, under replace-one, every base with record 0 set to
   ``x`` against the same base with record 0 set to ``x'`` (unordered pairs ``x != x'``); under
   add/remove-one, a base with record 0 set to ``x`` against the same dataset without it. With a
   declared ``query(dataset) -> array``, :data:`RANDOM_RECORDS` seeded interior records join the
   extreme ones and the candidates are ranked by the change of the query, ``||query(D) -
   query(D')||``, largest first (the records that maximise it); otherwise the pairs whose
   records are farthest apart come first. At most ``limit`` candidates per relation.
2. **Choice on search runs.** Each candidate is run ``search_runs`` times per dataset (default:
   the audit's selection share, ``ceil(0.15 runs)``) on streams of their own, and scored by the
   projected bound of its best event with the audit's own default statistics
   (:mod:`audits.statistics`, :func:`audits.selection.select_event`; the low-bit family too,
   unless ``low_bits=False`` is passed for the final audit). The best candidate wins.
3. **Test on fresh runs.** The winner is audited by :func:`audits.privacy.audit_privacy` with
   ``runs`` runs and a seed independent of the search streams. The pair is a function of the
   search runs only, which are independent of the final audit's runs, so conditionally on the
   chosen pair the audit errs with probability at most its alpha: the error rate is preserved.

Both relations. With ``relation=None`` the search runs under replace-one *and* add/remove-one,
each final audit at ``alpha / 2`` (so both verdicts together err with probability at most
``alpha``), and the result says, when the claim is refuted under one relation, whether it is
refuted under the other: a mechanism calibrated for add/remove-one (sensitivity ``R``) but
claimed for replace-one (``2R``) is refuted under replace-one and holds under add/remove-one.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from audits import execution, selection, stats
from audits import statistics as stat
from audits.pairs import NeighbouringPair, add_remove_one, replace_one
from audits.privacy import AuditResult, _call, _name, audit_privacy
from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError
from spec.record import Neighbouring

__all__ = ["DataDomain", "SearchResult", "candidate_pairs", "search_pairs", "RANDOM_RECORDS"]

#: Interior records drawn (seeded) when a query ranks the candidates.
RANDOM_RECORDS = 16


@dataclass(frozen=True)
class DataDomain:
    """Records in ``[low, high]^dimension`` (bounds may be per coordinate); datasets of ``size``
    records, each record a row of ``dimension`` numbers (``dimension=0``: scalar records)."""

    low: object
    high: object
    dimension: int
    size: int

    def __post_init__(self):
        dim = validate.integer("dimension", self.dimension, minimum=0)
        validate.integer("size", self.size, minimum=2)
        shape = (max(dim, 1),)
        low = np.broadcast_to(np.asarray(self.low, dtype=float), shape).copy()
        high = np.broadcast_to(np.asarray(self.high, dtype=float), shape).copy()
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))) or np.any(low >= high):
            raise ParameterError(f"domain bounds low ({self.low!r}) and high ({self.high!r}) must be finite "
                                 "with low < high")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def record(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return x.reshape(()) if self.dimension == 0 else x

    def extreme_records(self) -> list[np.ndarray]:
        """Corners (all up to dimension 3; else diagonal corners and axis extremes) and the centre."""
        low, high = self.low, self.high
        centre = 0.5 * (low + high)
        p = low.size
        if p <= 3:
            corners = [np.array(c) for c in itertools.product(*zip(low, high))]
        else:
            corners = [low.copy(), high.copy()]
            for j in range(p):
                for v in (low[j], high[j]):
                    x = centre.copy()
                    x[j] = v
                    corners.append(x)
        return [*corners, centre]

    def base(self, x) -> np.ndarray:
        """``size`` copies of record ``x``."""
        x = np.asarray(x, dtype=float)
        rows = np.repeat(x[None, :], self.size, axis=0)
        return rows[:, 0] if self.dimension == 0 else rows


def _change(query, pair: NeighbouringPair) -> float:
    a = np.asarray(query(pair.dataset), dtype=float).reshape(-1)
    b = np.asarray(query(pair.neighbour), dtype=float).reshape(-1)
    if a.shape != b.shape or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ParameterError("query must return finite arrays of one shape on every dataset")
    return float(np.linalg.norm(a - b))


def candidate_pairs(domain: DataDomain, *, relation, query=None, limit=8, seed=0) -> list[NeighbouringPair]:
    """Candidate neighbouring pairs of ``domain`` under ``relation`` (module docstring, step 1)."""
    if not isinstance(domain, DataDomain):
        raise TypeError(f"domain ({domain!r}) must be a DataDomain")
    relation = Neighbouring.parse(relation)
    limit = validate.integer("limit", limit, minimum=1)
    records = domain.extreme_records()
    if query is not None:
        rng = np.random.default_rng(seed)
        records += [domain.low + (domain.high - domain.low) * rng.random(domain.low.size)
                    for _ in range(RANDOM_RECORDS)]
    centre = records[-1 if query is None else -1 - RANDOM_RECORDS]
    bases = [centre, domain.low, domain.high]
    found, keys = [], []
    for b, base_record in enumerate(bases):
        base = domain.base(base_record)
        if relation is Neighbouring.REPLACE_ONE:
            for (i, x), (j, y) in itertools.combinations(enumerate(records), 2):
                d = base.copy()
                d[0] = domain.record(x)
                pair = replace_one(d, 0, domain.record(y))
                found.append(pair)
                keys.append(float(np.linalg.norm(np.asarray(x) - np.asarray(y))))
        else:
            for x in records:
                d = base.copy()
                d[0] = domain.record(x)
                found.append(add_remove_one(d, index=0))
                keys.append(float(np.linalg.norm(np.asarray(x) - np.asarray(base_record))))
    if query is not None:
        keys = [_change(query, p) for p in found]
    order = sorted(range(len(found)), key=lambda i: -keys[i])  # stable: bases and records in order
    return [found[i] for i in order[:limit]]


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`search_pairs`: per relation, the chosen pair, the candidates' search
    scores and the final audit."""

    audits: dict
    pairs: dict
    scores: dict = field(repr=False)
    seed: int = 0

    @property
    def violated(self) -> bool:
        return any(r.violated for r in self.audits.values())

    def verdict(self) -> str:
        """One line per relation, and what a refutation under one says about the other."""
        parts = [f"{rel}: {'REFUTED' if r.violated else 'not refuted'} (lower bound {r.epsilon_lower:.3g}, "
                 f"alpha {r.alpha:g}) on {_describe(self.pairs[rel])}" for rel, r in self.audits.items()]
        refuted = [rel for rel, r in self.audits.items() if r.violated]
        holds = [rel for rel, r in self.audits.items() if not r.violated]
        if refuted and holds:
            parts.append(f"refuted under {', '.join(refuted)}; not refuted under {', '.join(holds)}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.verdict()


def _describe(pair: NeighbouringPair) -> str:
    def rows(d):
        return np.asarray(d).reshape(np.asarray(d).shape[0], -1)

    a, b = rows(pair.dataset), rows(pair.neighbour)
    if pair.relation is Neighbouring.REPLACE_ONE:
        i = int(np.flatnonzero(np.any(a != b, axis=1))[0])
        return (f"replace record {i} = {a[i].tolist()} by {b[i].tolist()} in a dataset of {a.shape[0]} "
                f"records (others {a[(i + 1) % a.shape[0]].tolist()})")
    return f"datasets of {a.shape[0]} and {b.shape[0]} records (removed {a[0].tolist()})"


def _score(mechanism, pair, n, streams, m, *, epsilon, delta, alpha, name, runs, profile=None, low_bits=None):
    """How strongly ``n`` search runs of the pair speak against the claim: point mode, the
    projected bound of the best event of the default statistics (low bits included); profile
    mode, the largest ``P_p(S_t) - B(P_q(S_t))`` over the threshold events of the value
    statistic (raw frequencies: a ranking, not a test)."""
    out_d = _call(mechanism, pair.dataset, n, streams[0], name, runs)
    out_n = _call(mechanism, pair.neighbour, n, streams[1], name, runs)
    mode = "point" if profile is None else "profile"
    family = stat.value_family(mechanism, pair.dataset, pair.neighbour, None, out_d, out_n, mode=mode,
                               whiten=False, name=name)
    if profile is not None:
        from audits.claims import ClaimBound

        st = family[0]
        t_d, t_n = st.apply(out_d), st.apply(out_n)
        thresholds = selection.candidates(np.concatenate([t_d, t_n]))
        counts = selection.event_counts(np.sort(t_d), np.sort(t_n), thresholds)
        bound = ClaimBound(profile, (epsilon,))
        return max(float(np.max(k_p / n - bound.on_grid(k_q / n))) for k_p, k_q in counts.values())
    best = selection.select_among(family, out_d, out_n, m, delta=delta, alpha=alpha)[2]
    if low_bits is not False and stat.continuous_float(out_d, out_n) and stat.is_default(None, mechanism):
        half = n // 2
        bits = stat.bits_family(out_d[:half], out_n[:half])
        best = max(best, selection.select_among(bits, out_d[half:], out_n[half:], m, delta=delta, alpha=alpha)[2])
    return best


def _score_task(job, task):
    """One candidate's search runs, on whichever worker runs it (a chunk: one candidate)."""
    mechanism, n, kw = job
    pair, seed_sequence = task
    gens = [np.random.default_rng(s) for s in seed_sequence.spawn(2)]
    return _score(mechanism, pair, n, gens, **kw)


def search_pairs(mechanism, domain: DataDomain, *, epsilon, delta=0.0, runs, alpha=0.05, seed=None,
                 relation=None, query=None, limit=8, search_runs=None, executor=None,
                 **audit_options) -> SearchResult:
    """Search the domain for the worst neighbouring pair, then audit it on fresh runs.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, runs, rng)`` as for :func:`audits.privacy.audit_privacy`.
    domain : DataDomain
        The declared data domain.
    epsilon, delta, runs, alpha : as for :func:`audits.privacy.audit_privacy`
        ``alpha`` is shared by the relations searched (``alpha / 2`` each for both).
    seed : int or None
        Seed of the search and of the final audits (drawn when None; stored on the result).
    relation : Neighbouring, str or None
        One relation, or None for both (module docstring).
    query : callable, optional
        ``query(dataset) -> array``: ranks candidates by its change.
    limit : int
        Candidates per relation.
    search_runs : int, optional
        Runs per dataset and candidate on the search streams (default ``ceil(0.15 runs)``).
    executor : concurrent.futures.Executor, distributed.Client or None
        Where the candidates' search runs (one chunk per candidate, each on its own streams, so
        the result does not depend on it) and the final audits execute
        (:mod:`audits.execution`); ``None``: the one set by :func:`audits.execution.using`, else
        this process.
    **audit_options
        Passed to the final :func:`audits.privacy.audit_privacy` calls (``statistic``, ...).

    Returns
    -------
    SearchResult
    """
    epsilon = validate.epsilon(epsilon)
    delta = validate.delta(delta, allow_zero=True)
    runs = validate.integer("runs", runs, minimum=100)
    alpha = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    if query is not None and not callable(query):
        raise TypeError(f"query ({query!r}) must be callable as query(dataset)")
    if seed is None:
        seed = fresh_seed()
    seed = validate.integer("seed", seed, minimum=0)
    n = search_runs if search_runs is not None else int(math.ceil(stats.SELECTION_FRACTION * runs))
    n = validate.integer("search_runs", n, minimum=20)
    relations = ([Neighbouring.REPLACE_ONE, Neighbouring.ADD_REMOVE_ONE] if relation is None
                 else [Neighbouring.parse(relation)])
    share = alpha / len(relations)
    name = _name(mechanism)
    search_seed, audit_seed = np.random.SeedSequence(seed).spawn(2)
    search_seeds, audit_seeds = search_seed.spawn(len(relations)), audit_seed.spawn(len(relations))
    ex = execution.resolve(executor)
    kw = dict(m=runs, epsilon=epsilon, delta=delta, alpha=share, name=name, runs=runs,
              profile=audit_options.get("profile"), low_bits=audit_options.get("low_bits"))
    audits, pairs, scores = {}, {}, {}
    for r_index, rel in enumerate(relations):
        candidates = candidate_pairs(domain, relation=rel, query=query, limit=limit, seed=seed)
        streams = search_seeds[r_index].spawn(len(candidates))
        with ex.job(runs=2 * n * len(candidates), label=f"pair search for {name} ({rel.value})") as job:
            shared = (job.share((mechanism, n, kw), f"mechanism {name}"),)
            found = job.map(_score_task, shared, list(zip(candidates, streams)), runs=lambda t: 2 * n,
                            what="candidate")
        best = int(np.argmax(found))
        final_seed = int(audit_seeds[r_index].generate_state(1, dtype=np.uint64)[0] >> 1)
        result: AuditResult = audit_privacy(mechanism, candidates[best], epsilon=epsilon, delta=delta, runs=runs,
                                            alpha=share, seed=final_seed, executor=ex, **audit_options)
        audits[rel.value], pairs[rel.value], scores[rel.value] = result, candidates[best], found
    return SearchResult(audits=audits, pairs=pairs, scores=scores, seed=seed)
