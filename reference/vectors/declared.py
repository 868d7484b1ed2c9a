"""Declared is true: what a known-answer vector declares, and the hypotheses of what it cites, hold.

A vector declares bounds (the loss's data bounds, a minimiser norm ``D``, a population's smoothness
or second moment) and cites spec records (``spec``). :func:`failures` checks

1. **the declared bounds**: every row within the loss's bounds; the loss's radius covers the
   domain; ``minimiser_norm`` (declared or derived) bounds the norm of the empirical minimiser,
   certified with :func:`reference.solver.minimise` and a curvature bound (:func:`minimiser_norm_bounds`);
2. **every symbolic assumption of every cited record** (``record.failed_assumptions``) at the
   vector's values, under canonical names; an assumption the vector's values cannot decide must be
   listed in :data:`NOT_APPLICABLE` with the reason, or the vector is refused;
3. **every other hypothesis of every cited record** (:data:`HYPOTHESES`: convexity, strong
   convexity, the PL condition, a centrally symmetric domain, ``||w_hat|| <= D``, and, for wang20's
   utility theorems, the assumptions on the population the data are drawn from, which the case
   states as a :class:`Population` of exact facts).

The generator refuses a vector with a failure (:func:`require`, called by
:func:`reference.vectors.build.complete`). A check certifies or refuses: where the truth cannot be
certified (a loss whose curvature has no bound here, a population not stated), the vector is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from reference.domains import Domain
from reference.losses import Loss

__all__ = ["Population", "Instance", "Hypothesis", "HYPOTHESES", "NOT_APPLICABLE", "DeclaredFalseError",
           "failures", "require", "minimiser_norm_bounds"]


class DeclaredFalseError(ValueError):
    """A vector declares something false, or cites a record whose hypotheses it breaks."""


@dataclass(frozen=True)
class Population:
    """Exact facts about the law a case's data are drawn from (wang20's utility theorems assume it).

    Every number is exact or a certified bound in the safe direction, derived in the case's module
    from the stated law.

    Attributes
    ----------
    law : str
        The law, in words (e.g. ``"x_j ~ 0.2 + Laplace(1), independent"``).
    smoothness : float
        An upper bound on ``sup_w lambda_max(Hessian of L_D(w))`` (Assumption 1.2: beta >= it).
    strong_convexity : float or None
        A lower bound on ``inf_{w in W} lambda_min(Hessian of L_D(w))`` (alpha <= it).
    minimiser : tuple of float
        ``w* = argmin over R^d of L_D`` (Assumption 1.4 needs it inside W).
    second_moment : float or None
        An upper bound on ``sup_{w in W, j} E[(grad_j l(w, x))^2]`` (Assumption 4: v >= it).
    gradient_mean_range : (float, float) or None
        An interval containing ``E[grad_j l(w, x)]`` for every ``w in W`` and ``j``
        (Assumption 3.2: [a, b] must contain it).
    subexponential : bool
        Whether every ``grad_j l(w, x)`` is sub-exponential and Lipschitz in ``w`` (Assumption 3.1).
    """

    law: str
    smoothness: float
    minimiser: tuple
    strong_convexity: float | None = None
    second_moment: float | None = None
    gradient_mean_range: tuple | None = None
    subexponential: bool = False


@dataclass
class Instance:
    """A vector with its built loss and domain (the context every check reads)."""

    vector: dict
    population: Population | None = None
    _solved: dict = field(default_factory=dict, repr=False)

    @property
    def parameters(self) -> dict:
        return self.vector["parameters"]

    @property
    def derived(self) -> dict:
        return self.vector.get("derived", {})

    @cached_property
    def data(self) -> np.ndarray:
        return np.asarray(self.vector["inputs"]["data"], dtype=np.float64)

    @cached_property
    def loss(self) -> Loss | None:
        from reference.vectors.build import build_loss

        spec = self.vector["inputs"].get("loss")
        return None if spec is None else build_loss(spec)

    @cached_property
    def domain(self) -> Domain | None:
        from reference.vectors.build import build_domain

        spec = self.vector["inputs"].get("domain")
        return None if spec is None else build_domain(spec)

    @property
    def regularisation(self) -> float:
        """The strength of an l2 regulariser given beside the loss (wang17 DP-SVRG), else 0."""
        reg = self.vector["inputs"].get("regulariser")
        return float(reg["bounds"]["strength"]) if reg and reg["name"] == "L2Regulariser" else 0.0


@dataclass(frozen=True)
class Hypothesis:
    """A hypothesis of a record that is not a symbolic assumption: ``check(instance)`` returns the
    failure message, or None when it holds (certified)."""

    name: str
    statement: str
    check: Callable[[Instance], str | None]


# ------------------------------------------------------------------------------ minimiser norms


def _curvature(loss: Loss, rows: np.ndarray, radius: float) -> float:
    """A lower bound on the least eigenvalue of the average loss's Hessian on the ball of ``radius``
    (0 when none is known here)."""
    from reference import losses

    declared = loss.constants.strong_convexity
    if declared > 0:
        return declared
    if isinstance(loss, losses.Regularised):
        reg = loss.regulariser.constants(dim=rows.shape[1] - loss.loss.supervised, domain_radius=loss.domain_radius)
        return _curvature(loss.loss, rows, radius) + reg.strong_convexity
    if isinstance(loss, (losses.Logistic, losses.LeastSquares)):
        x, _ = loss.split(rows)
        gram = np.linalg.eigvalsh(x.T @ x / len(x))[0]
        if isinstance(loss, losses.LeastSquares):
            return max(float(gram), 0.0)
        # sigma'(t) = sigma(t)(1 - sigma(t)) decreases in |t| <= radius max ||x||
        t = radius * float(np.max(np.linalg.norm(x, axis=1)))
        return max(float(gram), 0.0) * math.exp(-t) / (1.0 + math.exp(-t)) ** 2
    return 0.0


def minimiser_norm_bounds(loss: Loss, rows: np.ndarray, *, radius: float) -> tuple[float, float]:
    """Certified ``(lower, upper)`` bounds on ``||w_hat||``, ``w_hat`` the minimiser over R^p of the
    average loss, or ValueError when none is found inside the ball of ``radius``.

    The solver's point ``theta`` over the ball of ``radius`` (a bounded problem) and the gradient
    ``g`` there; with ``mu`` a lower bound on the curvature on that ball (:func:`_curvature`),
    ``F(w) >= F(theta) - ||g|| r + mu r^2/2`` at distance ``r`` from theta, which exceeds ``F(theta)``
    on the sphere when ``radius - ||theta|| > 2 ||g||/mu``: the minimiser over the ball is then
    interior, hence the global minimiser of the convex F, and ``||w_hat - theta|| <= ||g||/mu``.
    """
    from reference.domains import L2Ball
    from reference.solver import minimise

    p = loss.dim_of_row(rows.shape[1])
    if loss.domain_radius is not None:
        radius = min(radius, loss.domain_radius)
    solved = minimise(loss, rows, L2Ball(radius=radius, dim=p), normalisation="average", tolerance=1e-13)
    theta = solved.theta
    g = float(np.linalg.norm(loss.total_gradient(theta, rows, normalisation="average", check=False)))
    g = g * (1 + 1e-9) + 1e-15 * (1 + float(np.linalg.norm(theta)))  # rounding of the computed gradient
    mu = _curvature(loss, rows, radius)
    norm = float(np.linalg.norm(theta))
    if not mu > 0 or not radius - norm > 2 * g / mu:
        raise ValueError(f"no minimiser certified inside the ball of radius {radius!r} (solver point of norm "
                         f"{norm:.6g}, gradient norm {g:.3g}, curvature bound {mu:.3g})")
    return max(0.0, norm - g / mu), norm + g / mu


def _declared_minimiser_norm(inst: Instance) -> str | None:
    declared = inst.parameters.get("minimiser_norm", inst.derived.get("minimiser_norm"))
    if declared is None or inst.loss is None:
        return None
    key = ("minimiser", declared)
    if key not in inst._solved:
        try:
            inst._solved[key] = minimiser_norm_bounds(inst.loss, inst.loss.validate_data(inst.data),
                                                      radius=2 * declared + 1)
        except ValueError as err:
            inst._solved[key] = str(err)
    found = inst._solved[key]
    if isinstance(found, str):
        return f"minimiser_norm ({declared!r}): {found}, so ||w_hat|| <= {declared!r} is not certified"
    low, high = found
    if high <= declared:
        return None
    return (f"minimiser_norm ({declared!r}) is false: the minimiser has norm in [{low:.6g}, {high:.6g}] "
            f"(reference.solver.minimise, certified)")


# ------------------------------------------------------------------------------ declared bounds


def _declared_bounds(inst: Instance) -> list[str]:
    out = []
    if inst.loss is not None:
        try:
            inst.loss.validate_data(inst.data)
        except ValueError as err:
            out.append(f"data outside the declared loss bounds: {err}")
        radius = getattr(inst.loss, "domain_radius", None)
        if radius is not None and inst.domain is not None and math.isfinite(inst.domain.max_norm) \
                and inst.domain.max_norm > radius:
            out.append(f"the loss's domain_radius ({radius!r}) does not cover the domain {inst.domain!r}")
    theta_1 = inst.vector["inputs"].get("theta_1")
    if theta_1 is not None and inst.domain is not None and not np.all(inst.domain.contains(np.asarray(theta_1))):
        out.append("inputs.theta_1 is not in the domain")
    bad = _declared_minimiser_norm(inst)
    if bad:
        out.append(bad)
    return out


# ------------------------------------------------------------------------------ hypotheses


def _convex(inst: Instance) -> str | None:
    return None if inst.loss.convex else f"the loss {inst.loss!r} is not convex"


def _strongly_convex(inst: Instance) -> str | None:
    mu = inst.loss.constants.strong_convexity
    return None if mu > 0 else f"the loss {inst.loss!r} is not strongly convex (strong convexity {mu!r})"


def _regularised_strongly_convex(inst: Instance) -> str | None:
    if inst.loss.constants.strong_convexity + inst.regularisation > 0:
        return None
    return "F^r = F + r is not strongly convex (no l2 regulariser, loss strong convexity 0)"


def _schedule_strong_convexity(inst: Instance) -> str | None:
    if inst.parameters.get("schedule") != "strongly_convex":
        return None
    return _strongly_convex(inst)


def _polyak_lojasiewicz(inst: Instance) -> str | None:
    # strong convexity implies PL with the same modulus; nothing else certifies it here. A
    # G-Lipschitz F that is mu-PL on R^p is bounded (F - F* <= ||grad F||^2/(2 mu) <= G^2/(2 mu)),
    # which no Lipschitz loss of reference.losses is: pseudo-Huber grows linearly, and Welsch's
    # gradient vanishes at infinity while F - F* does not.
    if inst.loss.constants.strong_convexity > 0:
        return None
    return (f"the PL condition is not certified for {inst.loss!r} on R^p (only strong convexity certifies it; a "
            f"G-Lipschitz function that is PL on R^p is bounded)")


def _centrally_symmetric(inst: Instance) -> str | None:
    from reference.domains import L1Ball, L2Ball

    d = inst.domain
    if isinstance(d, (L1Ball, L2Ball)) and not np.any(getattr(d, "center", 0.0)):
        return None
    return f"the domain {d!r} is not a centrally symmetric ball (centred at 0)"


def _finite_vertices(inst: Instance) -> str | None:
    from reference.domains import L1Ball, Simplex

    return None if isinstance(inst.domain, (L1Ball, Simplex)) else f"the domain {inst.domain!r} is not a polytope"


def _nonnegative_loss(inst: Instance) -> str | None:
    from reference import losses

    ok = (losses.Sigmoid, losses.Welsch, losses.Logistic, losses.Huber, losses.PseudoHuberDistance,
          losses.WelschDistance, losses.Cauchy)
    return None if isinstance(inst.loss, ok) else f"the loss {inst.loss!r} is not known to be nonnegative"


def _exact_minimiser(inst: Instance) -> str | None:
    """bst14 Algorithm 3 perturbs the minimiser: the vector's theta* must be it (independent solve)."""
    from reference.solver import minimise

    tau = inst.parameters.get("solver_tolerance", 0.0)
    star = inst.derived.get("theta_star")
    if star is None:
        return None
    rows = inst.loss.validate_data(inst.data)
    solved = minimise(inst.loss, rows, inst.domain, tolerance=1e-12, distance_tolerance=1e-9)
    gap = float(np.linalg.norm(np.asarray(star) - solved.theta))
    allowed = math.sqrt(2 * tau / (len(rows) * inst.loss.constants.strong_convexity)) + 2 * solved.distance_bound
    return None if gap <= allowed + 1e-12 else f"derived theta_star is {gap:.3g} from the minimiser (allowed {allowed:.3g})"


