r"""One-run privacy audits: test a DP claim from a single training run, with canaries.

The multi-run audits (:mod:`audits.privacy`) run a mechanism thousands of times on one
neighbouring pair, so they audit algorithms at toy sizes. A one-run audit (Steinke, Nasr and
Jagielski 2023) inserts ``m`` canaries, each included independently with probability 1/2, fits
*once* at the size people train, guesses which canaries were included from the output, and bounds
epsilon from the number of correct guesses with a bound that holds for every (eps, delta)-DP
algorithm::

    from audits.one_run import audit_one_run
    from audits.one_run_canaries import coordinate_canaries
    design = coordinate_canaries(loss, count=1000, dimension=p)       # in-domain, replace-one
    result = audit_one_run(fit, base=rows, design=design, epsilon=2.0, delta=1e-6, alpha=0.05, seed=1)
    print(result)   # claim, eps_lower, canaries, records, seed, verdict

The pieces: the bound and the guessing rule (:mod:`audits.one_run_bounds`), the canaries, data
assembly and scores (:mod:`audits.one_run_canaries`), the Gaussian variant
(:mod:`audits.one_run_gaussian`).

Randomness
----------
``numpy.random.SeedSequence(seed).spawn(3)``: the secrets ``S`` (child 0), the fit (child 1:
``fit(data, rng)``), and the auditor's coins (child 2: tie breaks, the split). The secrets are
independent of everything the fit draws, as the bound requires.

Score families and alpha
------------------------
``scores`` maps a family name to ``score(output) -> (m,)``: one number per slot, larger when the
canary is in, ``NaN`` for slots the family does not score (e.g. a white-box score over one group of
slots). The default is one black-box family, :meth:`CanaryDesign.projections` of the output.
Each family is one *guess test* (:mod:`audits.one_run_bounds`, rule ``guesses``); each family
named in ``gaussian`` with ``"exact"`` adds one *Gaussian test* (the caller asserts the model of
:mod:`audits.one_run_gaussian`). The J tests of the verdict share alpha equally (alpha/J each;
the union rule splits a family's share again over its K guess counts), so by the union bound::

    P[violated] <= alpha   and   P[epsilon_lower > true epsilon at delta] <= alpha

whenever the algorithm is (epsilon, delta)-DP under the design's relation (``epsilon_lower`` is the
largest of the tests' bounds). A family named with ``"estimate"`` gets a Gaussian *estimate*
(``mu_hat``, ``mu_lower`` at level alpha, the epsilon they imply): reported under ``estimates``,
never part of the verdict, because its model is an assumption about the code, not a consequence of
the claim.

For a subset of slots (a family with NaN elsewhere, or the split rule's test part) the bound's
``m`` is the number of slots the test guesses among: given the other slots' secrets, the algorithm
is still (eps, delta)-DP in each of those coordinates.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import asdict, dataclass
from typing import Callable, Mapping

import numpy as np

from audits import one_run_bounds as bounds
from audits.jsonable import jsonable
from audits.one_run_canaries import CanaryDesign
from audits.one_run_gaussian import gaussian_test
from reference.rng import fresh_seed
from spec import validate
from spec.errors import ParameterError

__all__ = ["OneRunResult", "audit_one_run", "GUESS_RULES"]

#: The guessing rules (an int gives a fixed number of guesses per side).
GUESS_RULES = ("union", "split")


@dataclass(frozen=True)
class OneRunResult:
    """Outcome of :func:`audit_one_run`.

    Attributes
    ----------
    violated : bool
        The claim is refuted at confidence ``1 - alpha`` (some test of the verdict rejected).
    epsilon_lower : float
        Lower confidence bound on epsilon at the claimed delta (the largest of the tests' bounds).
    epsilon, delta : float
        The claim.
    alpha : float
        Error level of the verdict.
    seed : int
        Seed of every random draw (secrets, fit, auditor).
    canaries : int
        ``m``, the number of slots.
    included : int
        Canaries in (``S_i = +1``).
    records : int
        ``n``, the size of the data set the fit ran on.
    relation : str
        The relation a slot flip realises.
    mechanism, design : str
        What was audited, with which canaries.
    seconds : float
        Wall time of the one fit (the audit's compute).
    tests : tuple of dict
        The tests of the verdict (guess tests and exact Gaussian tests), with their alphas.
    estimates : tuple of dict
        Gaussian estimates (not part of the verdict).
    """

    violated: bool
    epsilon_lower: float
    epsilon: float
    delta: float
    alpha: float
    seed: int
    canaries: int
    included: int
    records: int
    relation: str
    mechanism: str
    design: str
    seconds: float
    tests: tuple = ()
    estimates: tuple = ()

    def family_bounds(self) -> dict:
        """``family -> largest epsilon_lower`` of its tests."""
        out: dict = {}
        for t in self.tests:
            name = t["family"]
            out[name] = max(out.get(name, 0.0), float(t["epsilon_lower"]))
        return out

    def __str__(self) -> str:
        claim = f"({self.epsilon:g}, {self.delta:g})-DP"
        conf = f"{100 * (1 - self.alpha):.6g}%"
        parts = ", ".join(f"{k} {v:.3g}" for k, v in self.family_bounds().items())
        est = "".join(f"; {e['family']} estimate eps {e['epsilon_estimate']:.3g} (mu {e['mu_hat']:.3g})"
                      for e in self.estimates)
        verdict = "REFUTED" if self.violated else "not refuted"
        return (f"{claim} claim, one run: lower bound {self.epsilon_lower:.3g} at {conf} ({parts}){est} | "
                f"{self.canaries} canaries, {self.records} records, {self.seconds:.3g} s | seed {self.seed} | "
                f"{verdict}")

    def to_dict(self) -> dict:
        """JSON-ready dictionary (``result_type`` ``"one_run"``)."""
        d = asdict(self)
        d["result_type"] = "one_run"
        d["summary"] = str(self)
        return jsonable(d)


def _call_fit(fit, data, rng):
    try:
        params = inspect.signature(fit).parameters
        keyword = "rng" in params and params["rng"].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                             inspect.Parameter.KEYWORD_ONLY)
        keyword = keyword or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    except (TypeError, ValueError):
        keyword = False
    return fit(data, rng=rng) if keyword else fit(data, rng)


def _families(scores, design: CanaryDesign) -> dict[str, Callable]:
    if scores is None:
        return {"black-box": design.projections}
    if callable(scores):
        return {"score": scores}
    if isinstance(scores, Mapping) and scores:
        for name, fn in scores.items():
            if not isinstance(name, str) or not callable(fn):
                raise TypeError(f"scores ({name!r}: {fn!r}) must map family names to callables score(output)")
        return dict(scores)
    raise TypeError(f"scores ({scores!r}) must be None, a callable or a non-empty mapping of callables")


def _gaussian_modes(gaussian, names) -> dict[str, str]:
    if gaussian is None:
        return {}
    if not isinstance(gaussian, Mapping):
        raise TypeError(f"gaussian ({gaussian!r}) must be None or a mapping family -> 'exact' | 'estimate'")
    out = {}
    for name, mode in gaussian.items():
        if name not in names:
            raise ParameterError(f"gaussian names family {name!r}, which is not among the scores ({sorted(names)})")
        out[name] = validate.choice("gaussian mode", mode, {"exact", "estimate"})
    return out


def _scored(fn, output, secrets, name):
    s = np.asarray(fn(output), dtype=float).reshape(-1)
    if s.shape != secrets.shape:
        raise ParameterError(f"score family {name!r} returned shape {s.shape}; it must return one value per slot "
                             f"({secrets.size})")
    keep = ~np.isnan(s)
    if not np.all(np.isfinite(s[keep])):
        raise ParameterError(f"score family {name!r} returned infinite scores")
    if keep.sum() < 2:
        raise ParameterError(f"score family {name!r} scores fewer than two slots")
    return s[keep], secrets[keep]


def audit_one_run(fit, *, base, design: CanaryDesign, epsilon: float, delta: float = 0.0, alpha: float = 0.05,
                  seed: int | None = None, scores=None, gaussian=None, guesses="union",
                  fractions=bounds.DEFAULT_FRACTIONS, selection: float = 0.25, name: str | None = None,
                  ) -> OneRunResult:
    """Audit an (epsilon, delta) claim from one run of ``fit`` with the canaries of ``design``.

    Parameters
    ----------
    fit : callable
        ``fit(data, rng) -> output``: one training run on ``data (n, k)`` drawing only from ``rng``
        (a numpy Generator; passed as ``rng=`` when the signature names it). The output is what the
        score families read (a parameter vector for the default black-box score).
    base : array_like, shape (n0, k)
        The records that are always in.
    design : CanaryDesign
        The slots (:mod:`audits.one_run_canaries`).
    epsilon, delta : float
        The claim, under ``design.relation``.
    alpha : float
        Error level of the verdict (module docstring).
    seed : int or None
        Seed of all randomness; ``None`` draws one (stored and printed).
    scores : callable or mapping, optional
        Score families (module docstring); default the black-box projections.
    gaussian : mapping, optional
        ``family -> "exact" | "estimate"``: the Gaussian test of :mod:`audits.one_run_gaussian` on
        that family's scores (``"exact"`` joins the verdict and needs ``delta > 0``).
    guesses : {"union", "split"} or int
        The guessing rule: union over ``fractions`` (default), the split rule with ``selection`` of
        the slots, or a fixed number of guesses per side.
    fractions : sequence of float
        Guess fractions per side for the union and split rules.
    selection : float
        Share of the slots that choose the fraction under the split rule.
    name : str, optional
        What is audited (default: the qualified name of ``fit``).

    Returns
    -------
    OneRunResult

    Privacy
    -------
    ``P[violated] <= alpha`` for every algorithm that is (epsilon, delta)-DP under
    ``design.relation`` (module docstring; the bound is :mod:`audits.one_run_bounds`).
    """
    if not callable(fit):
        raise TypeError(f"fit ({fit!r}) must be callable as fit(data, rng)")
    if not isinstance(design, CanaryDesign):
        raise TypeError(f"design ({design!r}) must be an audits.one_run_canaries.CanaryDesign")
    e = validate.epsilon(epsilon)
    d = validate.delta(delta, allow_zero=True)
    a = validate.interval("alpha", alpha, 0.0, 1.0, closed="neither")
    families = _families(scores, design)
    modes = _gaussian_modes(gaussian, families)
    if modes and d == 0.0:
        raise ParameterError("gaussian needs delta > 0: a Gaussian channel is not pure DP (its epsilon at "
                             "delta = 0 is infinite)")
    if isinstance(guesses, str):
        rule = validate.choice("guesses", guesses, set(GUESS_RULES))
    else:
        rule = validate.integer("guesses", guesses, minimum=1)
    if seed is None:
        seed = fresh_seed()
    seed = validate.integer("seed", seed, minimum=0)
    label = name or getattr(fit, "__qualname__", None) or type(fit).__name__

    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3)]
    secrets = design.secrets(rng=streams[0])
    data = design.assemble(base, secrets)
    start = time.perf_counter()
    output = _call_fit(fit, data, streams[1])
    seconds = time.perf_counter() - start
    auditor = streams[2]

    verdict_count = len(families) + sum(1 for mode in modes.values() if mode == "exact")
    share = a / verdict_count
    tests, estimates = [], []
    for fam, fn in families.items():
        s, sec = _scored(fn, output, secrets, fam)
        kw = dict(epsilon=e, delta=d, rng=auditor, family=fam)
        if rule == "union":
            tests += [t.to_dict() for t in bounds.union_test(s, sec, alpha=share, fractions=fractions, **kw)]
        elif rule == "split":
            tests.append(bounds.split_test(s, sec, alpha=share, selection=selection, fractions=fractions,
                                           **kw).to_dict())
        else:
            tests.append(bounds.fixed_test(s, sec, per_side=rule, alpha=share, **kw).to_dict())
        if fam in modes:
            exact = modes[fam] == "exact"
            g = gaussian_test(s, sec, epsilon=e, delta=d, alpha=share if exact else a,
                              exact=exact, family=f"gaussian ({fam})")
            (tests if exact else estimates).append(g.to_dict())
    return OneRunResult(
        violated=any(bool(t["violated"]) for t in tests),
        epsilon_lower=max(float(t["epsilon_lower"]) for t in tests),
        epsilon=e, delta=d, alpha=a, seed=seed, canaries=design.size, included=int(np.sum(secrets == 1)),
        records=int(np.asarray(data).shape[0]), relation=design.relation.value, mechanism=label,
        design=design.name, seconds=seconds, tests=tuple(tests), estimates=tuple(estimates),
    )
