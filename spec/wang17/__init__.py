"""Wang, Ye and Xu (NeurIPS 2017), "Differentially private empirical risk minimization revisited:
faster and more general".

Conventions (all records): average loss ``F(x, D) = (1/n) sum_i f(x, z_i)`` (plus a regulariser ``r`` in
Section 4); replace-one neighbours. The paper's symbols: ``G`` Lipschitz (``lipschitz``), ``L``
smoothness (``smoothness``), ``mu`` strong convexity of ``F^r`` (``total_strong_convexity``) or the PL
constant (``polyak_lojasiewicz``), ``p`` dimension, ``T`` epochs (DP-SVRG) or steps, ``m`` epoch length.
Every noise level of the paper is "sigma^2 = c ... for some constant c"; the records keep that form
(``noise_constant``, ``regime_constant``) and put a proven calibration beside it.

Modules
-------
:mod:`spec.wang17.symbols`
    Shared symbols, conventions and expressions.
:mod:`spec.wang17.moments_accountant`
    Definition 3.4 and Theorem 3.1 (Abadi et al.'s moments accountant, as cited).
:mod:`spec.wang17.calibration`
    The proven calibrations: full batch by zCDP (``wang17.full_batch_calibration``), and the DP-SVRG
    inner step by noise splitting and a replace-one RDP accountant (``wang17.svrg_step_privacy``).
:mod:`spec.wang17.svrg`
    Algorithm 1 (DP-SVRG), Theorems 4.1 and 4.2; :func:`spec.wang17.svrg.calibrate`.
:mod:`spec.wang17.svrg_plus`
    Algorithm 2 (DP-SVRG++), Theorems 4.3 and 4.4.
:mod:`spec.wang17.accelerated_mirror_descent`
    Algorithm 3 (DP-AccMD, with its y-step erratum), Lemmas 5.1 and 5.2, Theorems 5.3 and 5.4.
:mod:`spec.wang17.gradient_descent`
    Algorithm 4 (DP-GD), Theorems 6.1, 6.2 and 6.3.
"""

from __future__ import annotations

from spec.lazy import package

__all__ = [
    "RECORDS", "accelerated_mirror_descent", "calibration", "gradient_descent", "moments_accountant", "svrg",
    "svrg_plus",
]

#: Where each exported name lives (imported on first use: spec.lazy).
_EXPORTS: dict = {}  # the section modules are the exports


def _records(p) -> tuple:
    """The records this package registers (computed on first use)."""
    return (
        p.moments_accountant.RECORDS + p.calibration.RECORDS + p.svrg.RECORDS + p.svrg_plus.RECORDS +
        p.accelerated_mirror_descent.RECORDS + p.gradient_descent.RECORDS
    )


__getattr__, __dir__ = package(__name__, _EXPORTS, _records)
