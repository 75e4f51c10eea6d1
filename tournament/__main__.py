"""`python -m tournament` is the `tournament` command."""

from tournament.cli import main

main()
