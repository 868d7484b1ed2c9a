"""Planted-bug twins: each correct mechanism's audit must flag its twins.

A twin is the reference with one privacy bug planted (noise too small, a sensitivity off by a
factor, noise reused, a budget not split, ...), built from the reference itself so that nothing
else changes; each twin's violation is shown to be real by an exact or numerical calculation in
the tests. They are importable, so an auditor can measure an audit's power on them.

Modules: :mod:`audits.twins.primitives` (the primitive mechanisms of :mod:`reference.mechanisms`)
and :mod:`audits.twins.bst14` (bst14's Algorithms 1-4 and the grid walk).
"""
