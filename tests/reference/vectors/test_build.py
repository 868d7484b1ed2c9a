"""reference.vectors.build: losses and domains from their JSON description, and back."""

from __future__ import annotations

import pytest

from reference import bst14, domains, losses
from reference.vectors.build import build_domain, build_loss, describe


@pytest.mark.parametrize("obj", [
    losses.Hinge(feature_norm=2.0),
    losses.HalfSquaredDistance(data_norm=1.0, domain_radius=3.0),
    losses.Huber(feature_norm=1.0, label_bound=2.0, width=0.5),
    domains.L2Ball(radius=1.5, dim=3),
    domains.L2Ball(radius=1.0, dim=2, center=[0.5, 0.0]),
    domains.Box(lower=[-1.0, 0.0], upper=[1.0, 2.0]),
    domains.Simplex(dim=4),
    bst14.QuadraticRejectionSampler(max_attempts=7),
], ids=repr)
def test_describe_rebuilds_the_object(obj):
    d = describe(obj)
    rebuilt = type(obj)(**d["parameters"])
    assert repr(rebuilt) == repr(obj)
    if isinstance(obj, losses.Loss):
        assert repr(build_loss({"name": d["name"], "bounds": d["parameters"]})) == repr(obj)
    elif isinstance(obj, domains.Domain):
        assert repr(build_domain(d)) == repr(obj)


def test_describe_omits_defaults_and_refuses_what_it_cannot_rebuild():
    assert describe(domains.L2Ball(radius=1.0, dim=2)) == {"name": "L2Ball", "parameters": {"radius": 1.0, "dim": 2}}
    assert describe(bst14.QuadraticRejectionSampler()) == {"name": "QuadraticRejectionSampler", "parameters": {}}
    with pytest.raises(ValueError, match="positional"):
        describe(bst14.NetSampler([[1.0], [-1.0]]))
    with pytest.raises(ValueError, match="cannot be rebuilt"):
        describe(domains.Cube(half_width=1.0, dim=2))  # stores its half-width under another name


def test_build_rejects_unknown_names():
    with pytest.raises(ValueError, match="must be a class of reference.losses"):
        build_loss({"name": "os", "bounds": {}})
    with pytest.raises(ValueError, match="must be a class of reference.domains"):
        build_domain({"name": "Nope", "parameters": {}})
