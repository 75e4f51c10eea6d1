"""Layout files: the 11 classic layouts, error messages that name file:line:column, grids."""

from __future__ import annotations

from pathlib import Path

import pytest

from pacman.grid import Grid
from pacman.layout import Layout, LayoutError, load_layout, parse_layout
from pacman.state import GameState

# RULES.md's table: name -> (W, H, ghosts, food, capsules).
CLASSIC = {
    "capsuleClassic": (19, 7, 3, 23, 3),
    "contestClassic": (20, 9, 3, 69, 6),
    "mediumClassic": (20, 11, 2, 97, 2),
    "minimaxClassic": (9, 5, 3, 2, 0),
    "openClassic": (25, 9, 1, 86, 1),
    "originalClassic": (28, 27, 4, 229, 4),
    "powerClassic": (20, 7, 4, 53, 8),
    "smallClassic": (20, 7, 2, 55, 2),
    "testClassic": (5, 10, 1, 8, 0),
    "trappedClassic": (8, 5, 2, 4, 0),
    "trickyClassic": (20, 13, 4, 114, 6),
}

LAYOUT_DIR = Path(__file__).resolve().parent.parent / "layouts"


def test_all_eleven_classic_layouts_are_shipped() -> None:
    assert sorted(p.stem for p in LAYOUT_DIR.glob("*.lay")) == sorted(CLASSIC)


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_classic_layout_facts(name: str) -> None:
    width, height, ghosts, food, capsules = CLASSIC[name]
    lay = load_layout(name)
    assert (lay.width, lay.height) == (width, height)
    assert lay.getNumGhosts() == ghosts
    assert len(lay.food_cells) == food
    assert len(lay.capsules) == capsules
    assert lay.walls.width == width and lay.walls.height == height
    s = GameState.initial(lay)
    assert s.getNumAgents() == 1 + ghosts
    assert s.getNumFood() == food
    assert s.getFood().count() == food
    assert len(s.getCapsules()) == capsules
    assert s.getScore() == 0


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_classic_layout_loads_by_path_too(name: str) -> None:
    by_path = load_layout(str(LAYOUT_DIR / f"{name}.lay"))
    by_name = load_layout(name)
    assert (by_path.width, by_path.height) == (by_name.width, by_name.height)
    assert by_path.food_cells == by_name.food_cells
    assert by_path.agentPositions == by_name.agentPositions


def test_capsule_classic_longer_row_is_accepted() -> None:
    rows = (LAYOUT_DIR / "capsuleClassic.lay").read_text().splitlines()
    lengths = [len(r.strip()) for r in rows if r.strip()]
    assert max(lengths) > lengths[0]  # the file really has a longer row
    lay = load_layout("capsuleClassic")
    assert lay.width == lengths[0] == 19


def test_small_classic_positions() -> None:
    # Hand-read from smallClassic.lay: Pacman on the bottom open row (y=1) at x=9; the two
    # 'G' on the top open row (y=5) at x=8 and x=11.
    lay = load_layout("smallClassic")
    assert lay.agentPositions == ((True, (9, 1)), (False, (8, 5)), (False, (11, 5)))
    assert sorted(lay.capsules) == [(3, 3), (16, 3)]


# --- errors ----------------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "bad.lay") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def load_error(path: str) -> str:
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    message = str(info.value)
    assert path in message  # every message names the file
    return message


def test_unknown_character_is_empty_space_with_a_warning(tmp_path: Path) -> None:
    # 'X' is on line 2, column 4: read as the course reads it, as an empty cell.
    path = write(tmp_path, "%%%%%\n%P.X%\n%%%%%\n")
    lay = load_layout(path)
    clean = load_layout(write(tmp_path, "%%%%%\n%P. %\n%%%%%\n", "clean.lay"))
    assert lay.wall_cells == clean.wall_cells and lay.neighbours == clean.neighbours
    assert lay.food_cells == clean.food_cells == [(2, 1)]
    assert (lay.capsules, lay.agentPositions) == (clean.capsules, clean.agentPositions)
    assert clean.warnings == ()
    [warning] = lay.warnings
    assert warning.startswith(f"{path}:2:4: unknown character 'X' read as empty space")


