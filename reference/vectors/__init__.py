"""Known-answer vectors (JSON) of the reference algorithms; see ``generate.py`` and ``schema.json``."""
