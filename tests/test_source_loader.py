"""The team's modules load from their sources only (`pacman.loader.source_only_hook`)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_the_source_only_hook_serves_the_teams_folders_and_no_library(tmp_path: Path) -> None:
    """Only the team's own folders get the source-only finder: a library kept under the
    team's folder (a virtual environment in a course folder) keeps the usual finders, so its
    extension modules load (the review of the fifteenth hostile review's fixes)."""
    import importlib.machinery

    from pacman.loader import SourceOnlyLoader, source_only_hook

    team = tmp_path / "course"
    (team / "helpers").mkdir(parents=True)
    site = team / ".venv" / "lib" / "site-packages"
    (site / "numpyish").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (team / "helpers" / "__init__.py").write_text("")
    (team / "helpers" / "__pycache__").mkdir()
    finder = source_only_hook(str(team), [str(site), "/usr/lib/python3"])
    spec = finder(str(team)).find_spec("helpers")
    assert spec is not None and isinstance(spec.loader, SourceOnlyLoader)
    assert isinstance(finder(str(team / "helpers")), importlib.machinery.FileFinder)
    for other in (site, site / "numpyish", tmp_path / "elsewhere", tmp_path):
        with pytest.raises(ImportError):
            finder(str(other))
    # Reached by another spelling (a link to the team's folder), it is the team's still.
    (tmp_path / "link").symlink_to(team)
    assert isinstance(finder(str(tmp_path / "link")), importlib.machinery.FileFinder)
