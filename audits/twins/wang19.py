r"""Planted-bug twins of the wang19 algorithms, the audit instances, and the twins' true privacy loss.

A twin reuses the reference code and changes exactly one thing. The noise-side twins rescale one
labelled draw of the tape through a :class:`~audits.twins.bst14.ScaledDraws` source (the reference
consumes standardised draws and scales them itself); the others pass the reference a data-derived value
where it expects a public one, or post-process its transcript with the data. The tests
(``tests/audits/twins/test_wang19.py``) replay one tape through each twin and through the reference
with the intended edit, and check the violations below.

Twins
-----
:func:`dp_pgd_printed_sigma`
    Algorithm 1 with step 3 as printed: ``sigma^2 = 2 L^2 T/(n^2 rho^2)`` (``wang19.alg_1`` formula
    ``sigma_printed``: the smoothness for the Lipschitz constant and ``rho^2`` for ``rho``).
:func:`dp_pgd_data_dependent_index`
    Algorithm 1 returning ``x_R`` with ``R = argmin_k ||P_C(x_k, grad F(x_k), gamma)||``, the exact gradient
    mapping: the classical non-private output of Remark 1 ("R drawn from the data").
:func:`dp_fw_l2_half_sensitivity`
    Algorithm 2 with sigma calibrated to sensitivity ``G/n`` instead of ``2G/n`` (add/remove instead of
    replace-one): ``wang19.eq_3``'s sigma at ``G/2``, i.e. half the noise.
:func:`dp_fw_l2_data_dependent_step`
    Algorithm 2 with the tuned step ``sqrt(2 h_0/(L T))/||C||_2`` and ``h_0`` computed from the data
    (``F(x_1) - min F`` along the first Frank-Wolfe segment) instead of a public bound.
:func:`dp_fw_l1_full_exponent`
    Algorithm 4 sampling with probability proportional to ``exp(epsilon_0 u/Delta_u)`` instead of
    ``exp(epsilon_0 u/(2 Delta_u))``: the Gumbel draws of the Gumbel-max sampler halved, which is exactly
    the coefficient doubled (``argmax c u + g/2 = argmax 2 c u + g``).

The instances and the violations (exact)
----------------------------------------
*Algorithm 1* (:func:`pgd_pair`). The sigmoid loss with ``||x|| <= 0.1`` in R (``G = 0.025``, ``L =
0.01/(6 sqrt 3)``), C = R, ``r = 0``, six records ``(0.1, +1), (0.05, -1), (0.05, -1)`` twice, and the
neighbour with the first label flipped; ``(epsilon, delta) = (1, 1e-5)`` gives ``T = 2``. At ``x_1 = 0`` the
first record's gradient difference is ``2 X s'(0)/n = 2G/n``: the first noisy gradient attains the
sensitivity exactly. The printed sigma is ``(L/G)/sqrt(rho*) = 0.267`` times the correct one, so the
first release alone is a Gaussian mechanism with noise ``0.267 sigma`` at sensitivity ``2G/n``: its exact
epsilon at delta = 1e-5 (:func:`printed_sigma_step_epsilon`) exceeds the claim. For the index twin,
``F'_D(theta) = (X/3)(s'(X theta/2) - s'(X theta)) >= 0`` vanishes only at ``theta = 0 = x_1``, so on the
data set ``R = 1`` and the output is ``x_1 = 0`` surely; on the neighbour ``F'(theta) = X s'(X theta/2)/3``
is largest at 0, so ``R = 2`` and the output is ``x_2 != 0`` surely: disjoint supports, ``delta(eps) = 1``
for every eps (:func:`index_twin_supports`).

*Algorithm 2* (:func:`fw_l2_pair`). The same loss on ``[-1, 1]``, twelve records with ``sum y x = 0.15``
against ``-0.05`` (the first label flipped); ``T = 2``. The half-sensitivity twin's first release is a
Gaussian mechanism with noise ``sigma/2`` at sensitivity ``2G/n`` (exact, at ``x_1 = 0``). The step twin's
``h_0`` is about ``|sum y x|/(4n)``: ``gamma = 0.90`` on the data set and ``0.52`` on the neighbour, and
``x_2 = +-gamma`` (the oracle returns ``+-1``): the output takes the values ``{0, +-gamma_D}`` against ``{0,
+-gamma_D'}``, each with ``P[R = 2] = 1/2`` on the second pair of atoms: ``delta(eps) >= 1/2`` for every eps
(:func:`step_twin_atoms`).

*Algorithm 4* (:func:`fw_l1_pair`). The linear loss ``-<theta, d>`` with ``|d| <= 1`` in R, the l1 ball
``[-1, 1]`` (``A = {+-1}``), four records ``(1, -1, -1, -1)`` against ``(-1, -1, -1, -1)``, ``(epsilon, delta) =
(0.9, 0.5)``: ``T = 1`` and ``epsilon_0 = 0.382``. The mechanism picks ``+1`` with log-odds
``c (u(+1) - u(-1)) = epsilon_0 n mean(d)/(2G)``: ``-0.38`` against ``-0.76`` for the reference (privacy
loss 0.244 < epsilon_0) and ``-0.76`` against ``-1.53`` for the twin, whose event ``{+1}`` has
probabilities 0.318 and 0.178: ``delta(epsilon_0) >= 0.057`` where the per-step claim allows 0
(:func:`fw_l1_selection_profile`). The twin's *end-to-end* (epsilon, delta) claim is not violated: the
exponential mechanism with coefficient ``epsilon_0/Delta_u`` has bounded range ``2 epsilon_0``, and
Lemma 1's per-step budget leaves a factor 2 (the report's finding); the per-step claim of
``wang19.alg_4`` is what it breaks.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from audits.pairs import replace_one
from audits.twins.bst14 import ScaledDraws
from reference import wang19 as alg
from reference.domains import L1Ball, L2Ball, Rp, Simplex
from reference.losses import Linear, Sigmoid
from reference.stationarity import gradient_mapping
from reference.tape import noise_source
from reference.wang19 import proximal_gradient as _pgd
from reference.wang19 import frank_wolfe as _fw2
from reference.wang19 import frank_wolfe_l1 as _fw1
from spec import gaussian as _gaussian
from spec import wang19 as _spec

__all__ = [
    "PGD", "FW_L2", "PMD", "FW_L1_STEP", "FW_L1",
    "pgd_pair", "fw_l2_pair", "pmd_pair", "fw_l1_pair",
    "dp_pgd_printed_sigma", "printed_sigma_factor", "printed_sigma_step_epsilon",
    "dp_pgd_data_dependent_index", "index_twin_supports",
    "dp_fw_l2_half_sensitivity", "half_sensitivity_factor", "half_sensitivity_step_epsilon",
    "dp_fw_l2_data_dependent_step", "plug_in_initial_gap", "step_twin_atoms",
    "dp_fw_l1_full_exponent", "fw_l1_selection_profile",
]

#: The audit instances (module docstring): budget and data of each.
PGD = {"epsilon": 1.0, "delta": 1e-5, "feature_norm": 0.1}
FW_L2 = {"epsilon": 1.0, "delta": 1e-5, "feature_norm": 0.1}
PMD = {"epsilon": 1.0, "delta": 1e-5, "feature_norm": 0.1}
FW_L1_STEP = {"epsilon": 0.9, "delta": 0.5}
FW_L1 = {"epsilon": 0.9, "delta": 1e-5}


# --------------------------------------------------------------------------------------------
# instances


def pgd_pair():
    """``(pair, loss, domain)`` of the Algorithm 1 audits (module docstring)."""
    x = PGD["feature_norm"]
    data = np.array([[x, 1.0], [x / 2, -1.0], [x / 2, -1.0]] * 2)
    return replace_one(data, 0, np.array([x, -1.0])), Sigmoid(feature_norm=x), Rp(dim=1)


def fw_l2_pair():
    """``(pair, loss, domain)`` of the Algorithm 2 audits: twelve records, ``sum y x = 0.15`` (0.1 from
    the first record, 0.05 from the second, five cancelling pairs) against ``-0.05``."""
    x = FW_L2["feature_norm"]
    rows = [[x, 1.0], [x / 2, 1.0]] + [[x, 1.0], [x, -1.0]] * 5
    data = np.array(rows)
    return replace_one(data, 0, np.array([x, -1.0])), Sigmoid(feature_norm=x), L2Ball(radius=1.0, dim=1)


def pmd_pair():
    """``(pair, loss, domain)`` of the Algorithm 3 audits: the entropy on the probability simplex of R^2,
    eight records ``x = (0.1, 0)`` (the first with label +1, then three cancelling pairs and one more -1...)
    and the neighbour with the first label flipped."""
    x = PMD["feature_norm"]
    rows = [[x, 0.0, 1.0], [0.0, x, 1.0]] + [[x, 0.0, 1.0], [x, 0.0, -1.0]] * 3
    data = np.array(rows)
    return replace_one(data, 0, np.array([x, 0.0, -1.0])), Sigmoid(feature_norm=x), Simplex(dim=2)


def fw_l1_pair(kind="step"):
    """``(pair, loss, domain)`` of the Algorithm 4 audits: ``kind="step"`` the one-step instance of the
    module docstring (n = 4), ``"composed"`` a hundred records ``(1, then 99 records alternating -1, +1)``
    (``T = 4`` at ``FW_L1``)."""
    if kind == "step":
        data = np.array([[1.0], [-1.0], [-1.0], [-1.0]])
    elif kind == "composed":
        data = np.array([[1.0]] + [[-1.0], [1.0]] * 49 + [[-1.0]])
    else:
        raise ValueError(f"kind ({kind!r}) must be 'step' or 'composed'")
    return replace_one(data, 0, np.array([-1.0])), Linear(data_norm=1.0), L1Ball(radius=1.0, dim=1)


# --------------------------------------------------------------------------------------------
# Algorithm 1 twins


def printed_sigma_factor(*, loss, n, dimension, epsilon, delta) -> float:
    """``sigma_printed / sigma`` (``wang19.alg_1``'s ``sigma_printed`` over the reference's sigma)."""
    steps, sigma, _ = _pgd.constants(loss=loss, n=n, dimension=dimension, epsilon=epsilon, delta=delta)
    printed = _spec.ALG_1.evaluate("sigma_printed", smoothness=loss.constants.smoothness, n=n, epsilon=epsilon,
                                   delta=delta, steps=steps)
    return printed / sigma


def dp_pgd_printed_sigma(data, *, loss, epsilon, delta, rng=None, noise=None, **kwargs):
    """Algorithm 1 with step 3 as printed: the ``"wang19 Alg.1 L2 eps_k"`` draws scaled by
    :func:`printed_sigma_factor` (same arguments as :func:`reference.wang19.dp_pgd`; default steps)."""
    rows = np.asarray(data)
    factor = printed_sigma_factor(loss=loss, n=rows.shape[0], dimension=loss.dim_of_row(rows.shape[1]),
                                  epsilon=epsilon, delta=delta)
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _pgd.LABEL_NOISE, factor)
    return alg.dp_pgd(data, loss=loss, epsilon=epsilon, delta=delta, noise=src, **kwargs)


def printed_sigma_step_epsilon(*, loss, n, epsilon, delta) -> float:
    """Exact epsilon at ``delta`` of the printed twin's *first* noisy gradient alone on :func:`pgd_pair`.

    At ``x_1 = 0`` the two data sets' gradients differ by exactly ``2G/n`` (``s'(0) = 1/4``), so the first
    release is the Gaussian mechanism at that sensitivity with noise ``factor * sigma``; any function of
    the transcript (the audit's events) is post-processing, so this is a lower bound on the twin's loss.
    """
    steps, sigma, _ = _pgd.constants(loss=loss, n=n, dimension=1, epsilon=epsilon, delta=delta)
    factor = printed_sigma_factor(loss=loss, n=n, dimension=1, epsilon=epsilon, delta=delta)
    shift = 2 * loss.feature_norm * 0.25 / n  # 2 X s'(0) / n, exactly the declared 2G/n
    return _gaussian.exact_epsilon(delta, sigma=factor * sigma, sensitivity=shift)


def dp_pgd_data_dependent_index(data, *, loss, domain, regulariser=None, **kwargs):
    """Algorithm 1 whose output index minimises the exact gradient mapping over ``x_1, ..., x_T``.

    Runs the reference with its transcript, computes ``||P_C(x_k, grad F(x_k; D), gamma)||`` with the
    *exact* gradient for every ``k`` and returns ``x_R``, ``x_{R+1}`` at the first minimiser (the reference's
    own uniform ``R`` is discarded).
    """
    res = alg.dp_pgd(data, loss=loss, domain=domain, regulariser=regulariser, transcript=True, **kwargs)
    xs = np.concatenate([res.x_1[None], res.transcript["x"]])  # x_1, ..., x_{T+1}: (T + 1, runs, p)
    rows = np.asarray(data, dtype=float)
    grads = loss.total_gradient(xs[:-1], rows, normalisation="average")
    norms = np.linalg.norm(gradient_mapping(xs[:-1], grads, step=res.learning_rate, domain=domain,
                                            regulariser=regulariser), axis=-1)  # (T, runs)
    k = np.argmin(norms, axis=0)
    runs = np.arange(xs.shape[1])
    return dataclasses.replace(res, theta=xs[k, runs], x_next=xs[k + 1, runs], index=k + 1)


def index_twin_supports(*, theta_grid=None):
    """``(F'_D, F'_D')`` on a grid of theta for :func:`pgd_pair`, and the two facts the violation rests
    on: ``F'_D >= 0`` with its only zero at 0, and ``|F'_D'|`` largest at 0 (strictly)."""
    pair, loss, _ = pgd_pair()
    t = np.linspace(-400.0, 400.0, 80001) if theta_grid is None else np.asarray(theta_grid, dtype=float)
    d = loss.total_gradient(t[:, None], pair.dataset, normalisation="average")[:, 0]
    e = loss.total_gradient(t[:, None], pair.neighbour, normalisation="average")[:, 0]
    zero = np.abs(t) == 0
    return {
        "theta": t, "gradient_dataset": d, "gradient_neighbour": e,
        "dataset_zero_only_at_start": bool(np.all(d[~zero] > 0) and np.all(d[zero] == 0)),
        "neighbour_largest_at_start": bool(np.all(np.abs(e[~zero]) < np.abs(e[zero]).min())),
    }


# --------------------------------------------------------------------------------------------
# Algorithm 2 twins


def half_sensitivity_factor(*, loss, domain, n, epsilon, delta) -> float:
    """``sigma(G/2) / sigma(G)``: sigma of ``wang19.eq_3`` calibrated to sensitivity ``G/n``."""
    steps, sigma, _, _ = _fw2.constants(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta)
    half = _spec.EQ_3.evaluate("sigma", lipschitz=loss.constants.lipschitz / 2, n=n, epsilon=epsilon, delta=delta,
                               steps=steps)
    return half / sigma


def dp_fw_l2_half_sensitivity(data, *, loss, domain, epsilon, delta, rng=None, noise=None, **kwargs):
    """Algorithm 2 with the ``"wang19 Alg.2 L2 eps_t"`` draws scaled by :func:`half_sensitivity_factor`."""
    factor = half_sensitivity_factor(loss=loss, domain=domain, n=np.asarray(data).shape[0], epsilon=epsilon,
                                     delta=delta)
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _fw2.LABEL_NOISE, factor)
    return alg.dp_fw_l2(data, loss=loss, domain=domain, epsilon=epsilon, delta=delta, noise=src, **kwargs)


def half_sensitivity_step_epsilon(*, loss, domain, n, epsilon, delta) -> float:
    """Exact epsilon at ``delta`` of the twin's first noisy gradient alone on :func:`fw_l2_pair`
    (sensitivity ``2 X s'(0)/n = 2G/n`` attained at ``x_1 = 0``)."""
    _, sigma, _, _ = _fw2.constants(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta)
    factor = half_sensitivity_factor(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta)
    return _gaussian.exact_epsilon(delta, sigma=factor * sigma, sensitivity=2 * loss.feature_norm * 0.25 / n)


def plug_in_initial_gap(data, *, loss, domain, x_1=None, points=2001) -> float:
    """The twin's ``h_0``: ``F(x_1) - min F`` over the segment from ``x_1`` to the exact Frank-Wolfe vertex
    ``lmo(grad F(x_1))`` (``points`` evenly spaced), computed from the data."""
    rows = np.asarray(data, dtype=float)
    x1 = np.asarray(domain.interior_point() if x_1 is None else x_1, dtype=float)
    v = domain.lmo(loss.total_gradient(x1, rows, normalisation="average"))
    t = np.linspace(0.0, 1.0, points)[:, None]
    values = loss.total(x1 + t * (v - x1), rows, normalisation="average")
    return float(loss.total(x1, rows, normalisation="average") - np.min(values))


def dp_fw_l2_data_dependent_step(data, *, loss, domain, x_1=None, **kwargs):
    """Algorithm 2 with ``learning_rate="tuned"`` and ``initial_gap`` = :func:`plug_in_initial_gap` (data)."""
    h0 = plug_in_initial_gap(data, loss=loss, domain=domain, x_1=x_1)
    return alg.dp_fw_l2(data, loss=loss, domain=domain, x_1=x_1, learning_rate="tuned", initial_gap=h0, **kwargs)


def step_twin_atoms():
    """The step twin's ``gamma`` on the two data sets of :func:`fw_l2_pair` and ``P[R = 2]``: with
    ``x_1 = 0`` and ``T = 2`` the output is ``0`` (R = 1) or ``+-gamma`` (R = 2)."""
    pair, loss, domain = fw_l2_pair()
    out = {}
    for name, data in (("dataset", pair.dataset), ("neighbour", pair.neighbour)):
        h0 = plug_in_initial_gap(data, loss=loss, domain=domain)
        steps, _, gamma, _ = _fw2.constants(loss=loss, domain=domain, n=data.shape[0], epsilon=FW_L2["epsilon"],
                                            delta=FW_L2["delta"], learning_rate="tuned", initial_gap=h0)
        out[name] = {"initial_gap": h0, "learning_rate": gamma, "steps": steps}
    out["probability_R_2"] = 1.0 / out["dataset"]["steps"]
    return out


# --------------------------------------------------------------------------------------------
# Algorithm 4 twin


def dp_fw_l1_full_exponent(data, *, rng=None, noise=None, **kwargs):
    """Algorithm 4 with the Gumbel draws of the exponential mechanism halved: coefficient ``2c``."""
    src = ScaledDraws(noise_source(rng=rng, noise=noise), _fw1.LABEL_SELECT, 0.5)
    return alg.dp_fw_l1(data, noise=src, **kwargs)


def fw_l1_selection_profile(*, coefficient_factor=1.0, kind="step", epsilon=None, delta=None):
    """``(p_D, p_D')``: the probability of selecting ``+1`` at every step on :func:`fw_l1_pair` (the linear
    loss's gradient does not depend on theta, so the steps are i.i.d.), for the reference's coefficient
    times ``coefficient_factor``, and the constants ``(T, epsilon_0, c)``."""
    budget = FW_L1_STEP if kind == "step" else FW_L1
    eps = budget["epsilon"] if epsilon is None else epsilon
    dlt = budget["delta"] if delta is None else delta
    pair, loss, domain = fw_l1_pair(kind)
    n = pair.dataset.shape[0]
    steps, eps0, c, _, _ = _fw1.constants(loss=loss, domain=domain, n=n, epsilon=eps, delta=dlt)
    out = []
    for data in (pair.dataset, pair.neighbour):
        u = _fw1.scores(domain, loss.total_gradient(np.zeros(1), data, normalisation="average"))
        z = coefficient_factor * c * (u - u.max())
        w = np.exp(z) / np.exp(z).sum()
        out.append(float(w[0]))  # vertex +r e_1 is index 0
    return out[0], out[1], {"steps": steps, "epsilon_step": eps0, "coefficient": c}


def pure_step_excess(p, q, epsilon_step) -> float:
    """``max`` over the events of a two-point output of ``P - e^{epsilon_0} Q`` (both orders): the delta a
    single epsilon_0-DP step would have to allow (the claim allows 0)."""
    c = math.exp(epsilon_step)
    return max(0.0, p - c * q, q - c * p, (1 - p) - c * (1 - q), (1 - q) - c * (1 - p))
