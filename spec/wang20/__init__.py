r"""Wang, Xiao, Devadas and Xu (ICML 2020), "On differentially private stochastic convex optimization
with heavy-tailed data".

Conventions (all records): average loss ``L^(w, D) = (1/n) sum_i l(w, x_i)``; the utility claims bound
the excess *population* risk; replace-one neighbours. No Lipschitz constant and no bound on the data:
privacy comes from smooth sensitivity (Algorithms 1-3) or from a bounded soft truncation
(Algorithm 4). The paper's symbols: ``alpha`` strong convexity (``strong_convexity``), ``beta``
smoothness (``smoothness``), ``Delta`` diameter of W (``diameter``), ``d`` (``dimension``), ``v``
(``second_moment``), ``delta'`` (``failure_probability``), ``tau`` (``subexponential_scale``),
``[a, b]`` (``mean_lower``, ``mean_upper``); the Catoni-Giulini ``beta`` is ``noise_precision``, the
Catoni-Giulini ``s`` is ``truncation_scale``, the trimming count ``m`` is ``trim``, the number of
subsets ``m`` is ``subsets``, Bun-Steinke's ``t, s`` (NRS07's ``beta, alpha``) are ``dilation`` and
``shift`` (see :mod:`spec.wang20.symbols`).

Modules
-------
:mod:`spec.wang20.sample_and_aggregate`
    Theorem 1 (NRS07), Algorithm 1, Lemma 1, Theorem 2.
:mod:`spec.wang20.bun_steinke`
    Theorem 3 (Bun-Steinke), Algorithm 2 and its (corrected) smooth sensitivity bound.
:mod:`spec.wang20.catoni_giulini`
    The soft truncation phi and its smoothing C(a, b) (eq. 6, 9), Lemma 3, Theorem 6.
:mod:`spec.wang20.gradient_descent`
    Algorithm 3, Theorem 4, Lemma 2, Theorem 5, Algorithm 4, Theorems 7 and 8.
"""

from __future__ import annotations

from spec.lazy import package

__all__ = [
    "RECORDS", "catoni_giulini", "gradient_descent", "sample_and_aggregate", "bun_steinke",
]

#: Where each exported name lives (imported on first use: spec.lazy).
_EXPORTS: dict = {}  # the section modules are the exports


def _records(p) -> tuple:
    """The records this package registers, in the paper's order (computed on first use)."""
    return (
        p.sample_and_aggregate.RECORDS + p.bun_steinke.RECORDS + p.gradient_descent.RECORDS[:4] +
        p.catoni_giulini.RECORDS + p.gradient_descent.RECORDS[4:]
    )


__getattr__, __dir__ = package(__name__, _EXPORTS, _records)
