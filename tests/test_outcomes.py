"""What each outcome means for each side (`pacman.outcomes`)."""

from __future__ import annotations

import pytest

from pacman.outcomes import (
    ENDINGS,
    FAILURES,
    GHOSTS,
    INFRA_ERROR,
    OUTCOMES,
    PACMAN,
    culprit_side,
    pacman_points,
)


def test_every_outcome_is_named_once() -> None:
    assert len(set(OUTCOMES)) == len(OUTCOMES) == len(ENDINGS) + len(FAILURES) + 1
    assert INFRA_ERROR in OUTCOMES


@pytest.mark.parametrize("kind", FAILURES)
def test_a_failure_costs_the_failing_side_the_game(kind: str) -> None:
    assert culprit_side(kind, 0) == PACMAN
    assert pacman_points(kind, 0) == 0.0
    for ghost in (1, 2, 4):
        assert culprit_side(kind, ghost) == GHOSTS
        assert pacman_points(kind, ghost) == 1.0


def test_rules_endings_and_platform_failures() -> None:
    assert pacman_points("win", None) == 1.0
    assert pacman_points("loss", None) == 0.0
    assert pacman_points("move_limit", None) == 0.5
    assert pacman_points(INFRA_ERROR, None) is None
    assert culprit_side("loss", 1) is None  # a rules ending has no culprit to blame
    assert pacman_points("crash", None) is None  # a failure nobody is known to have caused
