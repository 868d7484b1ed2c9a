"""spec.wang19.population: Theorem 3's asymptotic form and the conditions behind its printed '='.

Oracles: sympy (the two comparisons reduced to their conditions) and the values at explicit parameters.
"""

from __future__ import annotations

import pytest
import sympy as sp

from spec.errors import AssumptionError
from spec.wang19 import population as pop
from spec.wang19.symbols import beta, delta, eps, n, p, tau

A = sp.Symbol("a", positive=True)
Q = sp.Symbol("Q", positive=True)  # tau^2 p log(tau/beta) log n, assumed positive


def _terms(**values):
    names = {"tau": tau, "beta": beta, "p": p, "n": n, "epsilon": eps, "delta": delta}
    subs = {names[k]: v for k, v in values.items()}
    return [float(x.subs(subs).evalf(30)) for x in (pop.UNIFORM_CONVERGENCE_TERM, pop.PRIVACY_TERM, pop.PRINTED_BOUND)]


def test_printed_equality_is_conditional():
    (flag,) = pop.THM_3.flags
    text = flag.summary + " " + flag.reason
    q_expr = tau**2 * p * sp.log(tau / beta) * sp.log(n)
    printed = sp.sqrt(Q * sp.sqrt(A) / (n * eps))
    assert sp.simplify(pop.PRINTED_BOUND.subs(delta, sp.exp(-A)) ** 2 - printed.subs(Q, q_expr) ** 2) == 0
    # first term <= printed  iff  Q/n <= Q sqrt(a)/(n eps)  iff  eps <= sqrt(a)
    first = sp.sqrt(Q / n)
    assert sp.simplify((printed**2 / first**2) - sp.sqrt(A) / eps) == 0
    # second term <= printed  iff  sqrt(p a)/(n eps) <= Q sqrt(a)/(n eps)  iff  sqrt(p) <= Q
    second = (p * A) ** sp.Rational(1, 4) / sp.sqrt(n * eps)
    assert sp.simplify((printed**2 / second**2) - Q / sp.sqrt(p)) == 0
    # violations at explicit parameters
    u, pr, pb = _terms(tau=sp.Rational(1, 10), beta=sp.Rational(1, 20), p=100, n=10**4, epsilon=1,
                       delta=sp.Rational(1, 10**5))
    assert pr > pb and f"{pr / pb:.2f}" == "1.25" and "1.25" in text
    u, pr, pb = _terms(tau=1, beta=sp.Rational(1, 20), p=10, n=10**4, epsilon=10, delta=sp.Rational(1, 10))
    assert u > pb and f"{u / pb:.2f}" == "2.57" and "2.57" in text


def test_asymptotic_form_and_assumptions():
    assert pop.THM_3.exponents(0) == {"n": sp.Rational(-1, 2), "dimension": sp.Rational(1, 2),
                                      "epsilon": sp.Rational(-1, 2)}
    assert pop.THM_3.exponents(1) == pop.THM_3.exponents(0)
    assert not pop.THM_3.formulas  # nothing to evaluate: every constant is open
    with pytest.raises(AssumptionError, match="n_ge_p_log_p"):
        pop.THM_3.check(n=100, dimension=100)
    with pytest.raises(AssumptionError, match="epsilon_le_1"):
        pop.THM_3.check(epsilon=2.0)
    pop.THM_3.check(n=1000, dimension=100, epsilon=1.0, delta=1e-5, failure_probability=0.05)
    assert "leaves open" in " ".join(pop.THM_3.notes)
