"""The audit report: ``report.md`` for people, ``report.json`` for machines, PNG plots optionally.

A :class:`Report` collects the results recorded by audit tests (privacy, rate and level audits;
anything with ``to_dict()`` and a one-line ``str``), each test's outcome, role and spec ids, and
the run's settings (tier, seed, family-wise alpha and its split). :meth:`Report.write` writes

* ``report.json``: settings, the verdict counts, and one entry per test (``nodeid``, ``marker``,
  ``spec``, ``outcome``, ``results``), sorted by file and line -- a deterministic function of the
  seed and the code, byte for byte the same for a serial and a parallel (``-n 2``) run;
* ``timings.json``: the durations (which differ from run to run, so they live apart);
* ``report.md``: the verdicts -- correct-mechanism audits (their failures would be false alarms,
  counted in the family-wise budget) apart from planted twins (which pass by being flagged) --,
  the budget split, an overview by algorithm (spec ids, eps_lower/eps, slopes against the
  theorem's exponents with their intervals), a legend, and the plots;
* plots (:mod:`audits.plots`: privacy regions of profile audits, log-log fits of rate audits,
  one line per method of a comparison, :mod:`audits.comparison`, whose table is also written into
  ``report.md``) when matplotlib is importable (the optional ``report`` extra); otherwise the
  report says so.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from audits import plots as _plots
from spec.jsonable import restore

__all__ = ["Report", "matplotlib_available", "LEGEND"]

#: What the numbers of the overview mean (printed under "Legend" in report.md).
LEGEND = (
    ("role", "*correct*: a correct mechanism (`@pytest.mark.audit`): a refuted claim or failed rate would be "
             "a false alarm, counted in the family-wise budget. *twin*: the same audit on a planted bug "
             "(`@pytest.mark.planted`): it must be flagged (REFUTED, FAILED) and passes by being flagged."),
    ("estimate", "the empirical epsilon of the selected event on the audit's runs: a point estimate, which may "
                 "exceed the claim by chance."),
    ("lower bound (eps_lower)", "a lower confidence bound on the mechanism's epsilon at level 1 - alpha "
                                "(Clopper-Pearson on held-out runs); the claim is refuted only when it exceeds "
                                "the claimed epsilon."),
    ("eps_lower/eps", "lower bound over claimed epsilon: above 1 refutes the claim; close to 1 means the audit "
                      "is tight (it would catch a small overclaim)."),
    ("profile scale (margin)", "profile mode: how close the claim came, the largest multiple of the declared "
                               "profile's allowance (on the probit scale; for a Gaussian claim, the noise ratio "
                               "sigma/sigma') that the confidence corners of the empirical trade-off refute; "
                               "> 1 (margin > 0) refutes the profile, 0.95 means it held within 5%."),
    ("refuted by", "privacy audits of floating-point outputs run two families of tests on the same runs: "
                   "the *values* and the *low bits* (the floating-point leak; alpha split 4:1). The verdict "
                   "names each family that refutes; 'low bits only' means the real-valued mechanism is not "
                   "refuted and the floating-point implementation leaks."),
    ("one run", "a one-run audit (`audits.one_run`): canaries in or out by fair coins, one training run at the "
                "stated n, the SNJ23 bound on correct guesses per score family (and the Gaussian test where its "
                "model is exact); its compute is one run, beside the multi-run audits' runs/dataset."),
    ("slope [interval] vs exponent", "rate audits: the least-squares slope of log(measured) on log(axis) with "
                                     "its bootstrap interval at the audit's level, against the exponent the "
                                     "spec record's bound predicts (record.exponents); the verdict tests the "
                                     "slope of measured/bound against the tolerance. The intervals (and the "
                                     "level limits) are approximate: their miss rates are measured in "
                                     "docs/audit-evidence.md, not guaranteed."),
    ("level", "measured / reference at every grid point with one-sided limits, against a band."),
)


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported (plots are optional)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _num(v) -> float:
    """A number of a result dict (restored: :func:`spec.jsonable.restore`)."""
    return float(v)


def _g(v, digits: int = 3) -> str:
    x = _num(v)
    return "inf" if x == math.inf else f"{x:.{digits}g}"


@dataclass
class _Entry:
    nodeid: str
    marker: str | None = None
    spec: list = field(default_factory=list)
    location: tuple = ("", 0)
    results: list = field(default_factory=list)  # result dicts (to_dict())
    outcome: str | None = None
    duration: float = 0.0

    def sort_key(self):
        return (self.location[0] or self.nodeid.partition("::")[0], self.location[1], self.nodeid)


class Report:
    """Results of one ``pytest audits`` run.

    Parameters
    ----------
    seed : int
        The run's global seed.
    tier : str
        ``smoke``, ``standard`` or ``deep``.
    family_alpha : float
        Family-wise false-alarm rate the run is held to.
    split : list of dict
        The budget split (:mod:`audits.budget`): per share its fraction, alpha, slots, collected
        audits and twins, and the per-audit alpha.
    audits, planted : int
        Number of collected tests marked ``audit`` and ``planted``.
    factor : float
        The tier's bug size (noise multiplier the run counts are designed to detect).
    power : float
        Target power of the run counts.
    """

    def __init__(self, *, seed: int, tier: str, family_alpha: float, split: list | None = None,
                 audits: int = 0, planted: int = 0, factor: float | None = None,
                 power: float | None = None):
        self.seed = seed
        self.tier = tier
        self.family_alpha = family_alpha
        self.split = list(split or [])
        self.audits = audits
        self.planted = planted
        self.factor = factor
        self.power = power
        self._entries: dict[str, _Entry] = {}

    def _entry(self, nodeid: str, marker: str | None = None) -> _Entry:
        if nodeid not in self._entries:
            self._entries[nodeid] = _Entry(nodeid, marker)
        elif marker and not self._entries[nodeid].marker:
            self._entries[nodeid].marker = marker
        return self._entries[nodeid]

    def note(self, nodeid: str, *, marker: str | None = None, spec=(), location=None) -> None:
        """Record a test's role (``marker``), the spec ids it audits and its ``(path, line)``."""
        e = self._entry(nodeid, marker)
        for record_id in spec:
            if record_id not in e.spec:
                e.spec.append(record_id)
        if location is not None:
            e.location = (str(location[0]), int(location[1] or 0))

    def add(self, nodeid: str, result, *, marker: str | None = None) -> None:
        """Record a result (an object with ``to_dict()``, or its dict) for test ``nodeid``."""
        if isinstance(result, dict):
            d = result
        elif hasattr(result, "to_dict"):
            d = result.to_dict()
        else:
            raise TypeError(f"result ({type(result).__name__}) must have a to_dict() method")
        self._entry(nodeid, marker).results.append(d)

    def outcome(self, nodeid: str, outcome: str, duration: float = 0.0, *, marker: str | None = None) -> None:
        """Set the pytest outcome of a test (and add its duration)."""
        e = self._entry(nodeid, marker)
        e.outcome = outcome
        e.duration += float(duration)

    def results(self, nodeid: str) -> list[dict]:
        e = self._entries.get(nodeid)
        return list(e.results) if e else []

    @property
    def entries(self) -> list[_Entry]:
        """The entries sorted by file, line and node id (the same for serial and parallel runs)."""
        return sorted(self._entries.values(), key=_Entry.sort_key)

    def command(self) -> str:
        return f"pytest audits --audit-tier={self.tier} --audit-seed={self.seed}"

    # ---------------------------------------------------------------------------------- verdicts

    def verdicts(self) -> dict:
        """Counts by role: correct-mechanism audits (passed / failed / other) and planted twins
        (flagged / missed / other), with the node ids of failures and misses."""
        out = {"correct": {"total": 0, "passed": 0, "failed": [], "other": []},
               "planted": {"total": 0, "flagged": 0, "missed": [], "other": []},
               "unmarked_with_results": 0}
        # marker -> (group, what a passing test counts as, what a failing one is listed as)
        roles = {"audit": ("correct", "passed", "failed"), "planted": ("planted", "flagged", "missed")}
        for e in self.entries:
            if e.marker in roles:
                group, good, bad = roles[e.marker]
                v = out[group]
                v["total"] += 1
                if e.outcome == "passed":
                    v[good] += 1
                elif e.outcome == "failed":
                    v[bad].append(e.nodeid)
                else:
                    v["other"].append(f"{e.nodeid} ({e.outcome or 'not run'})")
            elif e.results:
                out["unmarked_with_results"] += 1
        return out

    def summary_lines(self) -> list[str]:
        """The verdict lines of the console summary and of report.md."""
        v = self.verdicts()
        c, p = v["correct"], v["planted"]
        lines = [
            f"correct-mechanism audits: {c['passed']} of {c['total']} passed"
            + (f", {len(c['failed'])} FAILED (a false alarm or a bug: {', '.join(c['failed'])})" if c["failed"] else "")
            + (f", {len(c['other'])} not run ({', '.join(c['other'])})" if c["other"] else "")
            + f"; they count toward the family-wise false-alarm rate <= {self.family_alpha:g}",
            f"planted twins: {p['flagged']} of {p['total']} flagged, as they must be"
            + (f", {len(p['missed'])} MISSED ({', '.join(p['missed'])})" if p["missed"] else "")
            + (f", {len(p['other'])} not run ({', '.join(p['other'])})" if p["other"] else "")
            + " (a twin passes by being flagged: its REFUTED/FAILED results are expected)",
        ]
        if v["unmarked_with_results"]:
            lines.append(f"{v['unmarked_with_results']} unmarked tests recorded results (neither audit nor planted)")
        return lines

    def to_dict(self, *, plots: list[str] | None = None, plots_note: str | None = None) -> dict:
        entries = [{"nodeid": e.nodeid, "marker": e.marker, "spec": list(e.spec), "outcome": e.outcome,
                    "results": list(e.results)} for e in self.entries]
        return {
            "seed": self.seed,
            "tier": self.tier,
            "family_alpha": self.family_alpha,
            "budget_split": self.split,
            "audits": self.audits,
            "planted": self.planted,
            "verdicts": self.verdicts(),
            "bug_factor": self.factor,
            "power": self.power,
            "reproduce": self.command(),
            "entries": entries,
            "plots": plots or [],
            "plots_note": plots_note,
        }

    def timings(self) -> dict:
        return {e.nodeid: round(e.duration, 6) for e in self.entries}

    # ----------------------------------------------------------------------------------- writing

    def write(self, directory) -> dict[str, Path]:
        """Write ``report.json``, ``report.md``, ``timings.json`` and (if possible) plots into ``directory``."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        data = self.to_dict()
        figures = _plots.figures(data["entries"])
        written: list[dict] = []
        if not figures:
            note = "no plots (no profile-mode privacy result, no rate result and no comparison)"
        elif matplotlib_available():
            note = None
            hashes: dict[str, str] = {}
            for fig in figures:
                path = out / fig["file"]
                _plots.draw(fig, path)
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                if digest in hashes:  # identical pixels after all: keep one file
                    path.unlink()
                    continue
                hashes[digest] = fig["file"]
                written.append(fig)
        else:
            note = "matplotlib is not installed (optional 'report' extra): plots skipped"
        data = self.to_dict(plots=[f["file"] for f in written], plots_note=note)
        paths = {"json": out / "report.json", "md": out / "report.md", "timings": out / "timings.json"}
        paths["json"].write_text(json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n")
        paths["timings"].write_text(json.dumps(self.timings(), indent=2, sort_keys=True) + "\n")
        paths["md"].write_text(self.markdown(data, written))
        return paths

    # ---------------------------------------------------------------------------------- markdown

    def markdown(self, data: dict | None = None, figures: list[dict] | None = None) -> str:
        """``report.md`` (``figures``: the plots written, from :func:`audits.plots.figures`)."""
        data = self.to_dict() if data is None else data
        entries = _restored(data["entries"])
        figures = figures or []
        settings = (f"tier **{self.tier}**"
                    + (f" (run counts sized to flag noise x{self.factor:g} at power {self.power:g})"
                       if self.factor is not None and self.power is not None else ""))
        lines = [
            "# dperm audit report",
            "",
            f"Seed **{self.seed}**, {settings}. Reproduce with `{self.command()}`.",
            "",
            "## Verdicts",
            "",
            *[f"* {line}" for line in self.summary_lines()],
            "",
            f"A whole run raises a false alarm with probability at most **{self.family_alpha:g}** over the "
            f"{self.audits} correct-mechanism audits collected (Bonferroni), split into fixed shares and slots "
            "(`audits.budget`); the planted twins run at their share's per-audit alpha:",
            "",
            "| share | fraction of the budget | share alpha | slots | audits | planted twins | alpha per audit |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *[f"| {r['share']} | {r['fraction']} | {r['share_alpha']:.4g} | {r['slots']} | {r['audits']} | "
              f"{r['planted']} | {r['per_audit_alpha']:.4g} |" for r in self.split],
            "",
            "## Overview by algorithm",
            "",
            "One row per recorded result; the spec ids come from the tests' `@pytest.mark.spec(...)` "
            "markers (see the legend below).",
            "",
        ]
        lines += _overview(entries)
        lines += _comparisons(entries)
        lines += ["## Legend", ""]
        lines += [f"* **{term}**: {meaning}" for term, meaning in LEGEND]
        lines += ["", "## Plots", ""]
        if figures:
            lines += ["Privacy regions: x is P[M(D') in S] (the neighbour), y is P[M(D) in S] (the data set), "
                      "the shaded side is what the claim forbids; blue points estimate the event probabilities, "
                      "red points are their confidence corners (a red point in the shaded side refutes). Rate "
                      "plots: measured means with confidence bars, the fitted slope and the theorem's exponent.",
                      ""]
            for fig in figures:
                title = fig["title"].replace("\n", " ")
                also = f" (same figure: {'; '.join(fig['same_as'])})" if fig.get("same_as") else ""
                lines += [f"### {title}{also}", "", f"![{title}]({fig['file']})", ""]
        else:
            lines += [data["plots_note"] or "no plots", ""]
        lines += ["Durations are in `timings.json`.", ""]
        return "\n".join(lines)


def _restored(entries: list[dict]) -> list[dict]:
    """The entries with their results' non-finite numbers back (they are null in the JSON)."""
    return [dict(e, results=[restore(r) for r in e["results"]]) for e in entries]


