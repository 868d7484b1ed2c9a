r"""Bassily, Smith and Thakurta (FOCS 2014), "Private ERM: efficient algorithms and tight error bounds".

Every algorithm box, theorem and lemma of the paper as a spec record, and the paper's Table I as data.

Conventions (all records)
-------------------------
* Sum loss ``L(theta; D) = sum_i l(theta; d_i)`` (not the average); risk bounds are for the sum.
* Replace-one neighbouring: ``|D| = |D'| = n`` and ``|D Δ D'| = 2``.
* ``l(.; d)`` is convex and ``L``-Lipschitz on ``C`` for every ``d``; ``Delta`` is the *per-example*
  strong convexity, so the sum is ``n Delta``-strongly convex.
* ``||C||_2`` is the l2 *diameter* of ``C`` (the unit ball has diameter 2); ``p`` is the dimension;
  ``log`` is the natural logarithm.

Canonical keywords: ``lipschitz`` (L), ``n``, ``dimension`` (p), ``epsilon``, ``delta``,
``strong_convexity`` (Delta), ``diameter`` (||C||_2), ``step`` (t, a step index), ``steps`` (T),
``tail`` (t in a tail bound), ``zeta``, ``linf_diameter`` (tau), ``solver_tolerance``, ``sigma``,
``gradient_bound`` (G), ``inner_radius`` (r, the grid-walk sampler's inner ball), ``grid_size`` (N).

Records
-------
``bst14.alg_1``, ``bst14.thm_II_1``, ``bst14.lemma_II_2``, ``bst14.lemma_II_3``, ``bst14.thm_II_4``,
``bst14.lemma_II_5``, ``bst14.lemma_II_6``, ``bst14.alg_2``, ``bst14.thm_III_1``, ``bst14.thm_III_2``,
``bst14.thm_III_4``, ``bst14.alg_3``, ``bst14.alg_4``, ``bst14.thm_IV_1``, ``bst14.lemma_IV_2``,
``bst14.thm_IV_3``, ``bst14.lemma_V_1``, ``bst14.thm_V_2`` ... ``bst14.thm_V_5``, ``bst14.table_I``.

Modules
-------
:mod:`spec.bst14.symbols`
    The paper's symbols, the canonical names they are passed as, conventions, shared assumptions.
:mod:`spec.bst14.noisy_sgd`
    Section II: Algorithm 1 (A_Noise-GD), Theorem II.4 (utility), Lemmas II.2, II.3, II.5, II.6.
:mod:`spec.bst14.noisy_sgd_privacy`
    Theorem II.1 (privacy of Algorithm 1): why the proof does not close, a rigorous closed form,
    the RDP certificate of the printed sigma and the accountant calibration.
:mod:`spec.bst14.exponential_sampling`
    Section III-A: Algorithm 2, Theorems III.1 and III.2.
:mod:`spec.bst14.grid_walk`
    Section III-C: Theorem III.4, the polynomial-time sampler's constants.
:mod:`spec.bst14.localization_algorithms`
    Section IV: Algorithms 3 and 4, Theorems IV.1, IV.3, Lemma IV.2.
:mod:`spec.bst14.lower_bounds`
    Section V: Lemma V.1, Theorems V.2-V.5.
:mod:`spec.bst14.table_i`
    Table I as data.

Each module's docstring holds the derivations behind its records' flags.
"""

from __future__ import annotations

from spec.lazy import package

__all__ = [
    "ALG_1", "THM_II_1", "LEMMA_II_2", "LEMMA_II_3", "THM_II_4", "LEMMA_II_5", "LEMMA_II_6", "ALG_2",
    "THM_III_1", "THM_III_2", "THM_III_4", "ALG_3", "ALG_4", "THM_IV_1", "LEMMA_IV_2", "THM_IV_3", "LEMMA_V_1",
    "THM_V_2", "THM_V_3", "THM_V_4", "THM_V_5", "TABLE_I", "RECORDS", "CALIBRATIONS", "ACCOUNTANT_ORDERS",
    "TableCell", "CalibrationRow", "noise_gd_sigma", "certified_epsilon", "sigma_analytic_chain",
    "sigma_accountant", "union_bound_overshoot", "composition_overshoot", "calibration_table",
    "fallback_log_ratio_bound", "localization_parameters", "table_cells", "table_cell", "symbols", "noisy_sgd",
    "noisy_sgd_privacy", "exponential_sampling", "grid_walk", "localization_algorithms", "lower_bounds", "table_i",
]

#: Where each exported name lives (imported on first use: spec.lazy).
_EXPORTS = {
    "ALG_2": "exponential_sampling", "THM_III_1": "exponential_sampling", "THM_III_2": "exponential_sampling",
    "THM_III_4": "grid_walk", "fallback_log_ratio_bound": "grid_walk", "ALG_3": "localization_algorithms",
    "ALG_4": "localization_algorithms", "LEMMA_IV_2": "localization_algorithms", "THM_IV_1": "localization_algorithms",
    "THM_IV_3": "localization_algorithms", "localization_parameters": "localization_algorithms", "LEMMA_V_1": "lower_bounds",
    "THM_V_2": "lower_bounds", "THM_V_3": "lower_bounds", "THM_V_4": "lower_bounds", "THM_V_5": "lower_bounds",
    "ALG_1": "noisy_sgd", "LEMMA_II_2": "noisy_sgd", "LEMMA_II_3": "noisy_sgd", "LEMMA_II_5": "noisy_sgd",
    "LEMMA_II_6": "noisy_sgd", "THM_II_4": "noisy_sgd", "ACCOUNTANT_ORDERS": "noisy_sgd_privacy",
    "CALIBRATIONS": "noisy_sgd_privacy", "THM_II_1": "noisy_sgd_privacy", "CalibrationRow": "noisy_sgd_privacy",
    "calibration_table": "noisy_sgd_privacy", "certified_epsilon": "noisy_sgd_privacy",
    "composition_overshoot": "noisy_sgd_privacy", "noise_gd_sigma": "noisy_sgd_privacy",
    "sigma_accountant": "noisy_sgd_privacy", "sigma_analytic_chain": "noisy_sgd_privacy",
    "union_bound_overshoot": "noisy_sgd_privacy", "TABLE_I": "table_i", "TableCell": "table_i",
    "table_cell": "table_i", "table_cells": "table_i",
}


def _records(p) -> tuple:
    """The records this package registers (computed on first use)."""
    return (
        p.ALG_1, p.THM_II_1, p.LEMMA_II_2, p.LEMMA_II_3, p.THM_II_4, p.LEMMA_II_5, p.LEMMA_II_6, p.ALG_2,
        p.THM_III_1, p.THM_III_2, p.THM_III_4, p.ALG_3, p.ALG_4, p.THM_IV_1, p.LEMMA_IV_2, p.THM_IV_3,
        p.LEMMA_V_1, p.THM_V_2, p.THM_V_3, p.THM_V_4, p.THM_V_5, p.TABLE_I
    )


__getattr__, __dir__ = package(__name__, _EXPORTS, _records)
