"""dperm reference: the papers' algorithms, line for line, batched over independent runs.

Every random function takes keyword-only ``rng=`` (or ``noise=`` to record or replay a noise
tape); every noise scale, step size and iteration count comes from a :mod:`spec` record.
"""

from __future__ import annotations

from reference.rng import as_generator
from reference.tape import Fresh, NoiseSource, NoiseTape, Recorder, Replay, noise_source

__all__ = ["as_generator", "NoiseSource", "NoiseTape", "Fresh", "Recorder", "Replay", "noise_source"]
