"""``python -m dperm``: the command line (the installed ``dperm`` script runs the same main)."""

from dperm.cli import main

if __name__ == "__main__":  # importing the module (documentation tools do) runs nothing
    raise SystemExit(main())
