"""The `tournament` command. Its subcommands (run, status, leaderboard, report, replay,
validate) are built by the tournament issue on top of the engine's game runner."""

from __future__ import annotations

import click

from pacman import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tournament")
def main() -> None:
    """Run Pacman tournaments (subcommands arrive with the tournament issue)."""