def test_unknown_character_column_counts_indentation_and_repeats_are_counted(
        tmp_path: Path) -> None:
    # Lines are stripped, but the column is the one in the file: '?' first at line 3, column 5.
    path = write(tmp_path, "  %%%%%\n  %P. %\n  %.?.%\n  %.??%\n  %%%%%\n")
    [warning] = load_layout(path).warnings
    assert warning.startswith(f"{path}:3:5: unknown character '?'")
    assert "(3 times)" in warning


def test_unknown_characters_still_leave_real_errors_errors(tmp_path: Path) -> None:
    # An unknown character where the border should be: the border is open, an error.
    message = load_error(write(tmp_path, "%%%%%\n%P. X\n%%%%%\n"))
    assert "border" in message


def test_no_pacman(tmp_path: Path) -> None:
    message = load_error(write(tmp_path, "%%%%%\n%.G.%\n%%%%%\n"))
    assert "no Pacman" in message


def test_two_pacmen(tmp_path: Path) -> None:
    message = load_error(write(tmp_path, "%%%%%%\n%P.P %\n%%%%%%\n"))
    assert "2 Pacmen" in message


def test_row_shorter_than_first(tmp_path: Path) -> None:
    # Line 2 has 5 cells instead of 6: the missing cell is column 6.
    path = write(tmp_path, "%%%%%%\n%P. %\n%%%%%%\n")
    message = load_error(path)
    assert f"{path}:2:6" in message
    assert "expected 6" in message


def test_row_longer_with_non_wall_cells(tmp_path: Path) -> None:
    # Line 2 has an extra '.' at column 7 past the 6-cell width.
    path = write(tmp_path, "%%%%%%\n%P. %%.\n%%%%%%\n")
    message = load_error(path)
    assert f"{path}:2:7" in message
    assert "longer" in message


def test_row_longer_with_only_walls_is_fine(tmp_path: Path) -> None:
    lay = load_layout(write(tmp_path, "%%%%%%\n%P. %%%\n%%%%%%\n"))
    assert (lay.width, lay.height) == (6, 3)


def test_open_border(tmp_path: Path) -> None:
    # The right border cell of line 2 (column 5) is food.
    path = write(tmp_path, "%%%%%\n%P. .\n%%%%%\n")
    message = load_error(path)
    assert f"{path}:2:5" in message
    assert "border" in message


def test_open_border_top_row(tmp_path: Path) -> None:
    path = write(tmp_path, "%% %%\n%P. %\n%%%%%\n")
    message = load_error(path)
    assert f"{path}:1:3" in message


def test_blank_line_inside(tmp_path: Path) -> None:
    path = write(tmp_path, "%%%%%\n%P. %\n\n%. .%\n%%%%%\n")
    message = load_error(path)
    assert f"{path}:3" in message
    assert "blank" in message


def test_blank_lines_around_are_fine(tmp_path: Path) -> None:
    lay = load_layout(write(tmp_path, "\n\n%%%%%\n%P. %\n%%%%%\n\n"))
    assert (lay.width, lay.height) == (5, 3)


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    message = load_error(write(tmp_path, text))
    assert "empty" in message


def test_unknown_layout_name_suggests() -> None:
    with pytest.raises(LayoutError) as info:
        load_layout("smalClassic")
    assert "did you mean smallClassic" in str(info.value)


def test_missing_layout_file(tmp_path: Path) -> None:
    path = str(tmp_path / "nowhere.lay")
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert path in str(info.value)