def _two_minimiser_norms_in_radius(inst: Instance) -> str | None:
    """zhang17 Theorem 2: L-Lipschitz on {||w|| <= 2D}: the loss's declared radius must cover 2D."""
    d = inst.derived.get("minimiser_norm", inst.parameters.get("minimiser_norm"))
    radius = getattr(inst.loss, "domain_radius", None)
    if radius is None or d is None or 2 * d <= radius * (1 + 1e-15):
        return None
    return f"2 D ({2 * d!r}) exceeds the radius ({radius!r}) on which the loss's constants hold"


def _minimiser_norm_declared(inst: Instance) -> str | None:
    declared = inst.parameters.get("minimiser_norm", inst.derived.get("minimiser_norm"))
    return None if declared is not None else "no minimiser_norm D is declared"


def _population(need: str) -> Callable[[Instance], str | None]:
    """A wang20 population assumption, checked against the case's :class:`Population`."""

    def check(inst: Instance) -> str | None:
        pop, prm = inst.population, inst.parameters
        if pop is None:
            return "the data's population is not stated (the case must give a Population)"
        radius = inst.domain.max_norm
        w_star = float(np.linalg.norm(pop.minimiser))
        if need == "assumption_1":
            if not prm["smoothness"] >= pop.smoothness:
                return f"smoothness ({prm['smoothness']!r}) is below the population risk's ({pop.smoothness!r}; {pop.law})"
            if not w_star < radius:
                return f"w* ({pop.minimiser}) is not inside W (radius {radius!r}): grad L_D(w*) = 0 fails"
            return None
        if need == "strong_convexity":
            alpha = prm.get("strong_convexity")
            if pop.strong_convexity is None or not alpha <= pop.strong_convexity:
                return f"strong_convexity ({alpha!r}) exceeds the population risk's ({pop.strong_convexity!r}; {pop.law})"
            return None
        if need == "assumption_3":
            lo, hi = pop.gradient_mean_range or (-math.inf, math.inf)
            if not pop.subexponential:
                return f"the gradient coordinates are not sub-exponential and Lipschitz in w ({pop.law})"
            if not (prm["mean_lower"] <= lo and hi <= prm["mean_upper"]):
                return (f"[mean_lower, mean_upper] ([{prm['mean_lower']!r}, {prm['mean_upper']!r}]) does not contain "
                        f"the range of E grad_j l ([{lo!r}, {hi!r}])")
            return None
        if need == "assumption_4":
            if pop.second_moment is None or not prm["second_moment"] >= pop.second_moment:
                return f"second_moment ({prm['second_moment']!r}) is below sup E[(grad_j l)^2] ({pop.second_moment!r})"
            return None
        if need == "assumption_5":  # W contains the ball of radius 2 ||w0 - w*|| around w* (w0 = 0)
            return None if 3 * w_star <= radius else f"W (radius {radius!r}) does not contain B(w*, 2 ||w*||), ||w*|| = {w_star!r}"
        raise AssertionError(need)

    return check


