r"""wang20 Algorithm 1: sample-and-aggregate with the centre-of-attention aggregator (NRS07), batched over runs.

Draw m subsets of ``floor(n/m)`` records, each uniformly without replacement, redrawn until no record
lies in more than ``s = floor(sqrt m)`` of them; compute the block outputs ``z_i = f(D_{S_i})`` (a
non-private ERM solve over W by default); release the centre of attention ``g = z_{i*}``,
``i* = argmin_i r_i(t0)``, plus ``(S/gamma) u``, ``u ~ N(0, I_d)``, where ``r_i(t)`` is the distance
from ``z_i`` to its t-th nearest neighbour among ``z_1..z_m`` (``r_i(1) = 0``) and

    S = max{ max_{k<K} e^{-beta k} 2 r_((k+1)s+1)(t0 + (k+1)s),  2 Lambda e^{-beta K} },

``r_(j)(t)`` the j-th smallest of ``r_1(t), ..., r_m(t)``, ``Lambda`` the diameter of W (every block
output lies in W). This is the beta-smooth upper bound on the local sensitivity of ``g`` over block
multisets that differ in at most s entries that ``wang20.alg_1`` reconstructs (RECONSTRUCTED flag;
the printed rho(t), a mean of the *top* radii, is not smooth: ERRATUM flag). Every constant
(``s``, ``gamma``, ``beta``, ``t0``, ``K``, the block size, ``1/gamma``, ``Lambda``) is a formula of
``wang20.alg_1``.

Floating point: distances carry a relative error of a few ulps; ``S`` is multiplied by ``1 + 16 u``
(``u = 2^-53``), so it stays above the exact bound computed from the computed outputs.

Privacy rests on the block outputs lying in W (``Lambda`` caps the radii): outputs outside the
domain are rejected (ParameterError), not projected silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from reference import arrays
from reference.configured import Configured, minimum_records, quantity
from reference.problem import check_problem, check_setting
from reference.results import AlgorithmResult
from reference.rng import RngLike
from reference.solver import minimise
from spec import validate
from spec.errors import ParameterError
from spec.wang20 import sample_and_aggregate as _spec

__all__ = [
    "SPEC_IDS",
    "LABEL_SUBSET",
    "LABEL_NOISE",
    "SampleAggregate",
    "SampleAggregateResult",
    "sample_aggregate",
    "erm_blocks",
    "projected_mean_blocks",
    "smooth_bound",
    "MAX_REDRAWS",
]

SPEC_IDS = ("wang20.alg_1", "wang20.thm_1", "wang20.thm_2")
#: Tape labels: the uniform draws that choose each subset (line 2) and the Gaussian u (line 6).
LABEL_SUBSET = "wang20 Alg.1 L2 subset"
LABEL_NOISE = "wang20 Alg.1 L6 u"
#: Line 2's redraw loop gives up after this many rounds (a record's count is about Binomial(m, 1/m)).
MAX_REDRAWS = 1000

_ROUND_UP = 1.0 + 16 * 2.0**-53


@dataclass(frozen=True)
class SampleAggregateResult(AlgorithmResult):
    """Output of :func:`sample_aggregate`.

    Attributes
    ----------
    theta : ndarray, shape (runs, d)
        ``A(D)`` (line 6).
    centre : ndarray, shape (runs, d)
        ``g(S) = z_{i*}`` (line 4).
    smooth_bound : ndarray, shape (runs,)
        ``S`` (line 5), rounded up.
    redraws : int
        Rounds of line 2's loop beyond the first (over all runs).
    parameters : dict
        ``multiplicity`` s, ``shift`` gamma, ``dilation`` beta, ``block_size``, ``attention_rank``
        t0, ``last_shift`` K, ``radius_cap`` Lambda, ``noise_multiplier`` 1/gamma.
    blocks : ndarray, shape (runs, m, d)
        The block outputs ``z_i``.
    """

    theta: np.ndarray
    centre: np.ndarray
    smooth_bound: np.ndarray
    redraws: int
    parameters: dict = field(default_factory=dict)
    blocks: np.ndarray = field(default=None, repr=False)


def erm_blocks(loss, *, solver_tolerance=1e-10) -> Callable:
    """The default block function: the ERM minimiser over W of the average loss on each block.

    Returns ``f(blocks (runs, m, b, k), domain) -> (runs, m, d)``, one certified solve
    (:func:`reference.solver.minimise`, normalisation ``"average"``) per block. A heavy-tailed loss
    is solved as its bounded twin on the block's own rows (:meth:`bounded_on`): f is non-private,
    only its range (W) enters the privacy. The solver's point is projected onto W (it is feasible up
    to rounding).
    """
    tol = validate.positive("solver_tolerance", solver_tolerance)

    def f(blocks, domain):
        out = np.empty(blocks.shape[:2] + (domain.dim,))
        radius = domain.max_norm
        for r in range(blocks.shape[0]):
            for i in range(blocks.shape[1]):
                rows = blocks[r, i]
                solved_loss = loss.bounded_on(rows, domain_radius=radius) if hasattr(loss, "bounded_on") else loss
                out[r, i] = domain.project(minimise(solved_loss, rows, domain, tolerance=tol,
                                                    normalisation="average").theta)
        return out

    f.__qualname__ = f"erm_blocks({loss!r})"
    return f


def projected_mean_blocks(blocks, domain):
    """The exact ERM minimiser of ``||w - d||^2/2`` on each block: ``P_W(mean of the block)``.

    (:func:`reference.solver.exact_minimiser_half_squared`, for all blocks at once.) For the
    half squared distance it equals :func:`erm_blocks`' solve; the audits use it because it is fast.
    """
    return domain.project(np.asarray(blocks, dtype=float).mean(axis=-2))


def _radii(z: np.ndarray) -> np.ndarray:
    """``r[..., i, t-1] = r_i(t)``: sorted distances from ``z_i`` to every ``z_j`` (itself first, 0)."""
    diff = z[..., :, None, :] - z[..., None, :, :]
    dist = arrays.l2_norm(diff)
    return np.sort(dist, axis=-1)


def smooth_bound(blocks, *, multiplicity, dilation, attention_rank, last_shift, radius_cap) -> np.ndarray:
    """``S`` of line 5 (module docstring) for block outputs ``(..., m, d)``, rounded up; shape ``(...)``.

    Privacy
    -------
    ``wang20.alg_1`` (RECONSTRUCTED flag: a beta-smooth upper bound on the local sensitivity of the
    centre of attention over multisets differing in at most s entries).
    """
    z = np.asarray(blocks, dtype=float)
    m = z.shape[-2]
    s, t0, big_k = int(multiplicity), int(attention_rank), int(last_shift)
    cap = float(radius_cap)
    r = _radii(z)
    best = np.full(z.shape[:-2], 2.0 * cap * np.exp(-dilation * big_k))
    for k in range(big_k):
        t = t0 + (k + 1) * s  # <= m for k < K
        j = (k + 1) * s + 1  # <= m for k < K
        if t > m or j > m:  # pragma: no cover - excluded by K = floor((m - t0)/s)
            raise AssertionError("K exceeds the ranks the radii have")
        radius = np.sort(np.minimum(r[..., :, t - 1], cap), axis=-1)[..., j - 1]
        best = np.maximum(best, np.exp(-dilation * k) * 2.0 * radius)
    return best * _ROUND_UP


def _draw_subsets(src, runs: int, m: int, n: int, size: int, s: int):
    """Line 2 for every run: ``(runs, m, size)`` record indices and the number of extra rounds."""
    chosen = np.empty((runs, m, size), dtype=np.int64)
    todo = np.arange(runs)
    rounds = 0
    while todo.size:
        if rounds > MAX_REDRAWS:
            raise RuntimeError(f"line 2 drew subsets {MAX_REDRAWS} times without meeting the multiplicity {s}")
        picks = np.empty((todo.size, m, size), dtype=np.int64)
        for i in range(m):
            # a uniformly random subset of `size` records, without replacement: the first `size`
            # entries of the permutation that sorts i.i.d. uniforms
            u = src.uniform(LABEL_SUBSET, (todo.size, n))
            picks[:, i] = np.argsort(u, axis=-1, kind="stable")[:, :size]
        counts = np.zeros((todo.size, n), dtype=np.int64)
        np.add.at(counts, (np.arange(todo.size)[:, None], picks.reshape(todo.size, -1)), 1)
        ok = counts.max(axis=1) <= s
        chosen[todo[ok]] = picks[ok]
        todo = todo[~ok]
        rounds += 1
    return chosen, rounds - 1


@dataclass(frozen=True, kw_only=True, eq=False)
class SampleAggregate(Configured):
    r"""Algorithm 1, configured: s, gamma, beta, t0, K, the block size and Lambda, before any data.

    Privacy
    -------
    ``wang20.thm_1``, ``wang20.alg_1``: (epsilon, delta)-DP under replace-one (NRS07's Gaussian
    admissibility with the reconstructed beta-smooth bound).

    Utility
    -------
    ``wang20.thm_2`` (with the ERM block function, strongly convex risk).
    """

    ALGORITHM: ClassVar[str] = "wang20.alg_1"
    RESULT: ClassVar[type] = SampleAggregateResult
    USES: ClassVar[tuple[str, ...]] = ()

    block_function: Callable = field(repr=False)
    subsets: int = quantity("m, the number of subsets (line 2)", source="given")
    multiplicity: int = quantity("s = floor(sqrt m), the most subsets a record may be in (line 1)",
                                 source="wang20.alg_1 multiplicity")
    block_size: int = quantity("floor(n/m), the records of each subset (line 2)", source="wang20.alg_1 block_size")
    shift: float = quantity("gamma = epsilon/(5 sqrt(2 log(2/delta))) (line 1)", source="wang20.alg_1 shift")
    dilation: float = quantity("beta = epsilon/(4 (d + log(2/delta))) (line 1)", source="wang20.alg_1 dilation")
    attention_rank: int = quantity("t0 = floor((m + s)/2) + 1 (line 4)", source="wang20.alg_1 attention_rank")
    last_shift: int = quantity("K, the last shift of the smooth bound (line 5)", source="wang20.alg_1 last_shift")
    radius_cap: float = quantity("Lambda, the diameter of W (line 5)", source="wang20.alg_1 radius_cap")
    noise_multiplier: float = quantity("1/gamma (line 6)", source="wang20.alg_1 noise_multiplier")
    parameters: dict = field(default_factory=dict, repr=False)

    def privacy_record(self) -> str:
        return "wang20.thm_1"

    @classmethod
    def configure(cls, *, loss, domain, n: int, epsilon: float, delta: float, subsets: int,
                  block_function: Callable | None = None, allow_unproven: bool = False) -> "SampleAggregate":
        r"""Configure Algorithm 1 for ``n`` records.

        Parameters
        ----------
        loss : reference.losses.Loss
            The loss of the block ERM (a heavy-tailed loss is welcome).
        domain : reference.domains.Domain
            A bounded W; its diameter is the radius cap Lambda.
        n : int
            Number of records, at least 2.
        epsilon, delta : float
            The target budget (``epsilon > 0``, ``0 < delta < 1``).
        subsets : int
            m, with ``1 <= m <= n``.
        block_function : callable, optional
            ``f(blocks (runs, m, b, k), domain) -> (runs, m, d)`` with values in W; by default the
            certified ERM solve of each block (``erm_blocks``). Any f with values in W is private.
        allow_unproven : bool
            Build the configuration even when its claim is not proven.

        Returns
        -------
        SampleAggregate
        """
        check_setting(loss=loss, domain=domain, convex=True)
        n = minimum_records(n, cls.ALGORITHM)
        m = validate.positive_integer("subsets", subsets)
        if m > n:
            raise ParameterError(f"subsets ({m}) must be <= n ({n})")
        f = erm_blocks(loss) if block_function is None else block_function
        if not callable(f):
            raise TypeError(f"block_function ({f!r}) must be callable as f(blocks, domain)")
        rec = _spec.ALG_1
        at = dict(epsilon=epsilon, delta=delta, dimension=domain.dim, subsets=m, n=n, diameter=domain.diameter)
        # [wang20 Alg.1 L1] s = sqrt(m) (floor), gamma = epsilon/(5 sqrt(2 log(2/delta))), beta = epsilon/(4 (d + log(2/delta)))
        params = {name: rec.evaluate(name, **at) for name in (
            "multiplicity", "shift", "dilation", "noise_multiplier", "block_size", "attention_rank", "last_shift",
            "radius_cap")}
        floor = 2.0 * params["radius_cap"] * math.exp(-params["dilation"] * int(params["last_shift"]))
        notes = []
        if floor >= params["radius_cap"]:
            notes.append(f"the floor 2 Lambda e^(-beta K) = {floor:.3g} of the smooth bound (line 5) is at least the "
                         f"diameter of W ({params['radius_cap']:.3g}): every release has noise of scale at least "
                         f"{floor * params['noise_multiplier']:.3g}, larger than W; more records (n), a larger epsilon "
                         "or fewer subsets (--subsets) raise K and lower it.")
        return cls(loss=loss, domain=domain, n=n, p=domain.dim, epsilon=float(epsilon), delta=float(delta),
                   options={"subsets": m, "block_function": block_function}, spec_ids=SPEC_IDS, notes=tuple(notes),
                   allow_unproven=allow_unproven, block_function=f, subsets=m,
                   multiplicity=int(params["multiplicity"]), block_size=int(params["block_size"]),
                   shift=params["shift"], dilation=params["dilation"], attention_rank=int(params["attention_rank"]),
                   last_shift=int(params["last_shift"]), radius_cap=params["radius_cap"],
                   noise_multiplier=params["noise_multiplier"], parameters=params)._finish()

    def gradient_evaluations(self, *, runs: int = 1) -> int:
        """The block solves: at least one pass over every block's rows, ``m floor(n/m)`` per run."""
        return int(self.subsets) * int(self.block_size) * int(runs)

    def _loop(self, rows, *, runs, noise, transcript, progress) -> dict:
        src, domain, n, p, f, params = noise, self.domain, self.n, self.p, self.block_function, self.parameters
        m, s, size = self.subsets, self.multiplicity, self.block_size
        # [wang20 Alg.1 L2] m subsets of size n/m, uniformly without replacement; redrawn until no record is in more than s
        index, redraws = _draw_subsets(src, runs, m, n, size, s)
        # [wang20 Alg.1 L3] s_i = f(D_{S_i}) for every subset
        z = np.asarray(f(rows[index], domain), dtype=float)
        if z.shape != (runs, m, p):
            raise ParameterError(f"block_function returned shape {z.shape}; it must return ({runs}, {m}, {p})")
        if not np.all(np.isfinite(z)) or not np.all(domain.contains(z)):
            raise ParameterError("block_function returned outputs outside the domain: the radius cap Lambda = "
                                 f"diameter ({domain.diameter!r}) would not bound their distances")
        progress(1, 1)
        # [wang20 Alg.1 L4] g = s_{i*}, i* = argmin_i r_i(t0), t0 = floor((m + s)/2) + 1
        t0 = self.attention_rank
        r = _radii(z)
        star = np.argmin(r[..., t0 - 1], axis=-1)
        centre = z[np.arange(runs), star]
        # [wang20 Alg.1 L5] S = max_k e^{-beta k} 2 r_((k+1)s+1)(t0 + (k+1)s), floor 2 Lambda e^{-beta K}
        bound = smooth_bound(z, multiplicity=s, dilation=self.dilation, attention_rank=t0,
                             last_shift=self.last_shift, radius_cap=self.radius_cap)
        # [wang20 Alg.1 L6] A(D) = g + (S/gamma) u, u ~ N(0, I_d)
        u = src.normal(LABEL_NOISE, (runs, p))
        theta = centre + (bound * self.noise_multiplier * _ROUND_UP)[:, None] * u
        return dict(theta=theta, centre=centre, smooth_bound=bound, redraws=redraws, parameters=params, blocks=z)


