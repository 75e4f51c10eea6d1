"""The resume plan (`tournament.resume.plan`): pure, from the schedule and the store's hashes."""

from __future__ import annotations

from tournament.resume import Hashes, plan
from tournament.schedule import Cell, MatchCell, ScheduledGame
from tournament.store import StoredGame


def games(*ids: str) -> list[ScheduledGame]:
    cell = Cell("testClassic", 1, "RandomGhost", 1, "classic")
    return [ScheduledGame(gid, gid.partition("@")[0], cell, 0, 7) for gid in ids]


def test_each_game_is_done_missing_stale_or_to_retry() -> None:
    scheduled = games("a@x#0", "a@y#0", "b@x#0", "b@y#0", "c@x#0", "c@y#0")
    stored = {
        "a@x#0": StoredGame("ha", "", "win", 7),          # done
        "a@y#0": StoredGame("ha", "", "infra_error", 7),  # the platform failed it: again
        "b@x#0": StoredGame("old", "", "loss", 7),        # another submission: stale
        "c@x#0": StoredGame("hc", "", "crash", 7),        # the entrant's own failure: done
        "z@x#0": StoredGame("hz", "", "win", 7),          # no longer scheduled: not in it
        "c@y#0": StoredGame("hc", "", "win", 8),          # another seed: stale
    }
    split = plan(scheduled, stored, Hashes({"a": "ha", "b": "hb", "c": "hc"}, {}))
    assert [g.game_id for g in split.done] == ["a@x#0", "c@x#0"]
    assert [g.game_id for g in split.infra] == ["a@y#0"]
    assert [g.game_id for g in split.stale] == ["b@x#0", "c@y#0"]
    assert [g.game_id for g in split.missing] == ["b@y#0"]
    assert [g.game_id for g in split.todo] == ["b@y#0", "b@x#0", "c@y#0", "a@y#0"]
    assert split.total == len(scheduled)
    assert sorted(g.game_id for g in split.current) == ["a@x#0", "a@y#0", "c@x#0"]


def test_a_match_game_is_stale_when_either_side_changed() -> None:
    cell = MatchCell("testClassic", None, 2, "classic")
    scheduled = [ScheduledGame(f"{p}~{g}@{cell.key}#0", p, cell, 0, 7, ghost_entrant=g)
                 for p, g in (("a", "x"), ("a", "y"), ("b", "x"))]
    hashes = Hashes({"a": "ha", "b": "hb"}, {"x": "hx", "y": "hy", "a": "not a's Pacman"})
    stored = {
        scheduled[0].game_id: StoredGame("ha", "hx", "win", 7),       # both sides as they are now
        scheduled[1].game_id: StoredGame("ha", "old", "win", 7),      # the ghost team changed
        scheduled[2].game_id: StoredGame("old", "hx", "loss", 7),     # the Pacman changed
    }
    split = plan(scheduled, stored, hashes)
    assert split.done == scheduled[:1]
    assert split.stale == scheduled[1:]
    counts = split.counts()
    assert counts["x", "ghosts"] == {"done": 1, "missing": 0, "stale": 1, "infra": 0}
    assert counts["a", "pacman"] == {"done": 1, "missing": 0, "stale": 1, "infra": 0}
    assert ("a", "ghosts") not in counts  # a ghost entrant of that name played no game

