"""`python -m local`: the functions on the local stand-ins (local/cli.py)."""

from local.cli import main

main(prog_name="python -m local")