def test_parse_layout_errors_name_the_layout() -> None:
    with pytest.raises(LayoutError) as info:
        parse_layout("%%%%\n%P. \n%%%%", name="mine")
    assert "mine:2:4" in str(info.value)


# --- grids -----------------------------------------------------------------------------------

# %%%%%%   y=3
# %P.o %   y=2   Pacman (1,2), food (2,2), capsule (3,2)
# %. %.%   y=1   food (1,1) and (4,1), wall (3,1)
# %%%%%%   y=0
SMALL = "%%%%%%\n%P.o %\n%. %.%\n%%%%%%"


@pytest.fixture
def small() -> Layout:
    return parse_layout(SMALL, name="small")


def test_walls_grid(small: Layout) -> None:
    s = GameState.initial(small)
    walls = s.getWalls()
    assert (walls.width, walls.height) == (6, 4)
    assert walls[0][0] and walls[5][3] and walls[3][1]
    assert not walls[1][2] and not walls[4][2]
    assert walls[3][1] is True and walls[1][1] is False
    # 6x4 = 24 cells; open: (1,2) (2,2) (3,2) (4,2) (1,1) (2,1) (4,1) -> 7; walls 17.
    assert walls.count() == 17
    assert walls.count(False) == 7
    assert walls.asList(False) == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (4, 1), (4, 2)]
    assert s.hasWall(3, 1) and not s.hasWall(2, 1)


def test_food_grid(small: Layout) -> None:
    s = GameState.initial(small)
    food = s.getFood()
    assert (food.width, food.height) == (6, 4)
    assert food.count() == 3
    # Ordered by x, then y.
    assert food.asList() == [(1, 1), (2, 2), (4, 1)]
    assert food.asList() == list(small.food_cells)
    assert food[2][2] and food[1][1] and not food[3][2]  # a capsule is not food
    assert s.getCapsules() == [(3, 2)]


def test_grid_as_list_order_x_then_y() -> None:
    g = Grid(3, 3)
    g[2][0] = True
    g[0][2] = True
    g[0][1] = True
    g[1][0] = True
    assert g.asList() == [(0, 1), (0, 2), (1, 0), (2, 0)]
    assert g.count() == 4


@pytest.mark.parametrize("name", ["smallClassic", "mediumClassic", "capsuleClassic"])
def test_food_grid_matches_layout(name: str) -> None:
    lay = load_layout(name)
    food = GameState.initial(lay).getFood()
    assert food.asList() == list(lay.food_cells)
    assert food.asList() == sorted(food.asList())
    assert food.count() == len(lay.food_cells)


def test_the_walls_are_read_only_the_food_writable_and_copies_mutable(small: Layout) -> None:
    """The walls view is shared by every state of the layout; the food grid is a fresh one
    per call, which the agent may write into as the course's (and no state changes)."""
    s = GameState.initial(small)
    food = s.getFood()
    walls = s.getWalls()
    with pytest.raises(TypeError):
        walls[1][1] = True
    scratch = s.getFood()
    scratch[2][2] = False
    scratch[2] = [True] * 4
    assert scratch.count() == 6 and s.getFood().count() == 3

    mine = food.copy()
    mine[2][2] = False
    mine[3][2] = True
    assert mine.asList() == [(1, 1), (3, 2), (4, 1)]
    assert mine.count() == 3
    assert (mine.width, mine.height) == (6, 4)

    wall_copy = walls.copy()
    wall_copy[1][1] = True
    assert wall_copy[1][1] is True

    # The originals did not change.
    assert s.getFood().asList() == [(1, 1), (2, 2), (4, 1)]
    assert food.asList() == [(1, 1), (2, 2), (4, 1)]
    assert s.getWalls()[1][1] is False
    assert s.hasFood(2, 2)


