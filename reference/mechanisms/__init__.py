r"""The primitive mechanisms, batched: what the privacy audits run.

Every mechanism here is a callable object with the audit harness's signature

    mechanism(data, *, runs=1, rng=None, noise=None) -> ndarray with leading axis runs

(keyword-only ``runs`` and ``rng``, as everywhere in reference/; :func:`audits.audit_privacy`
calls mechanisms with these keywords; ``noise=`` takes a :class:`reference.tape.NoiseSource` to
record or replay the draws), a ``logpdf(data,
outputs)`` giving the exact log density (or log probability) of each output where the law is
known, and a ``profile()`` giving the privacy profile ``delta(epsilon)`` that its noise
guarantees at its declared sensitivity.

Each class is configured by its noise parameter (``sigma``, ``scale``, ``rate``,
``coefficient``), like the laws in :mod:`reference.samplers`. The classmethod ``calibrated``
takes a privacy claim instead and evaluates the noise parameter from the spec record (never
retyped); the claim is kept on the object (``epsilon``, ``delta``; ``None`` for an object
built from a raw noise parameter).

Data and queries
----------------
A dataset is a float array of shape ``(n, k)``, one record per row. The value mechanisms
release the **sum query** ``q(D) = sum_i d_i`` (shape ``(k,)``) plus noise; the records must
lie in a declared norm ball (l2 for the Gaussian and radial mechanisms, l1 for Laplace) of
radius ``data_norm``. The selection mechanisms read a record as one score per candidate, each
in ``[0, score_bound]``, and score candidate ``r`` by the column sum ``u(D, r) = sum_i
d_{i r}``. Records outside the declared bounds raise :class:`spec.errors.DataBoundError`
(never clipped); as in :mod:`reference.losses`, norms are compared with a relative tolerance
of ``BOUND_TOLERANCE`` (1e-12), a factor the sensitivities then hold up to.

Sensitivities (:func:`sum_sensitivity`)
---------------------------------------
For a sum of records of norm at most ``R``: replacing one record moves the sum by
``||d - d'|| <= 2R``; adding or removing one moves it by ``||d|| <= R``. So the sum query has
sensitivity ``2R`` under replace-one and ``R`` under add/remove-one, in whichever norm bounds
the records. For scores in ``[0, B]`` each score moves by at most ``B`` under either relation
(a difference of two values in ``[0, B]``, or one such value), so ``Delta_u = B``; under
add/remove every score moves in the same direction (monotone scores).

Mechanisms
----------
:class:`GaussianMechanism`        ``q(D) + N(0, sigma^2 I_k)``; ``gaussian.analytic`` or
                                  ``gaussian.classic``.
:class:`LaplaceMechanism`         ``q(D) + Lap(scale)^k``; ``laplace.mechanism`` (l1).
:class:`RadialLaplaceMechanism`   ``q(D) + b``, density of ``b`` proportional to
                                  ``exp(-rate ||b||_2)``; ``profiles.radial_laplace``.
:class:`ExponentialSelection`     index ``r`` with probability proportional to
                                  ``exp(coefficient u(D, r))``; ``exponential.textbook``.
:class:`ReportNoisyMaxSelection`  ``argmax_r u(D, r) + Lap(scale)``; ``report_noisy_max.laplace``.
:class:`NoisyGradientDescent`     full-batch gradient descent releasing
                                  ``grad + N(0, sigma^2 I)`` at each of ``steps`` steps;
                                  ``gaussian.analytic`` composed over the steps.

Floating point
--------------
These are references for the real-valued mechanisms, not hardened releases. Their outputs are
floating-point sums, and the low-order bits of ``q(D) + noise`` depend on ``q(D)``: for the
Laplace mechanism this breaks eps-DP outright (Mironov 2012, "On significance of the least
significant bits for differential privacy"), and the audit's default log-likelihood-ratio
statistic finds it (``audits/suite/primitives/test_primitives.py::test_float_laplace_low_bits_are_flagged``).
Audits of the real-valued claims use statistics blind to the last bits (threshold events on
the value). A deployment needs snapping or exact discrete noise.

Modules: :mod:`~reference.mechanisms.base`, :mod:`~reference.mechanisms.additive`,
:mod:`~reference.mechanisms.selection`, :mod:`~reference.mechanisms.noisy_gd`.
"""

from __future__ import annotations

from reference.mechanisms.additive import (
    GaussianMechanism,
    LaplaceMechanism,
    RadialLaplaceMechanism,
)
from reference.mechanisms.base import BOUND_TOLERANCE, Mechanism, sum_sensitivity
from reference.mechanisms.noisy_gd import NoisyGradientDescent
from reference.mechanisms.selection import ExponentialSelection, ReportNoisyMaxSelection

__all__ = [
    "BOUND_TOLERANCE",
    "sum_sensitivity",
    "Mechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "RadialLaplaceMechanism",
    "ExponentialSelection",
    "ReportNoisyMaxSelection",
    "NoisyGradientDescent",
]
