"""Where a run departs from the printed paper, as known-answer vector flags.

The source of truth is the spec registry: a flag of kind erratum or reconstructed formula whose
``slug`` is set (:class:`spec.record.Flag`) marks a place where the reference computes something
other than what the paper prints, because the print is wrong (``erratum``) or lost in extraction
(``reconstructed``). A vector, or any run of a reference algorithm, that follows it carries the
token ``erratum:<record id>:<slug>`` or ``reconstructed:<record id>:<slug>``.

:func:`departure_flags` maps the spec ids a run cites and the options it used to those tokens.
The committed vectors' generator calls it, and so can any tool that writes a vector of a run
(``dperm run --vector``): one function, one table (:data:`WHEN`) of the options under which a
departure applies (most apply whenever the record is cited).

>>> departure_flags(["wang17.alg_4", "wang17.thm_6_1"], {"output": "random", "steps": 8})
['erratum:wang17.alg_4:output-index']
>>> departure_flags(["wang17.alg_4", "wang17.thm_6_1"], {"output": "last", "steps": 8})
[]

A flag shared by two records (the same departure stated under both) is one departure, named after
the algorithm box when one of them is a box:

>>> departure_flags(["wang20.alg_3", "wang20.thm_4"], {})
['erratum:wang20.alg_3:epsilon-tilde-budget']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Mapping

from spec.record import Flag, FlagKind

__all__ = ["Departure", "departures", "departure", "departure_flags", "WHEN", "PREFIXES"]

#: The token prefix of each departing flag kind.
PREFIXES = {FlagKind.ERRATUM: "erratum", FlagKind.RECONSTRUCTED: "reconstructed"}


@dataclass(frozen=True)
class Departure:
    """One departure from a printed paper: its vector token and the spec flag that documents it.

    Attributes
    ----------
    token : str
        ``erratum:<record>:<slug>`` or ``reconstructed:<record>:<slug>``.
    record : str
        The record the token names (the algorithm box, when the flag is shared with a theorem).
    records : tuple of str
        Every record that carries the flag; citing any of them can bring the departure in.
    flag : spec.record.Flag
        What the paper prints, what dperm does instead (``summary``) and why (``reason``).
    """

    token: str
    record: str
    records: tuple[str, ...]
    flag: Flag


def _always(options: Mapping) -> bool:
    return True


def _unset(name: str) -> Callable[[Mapping], bool]:
    """The option was left at its default (absent or None): the paper's formula is evaluated."""
    return lambda options: options.get(name) is None


def _is(name: str, value: object, default: object) -> Callable[[Mapping], bool]:
    """The option (``default`` when absent or None) equals ``value``."""
    return lambda options: (default if options.get(name) is None else options.get(name)) == value


