"""The organizer's side of pacman-arena: configs, schedules, executors, results, leaderboards.

It builds on the engine (`pacman`), never the other way round.
"""
