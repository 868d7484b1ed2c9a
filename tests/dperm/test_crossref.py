"""Cross-references read from source files (dperm/crossref.py), on small synthetic trees."""

from __future__ import annotations

import textwrap

from dperm import crossref


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_docstring_sections_numpydoc():
    doc = textwrap.dedent("""\
        Summary.

        Parameters
        ----------
        x : float

        Privacy
        -------
        ``gaussian.analytic``, composed.

        Utility
        -------
        ``bst14.thm_II_4`` (expected risk).
        """)
    assert crossref.docstring_sections(doc) == {"Privacy": "``gaussian.analytic``, composed.",
                                                "Utility": "``bst14.thm_II_4`` (expected risk)."}
    assert crossref.docstring_sections("Privacy\nis mentioned in prose only.") == {}
    assert crossref.docstring_sections(doc, headings=("Parameters",)) == {"Parameters": "x : float"}


def test_id_candidates_and_record_ids():
    heads = {"gaussian", "bst14", "zcdp"}
    text = ("``gaussian.analytic`` per step, bst14.thm_II_1; not spec.gaussian.analytic_sigma, "
            "not zcdp.gaussian_calibration.x, e.g. fine, and ``renamed.record`` is dangling")
    assert crossref.id_candidates(text, heads) == {"gaussian.analytic", "bst14.thm_II_1", "renamed.record"}
    ids = ["gaussian.analytic", "bst14.thm_II_1", "zcdp.gaussian"]
    assert crossref.record_ids("zcdp.gaussian_calibration and zcdp.gaussian.", ids) == {"zcdp.gaussian"}


def test_documented_skips_test_files_and_names_objects(tmp_path):
    _write(tmp_path, "reference/mech.py", '''\
        """Module.

        Privacy
        -------
        ``laplace.mechanism``.
        """


        def f():
            """F.

            Utility
            -------
            ``bst14.thm_II_4``.
            """


        class C:
            def m(self):
                """M.

                Privacy
                -------
                ``gaussian.analytic``.
                """
        ''')
    _write(tmp_path, "reference/test_mech.py", '''\
        def test_x():
            """T.

            Privacy
            -------
            ``nothing.here``.
            """
        ''')
    found = {(s.qualname, s.heading, s.text) for s in crossref.documented(tmp_path, folders=("reference",))}
    assert found == {("reference.mech", "Privacy", "``laplace.mechanism``."),
                     ("reference.mech.f", "Utility", "``bst14.thm_II_4``."),
                     ("reference.mech.C.m", "Privacy", "``gaussian.analytic``.")}


def test_algorithm_tags_collect_labels_per_function(tmp_path):
    _write(tmp_path, "reference/paper/algs.py", '''\
        def run(x):
            # [zz17 Alg.2 L1] first line
            y = x
            # [zz17 Alg.2 L3-4] a range
            return y


        class Sampler:
            def sample(self):
                # [zz17 Alg.2 L2] inside a method
                return 0


        # [zz17 Alg.1 L1] at module level
        ''')
    tags = crossref.algorithm_tags(tmp_path)
    assert {(m.qualname, m.detail) for m in tags["zz17.alg_2"]} == {
        ("reference.paper.algs.run", "L1, L3, L4"), ("reference.paper.algs.Sampler.sample", "L2")}
    assert [(m.qualname, m.detail, m.path) for m in tags["zz17.alg_1"]] == [
        ("reference.paper.algs", "L1", "reference/paper/algs.py")]


def test_audit_mentions_anywhere_under_audits(tmp_path):
    _write(tmp_path, "audits/zz17/test_privacy.py", '''\
        """Audits of ``zcdp.gaussian`` (module docstring)."""

        RECORD = "zcdp.gaussian"


        def test_one():
            assert "zcdp.gaussian_calibration"  # another record, whose id extends the first


        class TestGroup:
            def test_two(self):
                return "zcdp.gaussian"
        ''')
    _write(tmp_path, "audits/harness.py", '"""zcdp.gaussian in the harness, not in the suite."""\n')
    found = crossref.audit_mentions(tmp_path, ["zcdp.gaussian", "zcdp.gaussian_calibration"])
    assert [(m.path, m.qualname, m.detail) for m in found["zcdp.gaussian"]] == [
        ("audits/zz17/test_privacy.py", None, "module docstring"),
        ("audits/zz17/test_privacy.py", None, "module level"),
        ("audits/zz17/test_privacy.py", "TestGroup.test_two", ""),
    ]
    assert [m.qualname for m in found["zcdp.gaussian_calibration"]] == ["test_one"]


def test_the_repository_scan_finds_known_links():
    root = crossref.repository_root()
    tags = crossref.algorithm_tags(root)
    assert {"bst14.alg_1", "bst14.alg_2", "bst14.alg_3", "bst14.alg_4"} <= set(tags)
    assert all(m.detail for mentions in tags.values() for m in mentions)