_H = Hypothesis
_CONVEX = _H("convex", "every l(., row) is convex", _convex)
_PL = _H("polyak_lojasiewicz", "F satisfies the PL condition with mu > 0 on R^p", _polyak_lojasiewicz)
_SYMMETRIC = _H("centrally_symmetric", "C is bounded, closed, convex and centrally symmetric", _centrally_symmetric)
_D = _H("minimiser_norm", "||w_hat|| <= D (checked as a declared bound)", _minimiser_norm_declared)
_A1 = _H("assumption_1", "L_D is beta-smooth and w* = argmin_W L_D has grad L_D(w*) = 0", _population("assumption_1"))
_ALPHA = _H("strong_convexity", "L_D is alpha-strongly convex", _population("strong_convexity"))
_A3 = _H("assumption_3", "grad_j l is sub-exponential and Lipschitz; a <= E grad_j l <= b", _population("assumption_3"))
_A4 = _H("assumption_4", "E[(grad_j l(w, x))^2] <= v for every w in W", _population("assumption_4"))
_A5 = _H("assumption_5", "W contains {w: ||w - w*|| <= 2 ||w^0 - w*||}", _population("assumption_5"))

#: The hypotheses of each record that a vector may cite, beyond its symbolic assumptions and the
#: declared data bounds (loss constants are the loss class's guarantees, valid for rows within the
#: bounds, which :func:`_declared_bounds` checks). An empty tuple says: considered, nothing more.
#: A vector citing a record missing here is refused.
HYPOTHESES: dict[str, tuple[Hypothesis, ...]] = {
    "bst14.alg_1": (),
    "bst14.thm_II_1": (),
    "bst14.thm_II_4": (_CONVEX, _H("strongly_convex_schedule", "the strongly convex schedule needs Delta > 0",
                                   _schedule_strong_convexity)),
    "bst14.alg_2": (_CONVEX,),
    "bst14.thm_III_1": (_CONVEX,),
    "bst14.alg_3": (_CONVEX, _H("strongly_convex", "l is Delta-strongly convex, Delta > 0", _strongly_convex),
                    _H("exact_minimiser", "theta* is the minimiser over C (to the declared solver gap)",
                       _exact_minimiser)),
    "bst14.alg_4": (_CONVEX, _H("strongly_convex", "l is Delta-strongly convex, Delta > 0", _strongly_convex)),
    "bst14.thm_IV_1": (),
    "wang17.alg_1": (_CONVEX,),
    "wang17.alg_2": (_CONVEX,),
    "wang17.svrg_step_privacy": (_CONVEX,),
    "wang17.thm_4_1": (),
    "wang17.thm_4_2": (_CONVEX, _H("regularised_strongly_convex", "F^r is mu-strongly convex, mu > 0",
                                   _regularised_strongly_convex)),
    "wang17.thm_4_3": (),
    "wang17.thm_4_4": (_CONVEX,),
    "wang17.alg_3": (),
    "wang17.thm_5_3": (),
    "wang17.thm_5_4": (),
    "wang17.full_batch_calibration": (),
    "wang17.alg_4": (),
    "wang17.thm_6_1": (),
    "wang17.thm_6_2": (_PL,),
    "wang17.thm_6_3": (),
    "wang19.alg_1": (), "wang19.alg_2": (), "wang19.alg_3": (), "wang19.alg_4": (),
    "wang19.eq_3": (), "wang19.thm_1": (), "wang19.thm_2": (),
    "wang19.def_8": (), "wang19.def_9": (), "wang19.lemma_1": (), "wang19.lemma_3": (),
    "wang19.thm_4": (_SYMMETRIC,),
    "wang19.thm_5": (_SYMMETRIC,),
    "wang19.thm_6": (_H("finite_vertices", "A, the vertices of the polytope C, is finite", _finite_vertices),),
    "wang20.alg_1": (), "wang20.thm_1": (),
    "wang20.alg_2": (), "wang20.thm_3": (),  # its utility claim is for every distribution with mean in [a, b]
    "wang20.alg_3": (), "wang20.thm_4": (),
    "wang20.thm_5": (_A1, _ALPHA, _A3),
    "wang20.alg_4": (), "wang20.eq_9": (),
    "wang20.lemma_3": (_A4,),
    "wang20.thm_7": (_A1, _ALPHA, _A4),
    "wang20.thm_8": (_A1, _A4, _A5),
    "zhang17.alg_1": (), "zhang17.thm_1": (),
    "zhang17.lemma_2": (_CONVEX,),
    "zhang17.lemma_3": (_H("strongly_convex", "every f(., xi) is mu-strongly convex, mu > 0", _strongly_convex),),
    "zhang17.thm_2": (_H("strongly_convex", "f is mu-strongly convex, mu > 0", _strongly_convex), _D,
                      _H("lipschitz_on_2d_ball", "f is L-Lipschitz on {||w|| <= 2D}", _two_minimiser_norms_in_radius)),
    "zhang17.thm_3": (_CONVEX, _D),
    "zhang17.alg_2": (),
    "zhang17.thm_4": (),
    "zhang17.thm_5": (_H("nonnegative", "f >= 0, so h_0 = sup_xi f(w_0, xi) bounds F(w_0) - F*", _nonnegative_loss),),
}

