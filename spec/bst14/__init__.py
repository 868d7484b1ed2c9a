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

from spec.bst14 import (
    exponential_sampling,
    grid_walk,
    localization_algorithms,
    lower_bounds,
    noisy_sgd,
    noisy_sgd_privacy,
    symbols,
    table_i,
)
from spec.bst14.exponential_sampling import ALG_2, THM_III_1, THM_III_2
from spec.bst14.grid_walk import THM_III_4, fallback_log_ratio_bound
from spec.bst14.localization_algorithms import (
    ALG_3,
    ALG_4,
    LEMMA_IV_2,
    THM_IV_1,
    THM_IV_3,
    localization_parameters,
)
from spec.bst14.lower_bounds import LEMMA_V_1, THM_V_2, THM_V_3, THM_V_4, THM_V_5
from spec.bst14.noisy_sgd import (
    ALG_1,
    LEMMA_II_2,
    LEMMA_II_3,
    LEMMA_II_5,
    LEMMA_II_6,
    THM_II_4,
)
from spec.bst14.noisy_sgd_privacy import (
    ACCOUNTANT_ORDERS,
    CALIBRATIONS,
    THM_II_1,
    CalibrationRow,
    calibration_table,
    certified_epsilon,
    composition_overshoot,
    noise_gd_sigma,
    sigma_accountant,
    sigma_analytic_chain,
    union_bound_overshoot,
)
from spec.bst14.table_i import TABLE_I, TableCell, table_cell, table_cells

__all__ = [
    "ALG_1", "THM_II_1", "LEMMA_II_2", "LEMMA_II_3", "THM_II_4", "LEMMA_II_5", "LEMMA_II_6",
    "ALG_2", "THM_III_1", "THM_III_2", "THM_III_4",
    "ALG_3", "ALG_4", "THM_IV_1", "LEMMA_IV_2", "THM_IV_3",
    "LEMMA_V_1", "THM_V_2", "THM_V_3", "THM_V_4", "THM_V_5",
    "TABLE_I", "RECORDS",
    "CALIBRATIONS", "ACCOUNTANT_ORDERS", "TableCell", "CalibrationRow",
    "noise_gd_sigma", "certified_epsilon", "sigma_analytic_chain", "sigma_accountant",
    "union_bound_overshoot", "composition_overshoot", "calibration_table",
    "fallback_log_ratio_bound", "localization_parameters", "table_cells", "table_cell",
    "symbols", "noisy_sgd", "noisy_sgd_privacy", "exponential_sampling", "grid_walk",
    "localization_algorithms", "lower_bounds", "table_i",
]

#: The records this package registers.
RECORDS = (
    ALG_1, THM_II_1, LEMMA_II_2, LEMMA_II_3, THM_II_4, LEMMA_II_5, LEMMA_II_6,
    ALG_2, THM_III_1, THM_III_2, THM_III_4,
    ALG_3, ALG_4, THM_IV_1, LEMMA_IV_2, THM_IV_3,
    LEMMA_V_1, THM_V_2, THM_V_3, THM_V_4, THM_V_5,
    TABLE_I,
)
