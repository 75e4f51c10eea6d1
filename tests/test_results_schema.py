"""The results schema has one definition, `tournament.results.GameRow`'s annotated columns:
docs/results-schema.md is rendered from it and must not drift, every column carries its
meaning, and what the meanings claim of `moves` and `culprit` is what the engine does."""

from __future__ import annotations

import subprocess
import sys
from typing import Annotated, TypedDict

import pytest

from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from tests.conftest import ROOT
from tournament import results
from tournament.results import COLUMNS, MEANINGS, schema_markdown

DOC = ROOT / "docs" / "results-schema.md"


def test_the_documented_schema_is_the_rendered_one() -> None:
    assert DOC.read_text(encoding="utf-8") == schema_markdown(), (
        "docs/results-schema.md differs from tournament/results.py: run "
        "`python -m tournament.results > docs/results-schema.md`")


def test_the_module_prints_the_schema() -> None:
    printed = subprocess.run([sys.executable, "-m", "tournament.results"], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout
    assert printed == schema_markdown()


def test_every_column_has_its_meaning_and_its_row_in_the_document() -> None:
    assert list(MEANINGS) == [name for name, _ in COLUMNS]
    for name, kind in COLUMNS:
        assert f"| `{name}` | `{kind}` |" in schema_markdown()
    assert ("NULL" in MEANINGS["depth"] and "NULL" in MEANINGS["culprit"]
            and "seconds" in MEANINGS["wall_mean"] and "points" in MEANINGS["score"])


def test_a_column_without_its_meaning_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Row(TypedDict):
        documented: Annotated[int, "a number"]
        bare: int

    monkeypatch.setattr(results, "GameRow", Row)
    with pytest.raises(TypeError, match=r"GameRow.bare: expected Annotated"):
        results._meanings()


def test_moves_counts_every_agents_moves() -> None:
    """As `moves` says: Pacman's and every ghost's moves together, not Pacman's alone."""
    result = play(GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"),
                           resolve("RandomGhost", kind="ghost"), num_ghosts=2, seed=3,
                           max_moves=60))
    pacman_moves = sum(1 for index, _ in result.actions if index == 0)
    assert result.moves == len(result.actions) == 60
    assert 0 < pacman_moves < result.moves
    assert "all agents together" in MEANINGS["moves"]