#: For every departure: the options under which a run citing its record follows it. A run's options
#: are the keyword arguments it used (a vector's ``parameters``); absent and None mean the default.
#: Total: a new slugged flag must be given an entry here (``tests/reference/vectors/test_departures.py``).
WHEN: dict[str, Callable[[Mapping], bool]] = {
    # the rigorous / numerical calibrations replace the printed sigma, whose proof does not close
    "erratum:bst14.thm_II_1:proof-does-not-close": lambda o: (o.get("calibration") or "printed") != "printed",
    # Algorithm 3 run with zeta >= 1, or inside Algorithm 4 (zeta = 3 ln n >= 3 ln 2)
    "erratum:bst14.alg_3:zeta-above-one": lambda o: o.get("zeta") is None or o["zeta"] >= 1,
    "reconstructed:bst14.thm_III_4:weight-exponent": _always,
    "reconstructed:bst14.thm_III_4:sampler-constants": _always,
    "erratum:wang17.alg_3:noisy-y-step": _always,
    "reconstructed:wang17.alg_3:alpha-with-diameter": _is("step_rule", "reconstructed", "reconstructed"),
    "erratum:wang17.alg_4:output-index": _is("output", "random", "last"),
    "reconstructed:wang17.thm_4_2:garbled-parameters":
        lambda o: any(o.get(k) is None for k in ("learning_rate", "epoch_length", "epochs")),
    "reconstructed:wang17.thm_4_4:epochs": _unset("epochs"),
    "reconstructed:wang17.thm_5_4:steps": _unset("steps"),
    "reconstructed:wang17.thm_6_2:steps": lambda o: o.get("steps") is None and (o.get("output") or "last") == "last",
    "reconstructed:wang17.thm_6_3:steps": lambda o: o.get("steps") is None and o.get("output") == "random",
    "erratum:wang19.alg_1:lipschitz-not-smoothness": _always,
    "erratum:wang19.alg_1:rho-not-rho-squared": _is("calibration", "zcdp", "zcdp"),
    "erratum:wang19.alg_1:rho-closed-form": _is("calibration", "zcdp", "zcdp"),
    "erratum:wang19.alg_3:bregman-step": _always,
    "reconstructed:wang19.alg_4:exponential-mechanism": _always,
    "erratum:wang19.lemma_1:log-garble": _is("composition", "lemma_1", "lemma_1"),
    "erratum:wang19.thm_4:step-size-fourth-root": _is("learning_rate", "paper", "paper"),
    "erratum:wang19.thm_6:steps-garble": _is("steps", "paper", "paper"),
    "erratum:wang20.alg_1:attention-radius-mean": _always,
    "reconstructed:wang20.alg_1:smooth-bound": _always,
    "erratum:wang20.alg_2:printed-bound-not-smooth": _always,
    "reconstructed:wang20.alg_2:smooth-bound": _always,
    "erratum:wang20.alg_2:trim-default": _unset("trim"),
    "erratum:wang20.alg_3:epsilon-tilde-budget": _always,
    "erratum:wang20.alg_4:noise-precision": _unset("noise_precision"),
    "reconstructed:wang20.eq_9:correction-term": _always,
    "reconstructed:zhang17.lemma_2:sensitivity-constant": _is("sensitivity_formula", "sensitivity", "sensitivity"),
    "erratum:zhang17.thm_1:gaussian-large-epsilon":
        lambda o: (o.get("delta") or 0) > 0 and o.get("calibration") == "analytic",
    "reconstructed:zhang17.thm_2:steps": _unset("steps"),
    "reconstructed:zhang17.thm_3:steps": _unset("steps"),
    "erratum:zhang17.thm_5:public-initial-gap": _always,
    "reconstructed:zhang17.thm_5:step-size": _always,
}


def _is_box(record_id: str) -> bool:
    return ".alg_" in record_id


@lru_cache(maxsize=1)
def _table() -> tuple[Departure, ...]:
    import spec

    carriers: dict[Flag, list[str]] = {}
    for record in spec.records():
        for flag in record.flags:
            if flag.slug:
                carriers.setdefault(flag, []).append(record.id)
    out = []
    for flag, ids in carriers.items():
        home = sorted(ids, key=lambda rid: (not _is_box(rid), ids.index(rid)))[0]
        out.append(Departure(token=f"{PREFIXES[flag.kind]}:{home}:{flag.slug}", record=home, records=tuple(ids),
                             flag=flag))
    tokens = [d.token for d in out]
    if len(set(tokens)) != len(tokens):
        raise ValueError(f"two departures share a token: {sorted(t for t in tokens if tokens.count(t) > 1)}")
    return tuple(sorted(out, key=lambda d: d.token))


def departures() -> dict[str, Departure]:
    """Every departure the spec registry records, by token (sorted).

    >>> departures()["erratum:wang17.alg_3:noisy-y-step"].records
    ('wang17.alg_3',)
    """
    return {d.token: d for d in _table()}


def departure(token: str) -> Departure:
    """The departure of ``token`` (KeyError naming the known ones when it is not a departure)."""
    table = departures()
    if token not in table:
        raise KeyError(f"{token!r} is not a departure token; known: {', '.join(table)}")
    return table[token]


def departure_flags(spec_ids: Iterable[str], options: Mapping[str, object]) -> list[str]:
    """The departure tokens a run follows, sorted: every departure recorded on a cited record that
    applies under the run's options.

    Parameters
    ----------
    spec_ids : iterable of str
        The records the run cites (a vector's ``spec``; a result's ``spec_ids``).
    options : mapping
        The keyword arguments the run used (a vector's ``parameters``: ``calibration``,
        ``output``, ``steps``, ``trim``, ...). A key that is absent or None stands for the
        algorithm's default, i.e. the paper's formula.

    Returns
    -------
    list of str
        ``erratum:<record>:<slug>`` / ``reconstructed:<record>:<slug>`` tokens, sorted, each once.
    """
    cited = set(spec_ids)
    out = []
    for d in _table():
        if cited.intersection(d.records):
            if d.token not in WHEN:
                raise KeyError(f"{d.token}: reference.vectors.departures.WHEN has no entry for this departure")
            if WHEN[d.token](options):
                out.append(d.token)
    return out
