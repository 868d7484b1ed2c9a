"""The canonical parameter names: one table for spec, reference, the CLI and JSON.

The five papers disagree on their symbols (``L`` is the Lipschitz constant in bst14 and
zhang17 but the smoothness in wang17 and wang19, where ``G`` is the Lipschitz constant; strong
convexity is ``Delta``, ``mu`` or ``alpha``; the dimension is ``p`` or ``d``). Paper symbols stay
inside the spec records; everything outside a record -- reference keywords, ``record.evaluate``
keywords, ``dperm spec ID --eval name=value``, JSON keys -- uses the names below, each with one
meaning. :class:`spec.record.SpecRecord` rejects a symbol whose canonical name is not in
:data:`VOCABULARY`, or whose integrality disagrees with the table, when the record is built.

>>> from spec.vocabulary import VOCABULARY, term
>>> term("strong_convexity").meaning.split(";")[0]
'strong convexity of each per-example loss (bst14 Delta, zhang17 mu, wang20 alpha)'
>>> "radius" in VOCABULARY   # ambiguous (ball radius or largest norm?): not a canonical name
False

Adding a name: reuse an existing one whenever the meaning is the same; otherwise add a
:class:`Term` here, in alphabetical order, with the papers' symbols in its meaning.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, Mapping

__all__ = ["Term", "VOCABULARY", "term", "names", "canonical_parameters"]


@dataclass(frozen=True)
class Term:
    """A canonical parameter name.

    Parameters
    ----------
    name : str
        The keyword (``"lipschitz"``).
    meaning : str
        What it is, with the papers' symbols for it.
    integer : bool
        Whether values are integers (records declare such symbols ``integer=True``).
    privacy : bool
        Whether a bad value is a *privacy* error (:class:`spec.errors.PrivacyParameterError`):
        the parameter sets or states a privacy guarantee.
    """

    name: str
    meaning: str
    integer: bool = False
    privacy: bool = False


_TERMS = (
    Term("candidates", "number of candidate outputs |R| of a selection mechanism", integer=True),
    Term("cluster_radius", "radius r around a centre c within which at least 3/4 of the block "
                           "outputs f(D_S) of sample-and-aggregate fall (wang20 Theorem 1, eq. 1; "
                           "NRS07)"),
    Term("delta", "delta of an (epsilon, delta)-DP statement: the failure probability, in (0, 1)", privacy=True),
    Term("delta_prime", "the extra failure probability delta' of advanced composition", privacy=True),
    Term("diameter", "l2 diameter ||C||_2 of the constraint set (the unit ball has diameter 2)"),
    Term("dilation", "smoothness t of a smooth upper bound S on the local sensitivity (S(x) <= e^t "
                     "S(y) for neighbours), the dilation the smooth-sensitivity noise tolerates "
                     "(Bun-Steinke, wang20 Algorithm 2 t; NRS07 and wang20 Algorithm 1 beta)", privacy=True),
    Term("dimension", "dimension of the parameter space (bst14, wang17, wang19 p; zhang17, wang20 "
                      "d)", integer=True),
    Term("epoch_length", "inner steps m of one epoch of a variance-reduced method (wang17 DP-SVRG "
                         "m; DP-SVRG++ doubles it, epoch s has 2^s m steps)", integer=True, privacy=True),
    Term("epochs", "number of epochs (outer loops) T of a variance-reduced method; each epoch takes "
                   "one snapshot gradient (wang17 DP-SVRG, DP-SVRG++ T)", integer=True, privacy=True),
    Term("epsilon", "epsilon of the privacy claim (the budget), or the point at which a privacy "
                    "profile delta(epsilon) is taken", privacy=True),
    Term("epsilon_prime", "a second epsilon at which a pure-DP profile is taken", privacy=True),
    Term("epsilon_step", "per-step budget epsilon_0 of one mechanism in a composition (wang19 "
                         "Algorithm 4)", privacy=True),
    Term("epsilon_total", "target epsilon' of a whole composition (solved for the per-step budget)", privacy=True),
    Term("failure_probability", "probability with which a high-probability statement may fail, in "
                                "(0, 1) (zhang17 gamma; wang19 Theorem 3 beta, Theorem 6 eta; "
                                "wang20 delta' of Lemma 3, Algorithm 4, Theorems 6-8); not a "
                                "privacy parameter"),
    Term("gaussian_width", "Gaussian width G_C = E sup_{w in C} <b, w>, b ~ N(0, I_p), of the "
                           "constraint set (wang19 Definition 8)"),
    Term("gradient_bound", "G with E||G_t||^2 <= G^2: second-moment bound of a stochastic gradient "
                           "(bst14 Lemmas II.5-II.6; not the Lipschitz constant)"),
    Term("grid_size", "cells per edge N of a grid-walk sampler's grid (spacing h = tau/N)", integer=True),
    Term("hessian_bound", "bound H on the operator norm of the population risk's Hessian (wang19 "
                          "Assumption 3)"),
    Term("hessian_lipschitz", "Lipschitz constant of every per-example Hessian in operator norm "
                              "(wang19 Assumption 3, where it is also called L; not the smoothness)"),
    Term("initial_divergence", "Bregman divergence B_w(x*, x_0) of the distance-generating function "
                               "w from the starting point to a minimiser (wang17 Theorem 5.4); a "
                               "public bound"),
    Term("initial_gap", "public upper bound h_0 >= F(w_0, S) - min F(., S) on the initial "
                        "optimality gap, over every dataset S (zhang17 beta D_F^2 / 2 with D_F "
                        "data-dependent; wang17, wang19 h_0); never computed from the data"),
    Term("inner_radius", "radius r of a ball around the public gauge centre that lies inside C"),
    Term("l1_diameter", "l1 diameter max_{u, v in C} ||u - v||_1 of the constraint set (the unit l1 "
                        "ball has 2; wang19 ||C||_1 is the largest l1 norm, half of it for "
                        "symmetric C)"),
    Term("learning_rate", "step size eta of a gradient method"),
    Term("linf_diameter", "l-infinity diameter tau of C (edge of the enclosing cube)"),
    Term("lipschitz", "Lipschitz constant of every per-example loss on C (bst14, zhang17 L; wang17, "
                      "wang19 G; wang20 has none: heavy tails)"),
    Term("mean_lower", "lower end a of a public interval [a, b] known to contain the mean of every "
                       "gradient coordinate (wang20 Assumption 3, Algorithms 2-3: the trimmed mean "
                       "is clipped to it)"),
    Term("mean_upper", "upper end b of the public interval [a, b] of mean_lower"),
    Term("minimal_risk", "minimal population risk L_D(w*) (the multiplicative factor of wang20 "
                         "Theorem 2)"),
    Term("minimiser_norm", "bound D on the norm of the empirical minimiser, ||w_hat(S)|| <= D for "
                           "every dataset S (zhang17 D; with w_0 = 0 it bounds ||w_0 - w_hat||)"),
    Term("modulus", "strong convexity modulus alpha of a distance-generating function with respect "
                    "to the norm in question (wang19 Definition 9)"),
    Term("n", "number of records (dataset size)", integer=True),
    Term("noise_constant", "an unspecified constant of a paper's noise calibration (wang17 c in "
                           "sigma^2 = c G^2 T ln(1/delta) / (n^2 epsilon^2); c2 of the moments "
                           "accountant as cited)", privacy=True),
    Term("noise_multiplier", "sigma / sensitivity of a Gaussian mechanism", privacy=True),
    Term("noise_precision", "precision beta (inverse variance) of the multiplicative noise N(0, "
                            "1/beta) that the Catoni-Giulini estimator smooths over (wang20 beta of "
                            "eq. 9, Lemma 3 and Algorithm 4; renamed: wang20 also uses beta for "
                            "smoothness)"),
    Term("norm_bound", "bound R on the norm of every term of a sum or average query (a record, or a "
                       "per-example gradient: then a Lipschitz constant)", privacy=True),
    Term("order", "Renyi order alpha > 1 of an RDP statement", privacy=True),
    Term("oscillation", "sup over neighbours of (sup h - inf h), h = u(D, .) - u(D', .), of an "
                        "exponential mechanism's score"),
    Term("output_bound", "bound Lambda on the l1 norm of every output of f in sample-and-aggregate "
                         "(wang20 Theorem 1; NRS07)"),
    Term("polyak_lojasiewicz", "Polyak-Lojasiewicz constant mu of the objective: ||grad F(x)||^2 >= "
                               "2 mu (F(x) - F*) for every x (wang17 Definition 6.1)"),
    Term("population_minimiser_norm", "bound R on the norm of the population risk minimiser w* "
                                      "(zhang17 R: the loss is Lipschitz on the ball of radius R)"),
    Term("rdp", "Renyi divergence value R(alpha) of a mechanism at one order", privacy=True),
    Term("regime_constant", "an unspecified constant c1 of a moments-accountant side condition "
                            "epsilon < c1 q^2 T (wang17 Theorem 3.1; epsilon <= c1 T m / n^2 in "
                            "Theorems 4.1, 4.3)", privacy=True),
    Term("regularisation", "weight lambda of a regulariser r(x) = lambda ||x||_1 or lambda "
                           "||x||_2^2 (wang19 lambda)"),
    Term("retries", "number of tries of a rejection step before its fallback", integer=True),
    Term("rho", "zCDP parameter rho", privacy=True),
    Term("sampling_rate", "fraction of the records sampled per step (gamma = m/n without "
                          "replacement; q with Poisson sampling), in (0, 1]", privacy=True),
    Term("scale", "scale b of Laplace noise", privacy=True),
    Term("second_moment", "known bound v on the second moment E[(grad_j l(w, x))^2] of every "
                          "gradient coordinate j at every w (wang20 Assumption 4; Lemma 3's bound "
                          "on E x^2)"),
    Term("sensitivity", "sensitivity of a query under the record's neighbouring relation (l2 unless "
                        "the record says l1 or score sensitivity)", privacy=True),
    Term("shift", "shift s the smooth-sensitivity noise tolerates: the noise is scaled by S(x)/s "
                  "(Bun-Steinke, wang20 Algorithm 2 s; NRS07 alpha, wang20 Algorithm 1 gamma)", privacy=True),
    Term("sigma", "standard deviation of Gaussian noise, per coordinate", privacy=True),
    Term("smoothness", "smoothness (gradient Lipschitz constant) of every per-example loss "
                       "(zhang17, wang20 beta; wang17, wang19 L)"),
    Term("solver_tolerance", "certified optimality gap tau of a non-private solver (a public "
                             "tolerance; 0 = exact minimiser; it enters the sensitivity)", privacy=True),
    Term("split", "share lambda in (0, 1) of a Gaussian noise's variance given to one part of a "
                  "noise-splitting argument (the rest goes to the other part)", privacy=True),
    Term("step", "a step index t of an iterative algorithm (1-based)", integer=True),
    Term("steps", "number of iterations T, or of composed mechanisms k", integer=True, privacy=True),
    Term("strong_convexity", "strong convexity of each per-example loss (bst14 Delta, zhang17 mu, "
                             "wang20 alpha); the average loss has the same constant, the sum n "
                             "times it"),
    Term("sub_gaussian", "sub-Gaussian parameter tau of the per-example gradient around its mean "
                         "(wang19 Assumption 2)"),
    Term("subexponential_scale", "tau of a tau-sub-exponential random variable (wang20 Definition 3 "
                                 "and Assumption 3: every gradient coordinate)"),
    Term("subsets", "number m of random subsets (blocks) in sample-and-aggregate (wang20 Algorithm "
                    "1 m; NRS07)", integer=True),
    Term("tail", "tail parameter t of a high-probability bound: it fails with probability at most "
                 "exp(-t)"),
    Term("total_strong_convexity", "strong convexity lambda of the whole objective F (bst14 Lemma "
                                   "II.6; bst14 applies it to the sum, lambda = n Delta; wang17 mu "
                                   "of F^r = F + r)"),
    Term("trim", "number m of order statistics a trimmed mean removes from each end (wang20 "
                 "Algorithm 2 m; Bun-Steinke)", integer=True),
    Term("truncation_scale", "scale s of a soft truncation: each value is divided by s before phi "
                             "(Catoni-Giulini; wang20 eq. 5, Lemma 3, Algorithm 4 s)", privacy=True),
    Term("type_one_error", "type I error alpha of a test between neighbouring outputs (the argument "
                           "of a trade-off function)", privacy=True),
    Term("variance", "variance sigma^2 of the data distribution, unknown to the algorithm (wang20 "
                     "Theorem 3, Bun-Steinke)"),
    Term("zeta", "radius parameter zeta of bst14 Algorithm 3 (in units of E||b||)"),
)

#: Canonical name -> :class:`Term`.
VOCABULARY: Mapping[str, Term] = {t.name: t for t in _TERMS}


def term(name: str) -> Term:
    """The :class:`Term` called ``name``; a KeyError lists close names."""
    try:
        return VOCABULARY[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, list(VOCABULARY), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"{name!r} is not a canonical parameter name (spec.vocabulary){hint}") from None


def names() -> list[str]:
    """All canonical names, sorted."""
    return sorted(VOCABULARY)


def canonical_parameters(function: Callable) -> tuple[tuple[str, ...], dict[str, object]]:
    """The canonical keyword parameters of ``function``: ``(required, {optional: default})``.

    Accountants and numerical calibrations are called with keyword arguments in canonical names
    (:data:`VOCABULARY`), e.g. by ``dperm epsilon RECORD_ID --n 100 --sigma 50``. A parameter
    that is not a canonical name must have a default (it is left at it).

    Raises
    ------
    ValueError
        If a parameter without a default is not a canonical name, or cannot be passed by keyword.

    Examples
    --------
    >>> def accountant(*, sigma, delta, steps=1, orders=None):  # orders: not canonical, has a default
    ...     return 0.0
    >>> canonical_parameters(accountant)
    (('sigma', 'delta'), {'steps': 1})
    >>> def calibration(*, noise, delta):  # noise: not canonical and no default
    ...     return 0.0
    >>> canonical_parameters(calibration)
    Traceback (most recent call last):
    ...
    ValueError: calibration: parameter 'noise' has no default and is not a canonical keyword (spec.vocabulary)
    """
    required, optional = [], {}
    for p in inspect.signature(function).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        has_default = p.default is not p.empty
        if p.name not in VOCABULARY or p.kind is p.POSITIONAL_ONLY:
            if not has_default:
                raise ValueError(
                    f"{getattr(function, '__qualname__', function)}: parameter {p.name!r} has no default "
                    "and is not a canonical keyword (spec.vocabulary)"
                )
            continue
        if has_default:
            optional[p.name] = p.default
        else:
            required.append(p.name)
    return tuple(required), optional
