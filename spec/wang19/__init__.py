r"""Wang and Xu (AAAI 2019), "Differentially private ERM with smooth non-convex loss functions: a
non-stationary view".

Four algorithms for smooth, possibly non-convex empirical risk ``F^r = (1/n) sum_i f(., z_i) + r`` over a closed
convex ``C``, with utility measured by stationarity (the gradient mapping or the Frank-Wolfe gap) instead of
excess risk, and the dimension entering through the Gaussian width of ``C``.

Conventions (all records): average loss, replace-one neighbours (gradient sensitivity ``2G/n``), ``L`` the
smoothness and ``G`` the Lipschitz constant (canonical ``smoothness`` and ``lipschitz``), ``p`` the dimension,
``||C||_2`` read as the l2 diameter (:mod:`spec.wang19.symbols`), natural logarithms.

Modules
-------
:mod:`spec.wang19.symbols`         the paper's symbols, canonical names, conventions (no records).
:mod:`spec.wang19.definitions`     Definitions 2-7, the gradient mapping (2), the Frank-Wolfe gap, Lemmas 1, 3.
:mod:`spec.wang19.gaussian_width`  Definition 8 (widths of the l2 ball, l1 ball, simplex, box) and Lemma 4.
:mod:`spec.wang19.noise`           Equation (3), Theorem 1 (privacy, calibration options) and Lemma 2.
:mod:`spec.wang19.proximal_gradient`          Algorithm 1 (DP-PGD, step 3's typos) and Theorem 2.
:mod:`spec.wang19.population`      Theorem 3 (population gradient, asymptotic form only).
:mod:`spec.wang19.frank_wolfe`     Algorithm 2 (DP-FW-L2), Theorem 4, the Frank-Wolfe step-size derivation.
:mod:`spec.wang19.mirror_descent`  Definition 9, Algorithm 3 (DP-PMD) and Theorem 5.
:mod:`spec.wang19.frank_wolfe_l1`  Algorithm 4 (DP-FW-L1, its exponential mechanism reconstructed), Theorem 6.

What the reference evaluates
----------------------------
DP-PGD, DP-FW-L2, DP-PMD: ``wang19.eq_3`` formula ``sigma`` (lipschitz, n, epsilon, delta, steps); options through
:func:`spec.wang19.noise.sigma` (``calibration`` = "zcdp" default, "rdp", "rdp-mironov", "exact").
Step sizes and T: ``wang19.thm_2`` (``learning_rate``, ``steps``, ``steps_tuned``), ``wang19.thm_4`` and
``wang19.thm_6`` (``learning_rate`` = the paper's form, default; ``learning_rate_tuned``; ``steps``,
``steps_tuned``), ``wang19.thm_5`` (``learning_rate``, ``steps``, ``steps_tuned``).
DP-FW-L1: ``wang19.thm_6`` formulas ``epsilon_step`` and ``coefficient`` (Lemma 1, default), or ``wang19.alg_4``
formulas ``epsilon_step_zcdp`` and ``coefficient_zcdp`` (option); ``wang19.alg_4`` ``coefficient_at`` for any
per-step budget, ``score_sensitivity``, ``oscillation``, ``candidates_l1_ball``.
Utility: ``bound_at`` / ``gap_bound_at`` of Theorems 2, 4, 5, 6 at the parameters actually run; the named hidden
constants ``steps_constant`` (``steps_tuned / steps``) and ``bound_constant`` (explicit bound / printed rate); the
Gaussian widths of ``wang19.def_8``; the distance-generating functions' moduli of ``wang19.def_9``.
"""

from __future__ import annotations

from spec.lazy import package

__all__ = [
    "DEF_2", "DEF_3", "DEF_4", "DEF_5", "DEF_6", "DEF_7", "DEF_8", "DEF_9", "GRADIENT_MAPPING",
    "FRANK_WOLFE_GAP", "LEMMA_1", "LEMMA_2", "LEMMA_3", "LEMMA_4", "EQ_3", "THM_1", "THM_2", "THM_3", "THM_4",
    "THM_5", "THM_6", "ALG_1", "ALG_2", "ALG_3", "ALG_4", "sigma", "certified_epsilon", "transcript_profile",
    "RECORDS",
]

#: Where each exported name lives (imported on first use: spec.lazy).
_EXPORTS = {
    "DEF_2": "definitions", "DEF_3": "definitions", "DEF_4": "definitions", "DEF_5": "definitions",
    "DEF_6": "definitions", "DEF_7": "definitions", "FRANK_WOLFE_GAP": "definitions",
    "GRADIENT_MAPPING": "definitions", "LEMMA_1": "definitions", "LEMMA_3": "definitions", "ALG_1": "proximal_gradient",
    "THM_2": "proximal_gradient", "ALG_2": "frank_wolfe", "THM_4": "frank_wolfe", "ALG_4": "frank_wolfe_l1",
    "THM_6": "frank_wolfe_l1", "DEF_8": "gaussian_width", "LEMMA_4": "gaussian_width",
    "ALG_3": "mirror_descent", "DEF_9": "mirror_descent", "THM_5": "mirror_descent", "EQ_3": "noise",
    "LEMMA_2": "noise", "THM_1": "noise", "certified_epsilon": "noise", "sigma": "noise",
    "transcript_profile": "noise", "THM_3": "population",
}


def _records(p) -> tuple:
    """The records this package registers (computed on first use)."""
    return (
        p.definitions.RECORDS + p.gaussian_width.RECORDS + p.noise.RECORDS + p.proximal_gradient.RECORDS +
        p.population.RECORDS + p.frank_wolfe.RECORDS + p.mirror_descent.RECORDS + p.frank_wolfe_l1.RECORDS
    )


__getattr__, __dir__ = package(__name__, _EXPORTS, _records)