def sample_aggregate(data, *, loss, domain, epsilon, delta, subsets, runs=1, block_function=None,
                     rng: RngLike = None, noise=None) -> SampleAggregateResult:
    r"""Algorithm 1: :meth:`SampleAggregate.configure` for the data's n, then run (a thin wrapper).

    Parameters
    ----------
    data : array_like, shape (n, k)
        Finite rows (no bound).
    loss, domain, epsilon, delta, subsets, block_function
        As in :meth:`SampleAggregate.configure`.
    runs : int
    rng, noise
        Line 2: ``m`` ``uniform`` entries ``"wang20 Alg.1 L2 subset"`` of shape ``(k, n)`` per
        round (k the runs still drawing); line 6: one ``normal`` entry ``"wang20 Alg.1 L6 u"`` of
        shape ``(runs, d)``.

    Returns
    -------
    SampleAggregateResult

    Privacy
    -------
    ``wang20.thm_1``, ``wang20.alg_1``.

    Utility
    -------
    ``wang20.thm_2`` (with the ERM block function, strongly convex risk).
    """
    _, n, _ = check_problem(data, loss=loss, domain=domain)
    configured = SampleAggregate.configure(loss=loss, domain=domain, n=n, epsilon=epsilon, delta=delta,
                                           subsets=subsets, block_function=block_function, allow_unproven=True)
    return configured.run(data, runs=runs, rng=rng, noise=noise)
