"""The ``dperm`` command line (``dperm spec``, ``dperm calibrate``, ``dperm epsilon``, ``dperm audit``)."""

__version__ = "0.1.0"
