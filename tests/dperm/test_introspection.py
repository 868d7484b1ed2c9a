"""dperm/introspection.py: an algorithm's parameters from its signature, docstring and the vocabulary;
losses, domains and samplers built by class name."""

from __future__ import annotations

import inspect

import pytest

from dperm import introspection as I
from reference import bst14, domains, losses
from reference.algorithms import boxes
from spec.errors import ParameterError
from spec.vocabulary import VOCABULARY


@pytest.mark.parametrize("record_id", list(boxes()))
def test_parameters_cover_every_option_of_every_box(record_id):
    """Whatever paper: every keyword of configure but the setting (loss, domain, regulariser, n,
    dimension, allow_unproven) is an option, required exactly when it has no default, canonical
    exactly when the vocabulary has it."""
    from dperm.run import SETTING

    configure = boxes()[record_id].configure
    signature = inspect.signature(configure)
    names = [p.name for p in signature.parameters.values() if p.name not in I.RESERVED + SETTING]
    params = I.parameters(configure, skip=SETTING)
    assert [p.name for p in params] == names
    for p in params:
        sig = signature.parameters[p.name]
        assert p.required == (sig.default is inspect.Parameter.empty)
        assert p.canonical == (p.name in VOCABULARY)
        assert p.integer == bool(p.canonical and VOCABULARY[p.name].integer)
        assert p.option == "--" + p.name.replace("_", "-")


def test_meanings_and_choices_come_from_the_docstring():
    params = {p.name: p for p in I.parameters(bst14.NoiseGD.configure)}
    assert params["schedule"].choices == ("lipschitz", "strongly_convex")
    assert params["schedule"].meaning == ("Learning rate of Theorem II.4 (1) or (2); \"strongly_convex\" needs the "
                                          "loss's declared strong_convexity > 0 (Delta, per example).")
    assert params["calibration"].meaning.startswith("How sigma is calibrated (spec.bst14.noise_gd_sigma)")  # markup
    assert params["calibration"].default == "printed" and not params["calibration"].required
    # the whole description, not its first sentence: "(e.g." does not end it
    wang19 = {p.name: p for p in I.parameters(__import__("reference.wang19", fromlist=["x"]).ProximalGradient.configure)}
    assert wang19["regulariser"].meaning.endswith("None for r = 0.")
    # the old functions' signatures are read the same way (the data is not a parameter)
    assert [p.name for p in I.parameters(bst14.noise_gd)] == ["epsilon", "delta", "schedule", "theta_1", "calibration"]


def test_docstring_sections_without_parameters():
    def f(data, *, epsilon, mystery=3):
        """No sections."""

    assert [(p.name, p.meaning) for p in I.parameters(f)] == [("epsilon", VOCABULARY["epsilon"].meaning),
                                                               ("mystery", "")]


def test_loose_values():
    assert I.loose_value("lipschitz") == "lipschitz"
    assert I.loose_value("[[0.5, 0.5]]") == [[0.5, 0.5]]
    assert I.loose_value("1e-5") == 1e-5 and I.loose_value("true") is True


def test_build_named():
    assert repr(I.build_named("--loss", {"name": "Hinge", "bounds": {"feature_norm": 1}}, I.loss_classes(),
                              key="bounds")) == "Hinge(feature_norm=1.0)"
    assert isinstance(I.build_named("--sampler", "QuadraticRejectionSampler", I.paper_classes("bst14.alg_4")),
                      bst14.QuadraticRejectionSampler)
    regularised = I.build_named(
        "--loss", {"name": "Regularised", "bounds": {
            "loss": {"name": "Hinge", "bounds": {"feature_norm": 1.0}},
            "regulariser": {"name": "L2Regulariser", "bounds": {"strength": 0.1}}, "domain_radius": 1.0}},
        I.loss_classes(), key="bounds")
    assert isinstance(regularised, losses.Regularised)
    assert "Intersection" not in I.domain_classes() and "L2Ball" in I.domain_classes()
    assert "LossConstants" not in I.loss_classes() and "Loss" not in I.loss_classes()
    assert I.domain_classes()["Box"] is domains.Box


@pytest.mark.parametrize("spec, message", [
    ({"name": "Hingee", "bounds": {}}, "--loss (Hingee) must be one of Cauchy, HalfSquaredDistance, HeavyTailedHalfSquaredDistance,"),
    ({"name": "Hinge", "bounds": {"feature_nrm": 1}}, "--loss Hinge: unknown keyword feature_nrm; it takes feature_norm"),
    ({"name": "Hinge", "bounds": {}}, "--loss Hinge: missing feature_norm; it takes feature_norm"),
    ({"name": "Hinge", "bound": {}}, "--loss (Hinge): unknown key 'bound'; it has 'name' and 'bounds'"),
    (7, "--loss (7) must be a class name"),
])
def test_build_named_errors_name_the_option(spec, message):
    with pytest.raises(ParameterError) as info:
        I.build_named("--loss", spec, I.loss_classes(), key="bounds")
    assert message in str(info.value)


def test_the_source_reading_gives_what_the_import_gives():
    """dperm run --list and ALGORITHM --help read the boxes from the source (no paper imported): the
    same ids, classes and options as the imported configure signatures, and the same vocabulary."""
    from dperm.run import SETTING

    static = I.static_boxes()
    assert list(static) == list(boxes())
    for record_id, cls in boxes().items():
        assert (static[record_id].module, static[record_id].name) == (cls.__module__, cls.__name__)
        assert I.static_parameters(record_id, skip=SETTING) == I.parameters(cls.configure, skip=SETTING)
    assert I.static_vocabulary() == {name: (t.meaning, t.integer) for name, t in VOCABULARY.items()}


def test_help_imports_no_paper():
    import subprocess
    import sys

    code = ("import sys\nfrom dperm.cli import main\ntry:\n    main(['run', 'bst14.alg_1', '--help'])\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m.startswith(('spec', 'reference'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