_ALGORITHM = re.compile(r"^[a-z0-9]+\.alg_\d+$")


def _group(entry: dict) -> str:
    """An entry's overview group: its algorithm record id, else its first spec id."""
    ids = entry.get("spec") or []
    for record_id in ids:
        if _ALGORITHM.match(record_id):
            return record_id
    return ids[0] if ids else ""


def _record_title(record_id: str) -> str:
    try:
        import spec

        record = spec.get(record_id)
    except (ImportError, KeyError):
        return ""
    return str(record.citation)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _describe(d: dict) -> tuple[str, str, str]:
    """(kind, numbers, verdict) of one result dict."""
    kind = d.get("result_type")
    if kind == "privacy":
        eps, lower = _num(d["epsilon"]), _num(d["epsilon_lower"])
        mode = "profile" if d.get("mode") == "profile" else "point"
        ratio = "-" if eps == 0 else f"{lower / eps:.2f}"
        families = d.get("families") or {}
        bits = families.get("low_bits", {})
        scale = d.get("profile_scale")
        numbers = (f"eps_lower/eps = {_g(lower)}/{eps:g} = {ratio}; estimate {_g(d['epsilon_estimate'])}"
                   + (f"; values eps_lower {_g(families['values']['epsilon_lower'])}, low bits eps_lower "
                      f"{_g(bits['epsilon_lower'])}" if bits.get("status") == "tested" else "")
                   + (f"; profile scale {_g(scale)} (margin {_num(d['profile_margin']):+.2g})" if scale is not None
                      else f"; profile margin {_num(d['profile_margin']):+.2g}" if d.get("profile_margin") is not None
                      else "")
                   + f"; {d['runs']} runs/dataset at alpha {_num(d['alpha']):.3g}")
        what = f"privacy, {mode} mode, ({eps:g}, {_num(d['delta']):g})-DP: {d.get('statistic') or 'output'}"
        refuted = d.get("refuted_by") or []
        verdict = ("not refuted" if not d.get("violated") else
                   "REFUTED (low bits only)" if list(refuted) == ["low_bits"] else
                   "REFUTED (values and low bits)" if len(refuted) == 2 else "REFUTED")
        return what, numbers, verdict
    if kind == "one_run":  # audits.one_run: one training run with canaries
        eps, lower = _num(d["epsilon"]), _num(d["epsilon_lower"])
        families = {}
        for t in d.get("tests") or []:
            families[t["family"]] = max(families.get(t["family"], 0.0), _num(t["epsilon_lower"]))
        numbers = (f"eps_lower/eps = {_g(lower)}/{eps:g} = {lower / eps:.2f} ("
                   + ", ".join(f"{k} {_g(v)}" for k, v in families.items())
                   + f"); 1 run, n = {d['records']}, {d['canaries']} canaries, {_num(d['seconds']):.3g} s, "
                   f"alpha {_num(d['alpha']):.3g}")
        what = f"privacy, one run, ({eps:g}, {_num(d['delta']):g})-DP: {d.get('design') or 'canaries'}"
        return what, numbers, "REFUTED" if d.get("violated") else "not refuted"
    if kind == "rate":
        parts = [f"{axis} {_num(d['slopes'][axis]):+.2f} [{_num(d['intervals'][axis][0]):+.2f}, "
                 f"{_num(d['intervals'][axis][1]):+.2f}] vs {_num(d['expected'][axis]):+g}" for axis in d["slopes"]]
        what = f"rate, {d.get('kind')} bound: {d.get('name') or ''}"
        verdict = "passed" if d.get("passed") else f"FAILED ({', '.join(d.get('failed_axes') or [])})"
        return what, "; ".join(parts) + f" (tolerance {d['tolerance']:g} on measured/bound; approximate intervals)", verdict
    if kind == "level":
        ratios = [_num(p["ratio"]) for p in d["points"]]
        band = f"[{_num(d['low']):.3g}, {_num(d['high']):.3g}]"
        what = f"level: measured / {d.get('reference_name') or 'reference'}"
        numbers = f"ratio {min(ratios):.3g} to {max(ratios):.3g} over {len(ratios)} points, band {band} (approximate limits)"
        return what, numbers, "passed" if d.get("passed") else "FAILED"
    if kind == "band":
        parts = [f"{axis} {_num(d['slopes'][axis]):+.2f} [{_num(d['intervals'][axis][0]):+.2f}, "
                 f"{_num(d['intervals'][axis][1]):+.2f}] in [{_num(d['bands'][axis][0]):+g}, "
                 f"{_num(d['bands'][axis][1]):+g}]: {d['verdicts'][axis]}" for axis in d["slopes"]]
        what = f"acceptance band: {d.get('name') or ''}"
        verdict = "REFUTED" if not d.get("passed") else ("confirmed" if d.get("confirmed") else "not refuted")
        return what, "; ".join(parts) + " (approximate intervals)", verdict
    if kind == "comparison" and "table" in d:  # audits.comparison
        what = f"comparison: {d['quantity']} against {d['axis']}"
        return what, "table under Comparisons", "passed" if d.get("passed") else "-"
    if kind == "comparison":  # a suite's own side-by-side record: its one-line summary
        return "comparison", d.get("summary", ""), "-"
    return str(kind), d.get("summary", ""), "-"


