"""Render spec records as plain text (``dperm spec ID``) and LaTeX (``--latex``)."""

from __future__ import annotations

import textwrap

import sympy as sp

from spec.record import Calibration, SpecRecord

__all__ = ["to_text", "to_latex", "to_dict", "one_line", "calibration_source", "formula_latex"]

_WIDTH = 96


def _wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, width=_WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")


def one_line(record: SpecRecord | dict) -> str:
    """``id  citation  summary`` for listings (of a record, or of its row in :mod:`spec.index`)."""
    if isinstance(record, dict):
        return f"{record['id']:<28} {record['citation']:<34} {record['summary']}"
    return f"{record.id:<28} {str(record.citation):<34} {record.summary}"


def _bound_text(u) -> str:
    b = sp.sstr(u.bound)
    kind = u.kind.value
    if kind == "Omega(.)":
        return f"{u.quantity.value} >= Omega({b})"
    if kind == "O(.)":
        return f"{u.quantity.value} <= O({b})"
    return f"{u.quantity.value} <= {b}   ({kind})"


def _claim_text(record: SpecRecord) -> list[str]:
    c = record.privacy
    if c is None:
        return []
    lines = ["Privacy:"]
    parts = [c.model.value, f"neighbouring = {c.neighbouring.value}"]
    if c.epsilon is not None:
        parts.append(f"eps = {sp.sstr(c.epsilon)}")
    if c.delta is not None:
        parts.append(f"delta = {sp.sstr(c.delta)}")
    if c.rho is not None:
        parts.append(f"rho = {sp.sstr(c.rho)}")
    if c.rdp is not None:
        parts.append(f"RDP(alpha) = {sp.sstr(c.rdp)}")
    lines.append(_wrap("; ".join(parts)))
    lines.append(_wrap(c.statement))
    if c.accountant is not None:
        doc = (c.accountant.__doc__ or "").strip().splitlines()
        lines.append(_wrap(f"certificate: {c.accountant.__module__}.{c.accountant.__name__}"
                           + (f" - {doc[0]}" if doc else "")))
    if c.profile is not None:
        lines.append(_wrap(f"exact profile: {c.profile.__module__}.{c.profile.__name__}"))
    return lines


def calibration_source(calibration: Calibration) -> str:
    """``formula sigma`` or the dotted name of a calibration's function."""
    if calibration.formula is not None:
        return f"formula {calibration.formula}"
    fn = calibration.function
    return f"{fn.__module__}.{fn.__qualname__}"


def _calibration_text(record: SpecRecord) -> list[str]:
    found = record.calibrations()
    if not found:
        return []
    lines = ["Calibrations (dperm calibrate; the first is the default):"]
    for c in found:
        lines.append(_wrap(f"{c.name}: {c.parameter} by {calibration_source(c)} -- {c.statement}"))
    return lines


def to_text(record: SpecRecord) -> str:
    """A readable, complete rendering of one record."""
    out = [f"{record.id} - {record.title}", "=" * min(_WIDTH, len(record.id) + 3 + len(record.title))]
    out.append(_wrap(record.summary, ""))
    out.append("")
    out.append(f"Citation: {record.citation}")
    out.append(_wrap(record.citation.reference))
    conv = record.conventions
    out.append(f"Conventions: loss = {conv.loss.value}; neighbouring = {conv.neighbouring.value}")
    for note in conv.notes:
        out.append(_wrap(note))
    if record.symbols:
        out.append("Symbols:")
        for s in record.symbols:
            out.append(_wrap(f"{sp.sstr(s.symbol):<8} {s.name:<20} {s.meaning}"))
    if record.assumptions:
        out.append("Assumptions:")
        for a in record.assumptions:
            out.append(_wrap(f"[{a.name}] {sp.sstr(a.relation)}  -- {a.statement}"))
    if record.formulas:
        out.append("Formulas:")
        for f in record.formulas:
            out.append(_wrap(f"{f.name} = {sp.sstr(f.expr)}   [{f.meaning}; rounded {f.rounding.value}]"))
    out.extend(_claim_text(record))
    out.extend(_calibration_text(record))
    if record.utility:
        out.append("Utility:")
        for i, u in enumerate(record.utility):
            out.append(_wrap(_bound_text(u)))
            out.append(_wrap(u.statement, "    "))
            if u.rates:
                exps = record.exponents(i)
                out.append(_wrap("rate exponents: " + ", ".join(f"{k}: {v}" for k, v in exps.items()), "    "))
    if record.flags:
        out.append("Flags:")
        for fl in record.flags:
            out.append(_wrap(f"[{fl.kind.value}] {fl.summary}"))
            out.append(_wrap(fl.reason, "    "))
            if fl.checked_by:
                out.append(_wrap(f"checked by: {', '.join(fl.checked_by)}", "    "))
    if record.notes:
        out.append("Notes:")
        for n in record.notes:
            out.append(_wrap(n))
    return "\n".join(out)