def test_oversized_layout_is_rejected(tmp_path):
    side = 300
    rows = ["%" * side] + ["%" + " " * (side - 2) + "%"] * (side - 2) + ["%" * side]
    rows[1] = "%P" + " " * (side - 3) + "%"
    path = tmp_path / "huge.lay"
    path.write_text("\n".join(rows))
    with pytest.raises(LayoutError, match="at most 256 x 256"):
        load_layout(str(path))


def test_walled_in_agent_is_rejected(tmp_path):
    path = tmp_path / "walled.lay"
    path.write_text("%%%%%%\n%P%. %\n%%%%%%\n")
    with pytest.raises(LayoutError, match=r"walled\.lay:2:2: this agent is walled in"):
        load_layout(str(path))


def test_form_feed_is_an_unknown_character_not_a_line_break(tmp_path):
    path = tmp_path / "ff.lay"
    path.write_text("%%%%\n%P\x0c%\n%%%%\n")
    lay = load_layout(str(path))
    assert (lay.width, lay.height) == (4, 3)
    [warning] = lay.warnings
    assert warning.startswith(f"{path}:2:3: unknown character '\\x0c'")


def test_crlf_layout_parses_like_lf():
    text = "%%%%%\r\n%P.G%\r\n%%%%%\r\n"
    assert parse_layout(text).text == parse_layout(text.replace("\r", "")).text


def test_border_error_column_counts_indentation(tmp_path):
    path = tmp_path / "indent.lay"
    path.write_text("   %% %%\n   %P. %\n   %%%%%\n")  # the gap is at line 1, column 6
    with pytest.raises(LayoutError, match=r"indent\.lay:1:6: the border"):
        load_layout(str(path))


def test_very_long_layout_name_is_a_clean_error():
    with pytest.raises(LayoutError, match="cannot look up"):
        load_layout("a" * 300)


# --- where names are looked up: as the course's getLayout, then the project's ---------------

MAZE = "%%%%%\n%P.G%\n%%%%%\n"
OTHER = "%%%%%%\n%P..G%\n%%%%%%\n"


def test_a_name_finds_dot_lay_in_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mymaze.lay").write_text(MAZE)
    monkeypatch.chdir(tmp_path)
    for ref in ("mymaze", "mymaze.lay"):
        lay = load_layout(ref)
        assert (lay.name, lay.width) == ("mymaze", 5)


def test_layouts_folder_comes_before_the_folder_itself(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "maze.lay").write_text(OTHER)
    (tmp_path / "maze.lay").write_text(MAZE)
    monkeypatch.chdir(tmp_path)
    assert load_layout("maze").width == 6


def test_parent_folders_are_searched_three_levels_up(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "far.lay").write_text(MAZE)
    (tmp_path / "a" / "near.lay").parent.mkdir()
    (tmp_path / "a" / "near.lay").write_text(OTHER)
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert load_layout("far").width == 5  # ../../../layouts/far.lay
    assert load_layout("near").width == 6  # ../../near.lay
    (deep / "d").mkdir()
    monkeypatch.chdir(deep / "d")
    with pytest.raises(LayoutError, match="unknown layout 'far'"):
        load_layout("far")  # four levels up: beyond where the course looks
    assert load_layout("near").width == 6


def test_a_relative_path_is_tried_under_layouts_then_as_is(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "maze.lay").write_text(MAZE)
    monkeypatch.chdir(tmp_path)
    assert load_layout("mine/maze").width == 5
    assert load_layout("mine/maze.lay").width == 5
    (tmp_path / "layouts" / "mine").mkdir(parents=True)
    (tmp_path / "layouts" / "mine" / "maze.lay").write_text(OTHER)
    assert load_layout("mine/maze.lay").width == 6
    with pytest.raises(LayoutError, match="mine/nothing: no such layout file"):
        load_layout("mine/nothing")


def test_packaged_layouts_are_found_from_any_folder_and_a_local_one_wins(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_layout("smallClassic").width == 20
    (tmp_path / "smallClassic.lay").write_text(MAZE)
    assert load_layout("smallClassic").width == 5
