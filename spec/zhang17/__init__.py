"""Zhang, Zheng, Mou and Wang (IJCAI 2017), "Efficient private ERM for smooth objectives".

Every numbered statement of the paper as a spec record. The extracted text lost most formulas, so each
record says which constants are sourced, which reconstructed (flag RECONSTRUCTED) and which wrong
(flag ERRATUM); every flag names the tests that derive its claim.

Conventions (all records): average loss ``F(w, S) = (1/n) sum_i f(w, xi_i)``; replace-one neighbours;
natural logarithms. Paper symbols: ``L`` (``lipschitz``), ``beta`` (``smoothness``), ``mu``
(``strong_convexity``), ``d`` (``dimension``), ``Delta`` (``sensitivity``), ``eta`` (``learning_rate``),
``T`` (``steps``), ``D`` (``minimiser_norm``), ``R`` (``population_minimiser_norm``), ``gamma``
(``failure_probability``); see :mod:`spec.zhang17.symbols`.

Modules and records
-------------------
:mod:`spec.zhang17.preliminaries`
    ``zhang17.assumption_1``, ``zhang17.def_1``, ``zhang17.def_2``, ``zhang17.lemma_1``.
:mod:`spec.zhang17.stability`
    ``zhang17.lemma_2`` (convex GD sensitivity), ``zhang17.lemma_3`` (strongly convex).
:mod:`spec.zhang17.output_perturbation`
    ``zhang17.alg_1`` and ``zhang17.thm_1`` (both noise laws); :func:`gaussian_sigma`,
    :func:`gaussian_failure_epsilon`, :func:`output_noise_profile`.
:mod:`spec.zhang17.convex_utility`
    ``zhang17.thm_2``, ``zhang17.thm_3``, ``zhang17.excess_risk_strongly_convex``,
    ``zhang17.excess_risk_convex``.
:mod:`spec.zhang17.random_round_sgd`
    ``zhang17.alg_2``, ``zhang17.thm_4`` (with :func:`certified_epsilon`,
    :func:`certified_epsilon_grid`), ``zhang17.thm_5``, ``zhang17.lemma_4``, ``zhang17.thm_6``.
:mod:`spec.zhang17.table`
    ``zhang17.table_1`` (the paper's comparison with bst14).

What the reference evaluates
----------------------------
Algorithm 1, strongly convex: ``THM_2`` formulas ``learning_rate``, ``sensitivity`` (or
``sensitivity_tight``), ``steps_pure`` / ``steps_approx``; then ``ALG_1`` formulas ``noise_rate``,
``noise_gamma_shape``, ``noise_gamma_scale`` (delta = 0) or ``sigma`` (delta > 0) at that sensitivity.
Convex: the same with ``THM_3`` (whose sensitivity takes the ``steps`` actually run).
Algorithm 2: ``THM_5`` formula ``learning_rate`` (public ``initial_gap``), ``ALG_2`` formulas ``rounds``
(R uniform on ``{1, ..., rounds}`` for the constant step) and ``sigma``.
"""

from __future__ import annotations

from spec.lazy import package

__all__ = [
    "ASSUMPTION_1", "DEF_1", "DEF_2", "LEMMA_1", "LEMMA_2", "LEMMA_3", "ALG_1", "THM_1", "THM_2", "THM_3",
    "EXCESS_RISK_STRONGLY_CONVEX", "EXCESS_RISK_CONVEX", "ALG_2", "THM_4", "THM_5", "LEMMA_4", "THM_6",
    "TABLE_1", "RECORDS", "gaussian_sigma", "gaussian_failure_epsilon", "output_noise_profile",
    "certified_epsilon", "certified_epsilon_grid", "CertificateRow",
]

#: Where each exported name lives (imported on first use: spec.lazy).
_EXPORTS = {
    "EXCESS_RISK_CONVEX": "convex_utility", "EXCESS_RISK_STRONGLY_CONVEX": "convex_utility",
    "THM_2": "convex_utility", "THM_3": "convex_utility", "ALG_1": "output_perturbation",
    "THM_1": "output_perturbation", "gaussian_failure_epsilon": "output_perturbation",
    "gaussian_sigma": "output_perturbation", "output_noise_profile": "output_perturbation",
    "ASSUMPTION_1": "preliminaries", "DEF_1": "preliminaries", "DEF_2": "preliminaries",
    "LEMMA_1": "preliminaries", "ALG_2": "random_round_sgd", "LEMMA_4": "random_round_sgd", "THM_4": "random_round_sgd", "THM_5": "random_round_sgd",
    "THM_6": "random_round_sgd", "CertificateRow": "random_round_sgd", "certified_epsilon": "random_round_sgd",
    "certified_epsilon_grid": "random_round_sgd", "LEMMA_2": "stability", "LEMMA_3": "stability", "TABLE_1": "table",
}


def _records(p) -> tuple:
    """The records this package registers (computed on first use)."""
    return (
        p.preliminaries.RECORDS + p.stability.RECORDS + p.output_perturbation.RECORDS +
        p.convex_utility.RECORDS + p.random_round_sgd.RECORDS + p.table.RECORDS
    )


__getattr__, __dir__ = package(__name__, _EXPORTS, _records)