#: Symbolic assumptions a vector's values do not decide, and why they do not apply to it.
NOT_APPLICABLE: dict[tuple[str, str], str] = {
    ("bst14.thm_II_4", "strong_convexity_consistent"): "only the strongly convex schedule uses Delta; under the "
                                                       "Lipschitz schedule the loss may have Delta = 0",
    ("wang17.thm_4_1", "side_condition"): "c_1 is the paper's unspecified constant; the accountant calibration "
                                          "certifies the run without it (the record's flags)",
    ("wang17.thm_4_3", "side_condition"): "c_1 is the paper's unspecified constant; the accountant calibration "
                                          "certifies the run without it (the record's flags)",
    ("wang17.svrg_step_privacy", "alpha_ge_2"): "the Renyi orders are the accountant's own, checked when it runs",
    ("wang17.svrg_step_privacy", "split_lt_1"): "the noise split is the accountant's own, checked when it runs",
    ("wang19.thm_1", "order_gt_1"): "Renyi orders belong to the 'rdp' calibration, not the zCDP one vectors use",
    ("wang19.thm_1", "order_admissible"): "Renyi orders belong to the 'rdp' calibration, not the zCDP one vectors use",
}

#: Canonical names a record spells differently from the vector's values.
_ALIASES = {"wang19.lemma_1": {"epsilon_total": "epsilon", "delta_prime": "delta"}}


