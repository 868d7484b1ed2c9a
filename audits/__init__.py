"""dperm audits: privacy and utility audits with stated error rates.

``pytest audits`` runs the audit suite; the harness is importable for your own mechanisms.
"""

from __future__ import annotations
