"""Directions and the course's `Actions` helpers.

The legal-action order West, Stop, East, North, South is a fact of the reference engine
(RULES.md): node counts that course autograders publish depend on it, so it is fixed here once.
"""

from __future__ import annotations

#: A coordinate on the board: Pacman's are whole numbers (ints), a ghost's floats (its speed is
#: 1.0, or 0.5 while scared), as in the course engine. A union rather than `float`, so that
#: the compiled build (`pacman.fastbuild`) keeps an int an int: mypyc stores what it knows to
#: be a float as a C double, which would turn Pacman's (1, 2) into (1.0, 2.0).
Coordinate = int | float
Position = tuple[Coordinate, Coordinate]


class Directions:
    NORTH = "North"
    SOUTH = "South"
    EAST = "East"
    WEST = "West"
    STOP = "Stop"

    LEFT = {NORTH: WEST, SOUTH: EAST, EAST: NORTH, WEST: SOUTH, STOP: STOP}
    RIGHT = {y: x for x, y in LEFT.items()}
    REVERSE = {NORTH: SOUTH, SOUTH: NORTH, EAST: WEST, WEST: EAST, STOP: STOP}


#: The reference engine's order of legal actions.
ACTION_ORDER: tuple[str, ...] = (
    Directions.WEST,
    Directions.STOP,
    Directions.EAST,
    Directions.NORTH,
    Directions.SOUTH,
)

VECTORS: dict[str, tuple[int, int]] = {
    Directions.WEST: (-1, 0),
    Directions.STOP: (0, 0),
    Directions.EAST: (1, 0),
    Directions.NORTH: (0, 1),
    Directions.SOUTH: (0, -1),
}

#: An agent is on a cell when within this Manhattan distance of its integer point.
TOLERANCE = 0.001


def action_name(action: object) -> str | None:
    """The direction an agent's answer names, as a plain str; None if it names none.

    A string counts by its value, whatever its class: `numpy.str_` (what `np.random.choice`
    returns) and other str subclasses are the move they spell, as in the course engine. The
    value is read with `str.__str__`, which a subclass cannot override, so an object whose
    `__eq__` or `__hash__` lies is judged by what it holds, and the referee keeps a plain str.
    Anything that is not a str is no move at all.
    """
    if not issubclass(type(action), str):  # type(), unlike isinstance, cannot be faked
        return None
    value = str.__str__(action)
    return value if value in VECTORS else None


def is_direction(action: object) -> bool:
    """True for exactly the five direction strings (plain str, not a subclass): what the
    engine's own code passes around. Agents' answers go through `action_name` first."""
    return type(action) is str and action in VECTORS


class Actions:
    """Static helpers with the course's names; student code calls these."""

    _directions = VECTORS
    _directionsAsList = list(VECTORS.items())
    TOLERANCE = TOLERANCE

    @staticmethod
    def reverseDirection(action: str) -> str:
        return Directions.REVERSE.get(action, action)

    @staticmethod
    def vectorToDirection(vector: tuple[float, float]) -> str:
        dx, dy = vector
        if dy > 0:
            return Directions.NORTH
        if dy < 0:
            return Directions.SOUTH
        if dx < 0:
            return Directions.WEST
        if dx > 0:
            return Directions.EAST
        return Directions.STOP

    @staticmethod
    def directionToVector(direction: str, speed: float = 1.0) -> tuple[float, float]:
        dx, dy = VECTORS[direction]
        return (dx * speed, dy * speed)

    @staticmethod
    def getPossibleActions(config: object, walls: object) -> list[str]:
        """Directions not into a wall; off a cell an agent must keep its direction."""
        x, y = config.pos  # type: ignore[attr-defined]
        x_int, y_int = int(x + 0.5), int(y + 0.5)
        if abs(x - x_int) + abs(y - y_int) > TOLERANCE:
            return [config.getDirection()]  # type: ignore[attr-defined]
        return [
            d
            for d, (dx, dy) in VECTORS.items()
            if not walls[x_int + dx][y_int + dy]  # type: ignore[index]
        ]

    @staticmethod
    def getLegalNeighbors(position: Position, walls: object) -> list[tuple[int, int]]:
        x, y = position
        x_int, y_int = int(x + 0.5), int(y + 0.5)
        out = []
        for dx, dy in VECTORS.values():
            nx, ny = x_int + dx, y_int + dy
            inside = 0 <= nx < walls.width and 0 <= ny < walls.height  # type: ignore[attr-defined]
            if inside and not walls[nx][ny]:  # type: ignore[index]
                out.append((nx, ny))
        return out

    @staticmethod
    def getSuccessor(position: Position, action: str) -> Position:
        dx, dy = Actions.directionToVector(action)
        x, y = position
        return (x + dx, y + dy)


def nearest_point(pos: Position) -> tuple[int, int]:
    """The cell an agent near `pos` belongs to (the course's `util.nearestPoint`)."""
    return (int(pos[0] + 0.5), int(pos[1] + 0.5))

