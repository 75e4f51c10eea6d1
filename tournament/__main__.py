"""`python -m tournament` is the `tournament` command.

One difference, CPython's and not ours: in module mode, a command stopped by Ctrl-C or SIGTERM
that says `stopped` and exits 130 may instead end killed by SIGINT (which a shell also shows
as 130) if the KeyboardInterrupt had left code run by `exec()` from a string on its way, as
the methods namedtuple and dataclass build are. The `tournament` console script, which runs in
file mode, always exits 130; the tests run it (tests/commands.py)."""

from tournament.cli import main

main()