def _values(inst: Instance) -> dict:
    """The vector's values under canonical names (inputs, parameters, derived)."""
    prm, der = inst.parameters, inst.derived
    out = {"n": der.get("n", len(inst.data)), "dimension": der.get("p")}
    for key in ("epsilon", "zeta", "solver_tolerance", "epochs", "epoch_length", "mean_lower", "mean_upper",
                "second_moment", "failure_probability", "subsets", "smoothness", "strong_convexity"):
        if isinstance(prm.get(key), (int, float)):
            out[key] = prm[key]
    if prm.get("delta"):
        out["delta"] = prm["delta"]  # delta = 0: the epsilon-DP branch (assumptions on delta do not apply)
    for key in ("lipschitz", "smoothness", "strong_convexity", "sigma", "diameter", "steps", "learning_rate",
                "sensitivity", "initial_gap", "minimiser_norm", "trim"):
        if isinstance(der.get(key), (int, float)) and not isinstance(der.get(key), bool):
            out.setdefault(key, der[key])
    for key in ("steps", "learning_rate"):
        if isinstance(prm.get(key), (int, float)) and not isinstance(prm.get(key), bool):
            out[key] = prm[key]
    if "steps" in out:
        out["step"] = out["steps"]  # per-step assumptions (t <= T): the largest t is T
    if inst.domain is not None and math.isfinite(inst.domain.diameter):
        out.setdefault("diameter", inst.domain.diameter)
    for key in ("modulus", "gaussian_width"):
        if isinstance(der.get(key), (int, float)):
            out[key] = der[key]
    try:
        out["total_strong_convexity"] = inst.loss.constants.strong_convexity + inst.regularisation
    except (AttributeError, ValueError):
        pass  # no loss, or a heavy-tailed loss without constants
    return {k: v for k, v in out.items() if v is not None}


