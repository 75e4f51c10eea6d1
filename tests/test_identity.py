"""The platform's identity (`pacman.identity`): the code that plays a game, read from the
sources themselves."""

from __future__ import annotations

import os
from pathlib import Path

from pacman import __version__
from pacman.identity import (
    _read,
    imported_modules,
    platform_id,
    platform_sources,
    sources_digest,
)


def tree(root: Path) -> Path:
    """A small copy of the platform's layout: `pacman` and `tournament` packages, where
    `tournament.runner` imports `tournament.secret` at the top and `tournament.store` inside
    a function, and `tournament.report` is imported by no module that plays."""
    files = {
        "pacman/__init__.py": "",
        "pacman/rules.py": "SPEED = 1\n",
        "pacman/display/draw.py": "import pygame\n",
        "tournament/__init__.py": "",
        "tournament/runner.py": "from tournament.secret import key\n\n"
                                "def play():\n    from tournament import store\n",
        "tournament/secret.py": "def key(): return 1\n",
        "tournament/store.py": "import tournament.results\n",
        "tournament/results.py": "COLUMNS = ()\n",
        "tournament/report.py": "from tournament.runner import play\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def digest(root: Path) -> str:
    return sources_digest(platform_sources(root))


def test_the_sources_that_play_are_the_engine_and_what_the_runner_imports(
        tmp_path: Path) -> None:
    root = tree(tmp_path)
    assert sorted(name for name, _ in platform_sources(root)) == [
        "pacman/__init__.py", "pacman/display/draw.py", "pacman/rules.py",
        "tournament/results.py", "tournament/runner.py", "tournament/secret.py",
        "tournament/store.py"]
    before = digest(root)
    # The report (or the marks, the collection, the command line) plays nothing again.
    (root / "tournament" / "report.py").write_text("# reworded\n")
    assert digest(root) == before
    # The seeds' derivation, reached only through imports, and the engine do.
    for changed in ("tournament/results.py", "tournament/secret.py", "pacman/rules.py"):
        path = root / changed
        text = path.read_text()
        path.write_text(text + "# changed\n")
        assert digest(root) != before, changed
        path.write_text(text)
        assert digest(root) == before


def test_files_python_would_not_import_are_not_sources_and_reading_never_fails(
        tmp_path: Path) -> None:
    """Found by the review of the change: an editor's lock file (a broken symbolic link
    named `.#rules.py`) made every command end in a traceback."""
    root = tree(tmp_path)
    before = digest(root)
    os.symlink("user@host.1234", root / "pacman" / ".#rules.py")
    (root / "pacman" / "__pycache__").mkdir()
    (root / "pacman" / "__pycache__" / "rules.py").write_text("stale copy\n")
    (root / "pacman" / "notes-old.py").write_text("not a module name\n")
    assert digest(root) == before
    # A folder of a module's name is no module; a source that cannot be read is one value
    # still, not a crash.
    (root / "pacman" / "rules.py").unlink()
    (root / "pacman" / "rules.py").mkdir()
    assert digest(root) != before
    assert _read(root / "pacman" / "rules.py").startswith(b"\0unreadable: ")


def test_framing_keeps_different_sets_of_files_apart() -> None:
    assert sources_digest([("a", b"bc")]) != sources_digest([("ab", b"c")])
    assert sources_digest([("a", b"1"), ("b", b"2")]) == sources_digest([("b", b"2"), ("a", b"1")])


def test_imports_anywhere_are_found_and_bad_source_has_none() -> None:
    source = b"import os\nimport tournament.a\nfrom tournament import b\n" \
             b"def f():\n    from tournament.c import d\n"
    assert imported_modules(source, "tournament") == {
        "tournament.a", "tournament", "tournament.b", "tournament.c", "tournament.c.d"}
    assert imported_modules(b"def (:\n", "tournament") == set()


def test_this_platform_names_its_release_and_its_code() -> None:
    release, _, code = platform_id().partition("+")
    assert release == __version__ and len(code) == 12
    root = Path(__file__).resolve().parents[1]
    assert code == digest(root)[:12]