def _tex_escape(text: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(repl.get(ch, ch) for ch in text)


def _name_latex(record: SpecRecord, name: str) -> str:
    """Math-mode LaTeX for a formula's name.

    A name the record declares as a symbol is rendered as that symbol (``scale`` -> ``b``). Otherwise
    a name whose first ``_``-separated part is a single letter or a Greek letter is rendered
    by sympy with the rest as an upright subscript (``epsilon_total`` -> ``\\epsilon_{\\mathrm{total}}``);
    any other name is one upright word (``rdp_composed`` -> ``\\mathrm{rdp\\_composed}``), since
    italic letters in math mode would read as a product of variables.
    """
    declared = {s.name: s.symbol for s in record.symbols}
    if name in declared:
        return sp.latex(declared[name])
    base, _, rest = name.partition("_")
    base_tex = sp.latex(sp.Symbol(base))
    if len(base) == 1 or base_tex.startswith("\\"):
        return base_tex + (rf"_{{\mathrm{{{_tex_escape(rest)}}}}}" if rest else "")
    return rf"\mathrm{{{_tex_escape(name)}}}"


def formula_latex(record: SpecRecord, name: str) -> str:
    """``name = expression`` of one of the record's formulas, in math-mode LaTeX."""
    return f"{_name_latex(record, name)} = {sp.latex(record.formula(name).expr)}"


def to_latex(record: SpecRecord) -> str:
    """A LaTeX fragment (a ``description`` environment) for one record."""
    e = _tex_escape
    out = [rf"\paragraph{{{e(record.id)}: {e(record.title)}}} {e(record.summary)}",
           r"\begin{description}",
           rf"\item[Citation] {e(str(record.citation))}. {e(record.citation.reference)}.",
           rf"\item[Conventions] loss = {e(record.conventions.loss.value)}, "
           rf"neighbouring = {e(record.conventions.neighbouring.value)}."]
    if record.symbols:
        syms = ", ".join(rf"${sp.latex(s.symbol)}$ = \texttt{{{e(s.name)}}} ({e(s.meaning)})"
                         for s in record.symbols)
        out.append(rf"\item[Symbols] {syms}.")
    for a in record.assumptions:
        out.append(rf"\item[Assumption {e(a.name)}] ${sp.latex(a.relation)}$ ({e(a.statement)}).")
    for f in record.formulas:
        out.append(rf"\item[Calibration] ${_name_latex(record, f.name)} = {sp.latex(f.expr)}$ ({e(f.meaning)}; "
                   rf"rounded {e(f.rounding.value)}).")
    c = record.privacy
    if c is not None:
        parts = [e(c.model.value), "neighbouring " + e(c.neighbouring.value)]
        if c.epsilon is not None:
            parts.append(rf"$\varepsilon = {sp.latex(c.epsilon)}$")
        if c.delta is not None:
            parts.append(rf"$\delta = {sp.latex(c.delta)}$")
        if c.rho is not None:
            parts.append(rf"$\rho = {sp.latex(c.rho)}$")
        if c.rdp is not None:
            parts.append(rf"$R(\alpha) = {sp.latex(c.rdp)}$")
        out.append(rf"\item[Privacy] {'; '.join(parts)}. {e(c.statement)}")
    for i, u in enumerate(record.utility):
        rel = r"\ge" if u.kind.value == "Omega(.)" else r"\le"
        wrap = {"O(.)": r"O\left(", "Omega(.)": r"\Omega\left("}.get(u.kind.value, "")
        close = r"\right)" if wrap else ""
        line = rf"\item[Utility] {e(u.quantity.value)} ${rel} {wrap}{sp.latex(u.bound)}{close}$. {e(u.statement)}"
        if u.rates:
            exps = record.exponents(i)
            line += " Rate exponents: " + ", ".join(rf"{e(k)}: ${sp.latex(v)}$" for k, v in exps.items()) + "."
        out.append(line)
    for fl in record.flags:
        out.append(rf"\item[Flag ({e(fl.kind.value)})] {e(fl.summary)} {e(fl.reason)}")
    out.append(r"\end{description}")
    return "\n".join(out)


def to_dict(record: SpecRecord) -> dict:
    """A JSON-serialisable view of a record (formulas as sympy strings and LaTeX)."""
    c = record.privacy
    privacy = None
    if c is not None:
        privacy = {
            "model": c.model.value,
            "neighbouring": c.neighbouring.value,
            "statement": c.statement,
            **{k: sp.sstr(getattr(c, k)) for k in ("epsilon", "delta", "rho", "rdp") if getattr(c, k) is not None},
            "accountant": f"{c.accountant.__module__}.{c.accountant.__name__}" if c.accountant else None,
            "profile": f"{c.profile.__module__}.{c.profile.__name__}" if c.profile else None,
        }
    utility = []
    for i, u in enumerate(record.utility):
        utility.append({
            "quantity": u.quantity.value,
            "kind": u.kind.value,
            "bound": sp.sstr(u.bound),
            "latex": sp.latex(u.bound),
            "statement": u.statement,
            "exponents": {k: str(v) for k, v in record.exponents(i).items()} if u.rates else {},
        })
    return {
        "id": record.id,
        "title": record.title,
        "summary": record.summary,
        "citation": {"paper": record.citation.paper, "item": record.citation.item,
                     "equations": list(record.citation.equations), "reference": record.citation.reference},
        "conventions": {"loss": record.conventions.loss.value,
                        "neighbouring": record.conventions.neighbouring.value,
                        "notes": list(record.conventions.notes)},
        "symbols": [{"name": s.name, "symbol": sp.sstr(s.symbol), "meaning": s.meaning} for s in record.symbols],
        "assumptions": [{"name": a.name, "relation": sp.sstr(a.relation), "statement": a.statement}
                        for a in record.assumptions],
        "formulas": [{"name": f.name, "expr": sp.sstr(f.expr), "latex": sp.latex(f.expr), "meaning": f.meaning,
                      "rounding": f.rounding.value} for f in record.formulas],
        "privacy": privacy,
        "calibrations": [{"name": k.name, "parameter": k.parameter, "source": calibration_source(k),
                          "statement": k.statement} for k in record.calibrations()],
        "utility": utility,
        "flags": [{"kind": fl.kind.value, "summary": fl.summary, "reason": fl.reason, "checked_by": list(fl.checked_by)}
                  for fl in record.flags],
        "notes": list(record.notes),
    }