def _symbolic(record, inst: Instance, values: dict) -> list[str]:
    aliases = _ALIASES.get(record.id, {})
    names = {s.name for s in record.symbols}
    given = {}
    for name in names:
        if aliases.get(name, name) in values:
            try:
                record.check(**{name: values[aliases.get(name, name)]})  # the symbol's own sign and type
            except (ValueError, TypeError):
                continue  # e.g. strong_convexity 0 where the symbol is positive: not this run's branch
            given[name] = values[aliases.get(name, name)]
    out = []
    for a in record.failed_assumptions(**given):
        out.append(f"{record.id}: assumption {a.name!r} ({a.statement}) fails at "
                   + ", ".join(f"{k}={given[k]!r}" for k in sorted(given)))
    for a in record.unchecked_assumptions(**given):
        if (record.id, a.name) in NOT_APPLICABLE:
            continue
        missing = {next(s.name for s in record.symbols if s.symbol == sym) for sym in a.relation.free_symbols} - set(given)
        if missing == {"delta"} and not inst.parameters.get("delta"):
            continue  # delta = 0: the pure-DP branch
        out.append(f"{record.id}: assumption {a.name!r} ({a.statement}) is not decided by the vector "
                   f"(missing {sorted(missing)}) and not listed in NOT_APPLICABLE")
    return out


def failures(vector: dict, *, population: Population | None = None) -> list[str]:
    """Everything false or unchecked that ``vector`` declares or cites (empty: declared is true)."""
    import spec

    inst = Instance(vector, population)
    out = _declared_bounds(inst)
    values = _values(inst)
    for rid in vector["spec"]:
        if rid not in HYPOTHESES:
            out.append(f"{rid}: cited, but reference.vectors.declared.HYPOTHESES does not list its hypotheses")
            continue
        out += _symbolic(spec.get(rid), inst, values)
        for h in HYPOTHESES[rid]:
            bad = h.check(inst)
            if bad:
                out.append(f"{rid}: hypothesis {h.name!r} ({h.statement}): {bad}")
    return out


def require(vector: dict, *, population: Population | None = None) -> dict:
    """``vector``, or :class:`DeclaredFalseError` listing every failure of :func:`failures`."""
    bad = failures(vector, population=population)
    if bad:
        raise DeclaredFalseError(f"vector {vector.get('id')!r} declares something false or cites a record whose "
                                 "hypotheses it breaks:\n  " + "\n  ".join(bad))
    return vector
