"""The resume plan (`tournament.resume.plan`): pure, from the schedule and the store's hashes."""

from __future__ import annotations

from tournament.resume import plan
from tournament.schedule import Cell, ScheduledGame


def games(*ids: str) -> list[ScheduledGame]:
    cell = Cell("testClassic", 1, "RandomGhost", 1, "classic")
    return [ScheduledGame(gid, gid.partition("@")[0], cell, 0, 7) for gid in ids]


def test_each_game_is_done_missing_stale_or_to_retry() -> None:
    scheduled = games("a@x#0", "a@y#0", "b@x#0", "b@y#0", "c@x#0")
    stored = {
        "a@x#0": ("ha", "win"),           # done
        "a@y#0": ("ha", "infra_error"),   # the platform failed it: played again
        "b@x#0": ("old", "loss"),         # played with another submission: stale
        "c@x#0": ("hc", "crash"),         # the entrant's own failure: done
        "z@x#0": ("hz", "win"),           # no longer scheduled: not in the plan at all
    }
    split = plan(scheduled, stored, {"a": "ha", "b": "hb", "c": "hc"})
    assert [g.game_id for g in split.done] == ["a@x#0", "c@x#0"]
    assert [g.game_id for g in split.infra] == ["a@y#0"]
    assert [g.game_id for g in split.stale] == ["b@x#0"]
    assert [g.game_id for g in split.missing] == ["b@y#0"]
    assert [g.game_id for g in split.todo] == ["b@y#0", "b@x#0", "a@y#0"]
    assert split.total == len(scheduled)
    assert sorted(g.game_id for g in split.current) == ["a@x#0", "a@y#0", "c@x#0"]