def _comparisons(entries: list[dict]) -> list[str]:
    """The tables of comparison results (:mod:`audits.comparison`), with the methods not run."""
    tables = [(e["nodeid"], r) for e in entries for r in e["results"] if r.get("result_type") == "comparison"]
    if not tables:
        return []
    lines = ["## Comparisons", ""]
    for nodeid, r in tables:
        if "table" not in r:
            lines += [f"`{_plots.short_name(nodeid)}`: {r.get('summary', '')}", ""]
            continue
        lines += [f"`{_plots.short_name(nodeid)}`: {r['quantity']} against {r['axis']} (means with "
                  f"{100 * (1 - r['alpha']):.6g}% intervals)", "", r["table"], ""]
        lines += [f"* {k} not run: {v}" for k, v in r.get("missing", {}).items()]
        lines += [f"* {note}" for note in r.get("notes", [])]
        lines.append("")
    return lines


def _overview(entries: list[dict]) -> list[str]:
    groups: dict[str, list[dict]] = {}
    for e in entries:
        if e["results"] or e["marker"]:
            groups.setdefault(_group(e), []).append(e)
    lines = []
    for name in sorted(groups, key=lambda g: (g == "", g)):
        members = groups[name]
        ids = []
        for e in members:
            ids += [i for i in e.get("spec") or [] if i not in ids]
        if name:
            title = _record_title(name)
            lines += [f"### {name}" + (f" ({title})" if title else ""), "", f"spec ids: {', '.join(ids)}", ""]
        else:
            lines += ["### tests without a spec marker", ""]
        lines += ["| test | role | audit | numbers | verdict | test outcome |", "| --- | --- | --- | --- | --- | --- |"]
        for e in members:
            role = {"audit": "correct", "planted": "twin"}.get(e["marker"], "-")
            test = f"`{_plots.short_name(e['nodeid'])}`"
            if not e["results"]:
                lines.append(f"| {test} | {role} | - | no result recorded | - | {e['outcome'] or '-'} |")
            for d in e["results"]:
                what, numbers, verdict = _describe(d)
                flagged = verdict.startswith(("REFUTED", "FAILED"))
                if role == "twin" and flagged:
                    verdict += " (flagged, expected)"
                elif role == "correct" and flagged:
                    verdict += " (false alarm?)"
                lines.append(f"| {test} | {role} | {_cell(what)} | {_cell(numbers)} | {verdict} | "
                             f"{e['outcome'] or '-'} |")
        lines.append("")
    return lines
