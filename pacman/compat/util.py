"""The course's `util` module, as student files import it (`import util`).

Written for this project from the course's documented behaviour: same names, same semantics.
The sampling helpers draw from Python's global `random`, as the course's do; the game runner
seeds that stream per game, so student agents are reproducible.
"""

from __future__ import annotations

import heapq
import inspect
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from pacman.actions import nearest_point

T = TypeVar("T")


def manhattanDistance(xy1: Sequence[float], xy2: Sequence[float]) -> float:
    return abs(xy1[0] - xy2[0]) + abs(xy1[1] - xy2[1])


def nearestPoint(pos: tuple[float, float]) -> tuple[int, int]:
    return nearest_point(pos)


def sign(x: float) -> int:
    return 1 if x >= 0 else -1


def raiseNotDefined() -> None:
    caller = inspect.stack()[1]
    print(
        f"*** Method not implemented: {caller.function} at line {caller.lineno} "
        f"of {caller.filename}"
    )
    sys.exit(1)


def lookup(name: str, namespace: dict[str, Any]) -> Any:
    """Find `name` in a module namespace, or `module.name`: how `evalFn=better` resolves."""
    if "." in name:
        module_name, obj_name = name.rsplit(".", 1)
        module = __import__(module_name, fromlist=[obj_name])
        return getattr(module, obj_name)
    # The course's Python 3 version also means to search imported modules, but its test for a
    # module never matches; names are found in the namespace itself, as there.
    if name in namespace:
        return namespace[name]
    raise Exception(f"{name} not found as a method or class")


class Counter(dict[Any, float]):
    """A dict whose missing keys count as 0, with the course's arithmetic helpers."""

    def __getitem__(self, idx: Any) -> float:
        self.setdefault(idx, 0)
        return dict.__getitem__(self, idx)

    def incrementAll(self, keys: Iterable[Any], count: float) -> None:
        for key in keys:
            self[key] += count

    def argMax(self) -> Any:
        if not self:
            return None
        return max(self.items(), key=lambda kv: kv[1])[0]

    def sortedKeys(self) -> list[Any]:
        """Keys by value, highest first (broken in the course's Python 3 port; works here)."""
        return [k for k, _ in sorted(self.items(), key=lambda kv: kv[1], reverse=True)]

    def totalCount(self) -> float:
        return sum(self.values())

    def normalize(self) -> None:
        total = float(self.totalCount())
        if total == 0:
            return
        for key in list(self.keys()):
            self[key] = self[key] / total

    def divideAll(self, divisor: float) -> None:
        divisor = float(divisor)
        for key in self:
            self[key] /= divisor

    def copy(self) -> Counter:
        return Counter(dict.copy(self))

    def __mul__(self, y: Counter) -> float:
        small, big = (self, y) if len(self) <= len(y) else (y, self)
        return sum(small[k] * big[k] for k in small if k in big)

    def __radd__(self, y: Counter) -> None:
        for key, value in y.items():
            self[key] += value

    def __add__(self, y: Counter) -> Counter:
        # Keys in the course's order (this counter's, then the other's new ones): argMax ties
        # and iteration order depend on it.
        out = Counter()
        for key in [*self, *(k for k in y if k not in self)]:
            out[key] = self.get(key, 0) + y.get(key, 0)
        return out

    def __sub__(self, y: Counter) -> Counter:
        out = Counter()
        for key in [*self, *(k for k in y if k not in self)]:
            out[key] = self.get(key, 0) - y.get(key, 0)
        return out


def normalize(vectorOrCounter: Any) -> Any:
    if isinstance(vectorOrCounter, Counter):
        out = Counter()
        total = float(vectorOrCounter.totalCount())
        if total == 0:
            return vectorOrCounter
        for key, value in vectorOrCounter.items():
            out[key] = value / total
        return out
    s = float(sum(vectorOrCounter))
    if s == 0:
        return vectorOrCounter
    return [el / s for el in vectorOrCounter]


def sample(distribution: Any, values: Sequence[Any] | None = None, rng: Any = random) -> Any:
    """Draw one value; a Counter is sampled over its keys in sorted order (the course's way)."""
    if isinstance(distribution, Counter):
        items = sorted(distribution.items())
        distribution = [i[1] for i in items]
        values = [i[0] for i in items]
    assert values is not None
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    choice = rng.random()
    i, total = 0, distribution[0]
    while choice > total:
        i += 1
        total += distribution[i]
    return values[i]


def nSample(distribution: Sequence[float], values: Sequence[Any], n: int) -> list[Any]:
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    rand = sorted(random.random() for _ in range(n))
    samples, sample_index, dist_index, cdf = [], 0, 0, distribution[0]
    while sample_index < n:
        if rand[sample_index] < cdf:
            sample_index += 1
            samples.append(values[dist_index])
        else:
            dist_index += 1
            cdf += distribution[dist_index]
    return samples


def sampleFromCounter(ctr: Counter) -> Any:
    items = sorted(ctr.items())
    return sample([v for _, v in items], [k for k, _ in items])


def getProbability(value: Any, distribution: Sequence[float], values: Sequence[Any]) -> float:
    return sum(p for p, v in zip(distribution, values) if v == value)


def flipCoin(p: float) -> bool:
    return random.random() < p


def chooseFromDistribution(distribution: Any, rng: Any = random) -> Any:
    """A dict/Counter of value -> probability, or a list of (probability, value) pairs."""
    if isinstance(distribution, dict):
        return sample(Counter(distribution) if not isinstance(distribution, Counter)
                      else distribution, rng=rng)
    r = rng.random()
    base = 0.0
    for prob, element in distribution:
        base += prob
        if r <= base:
            return element
    return distribution[-1][1]


def arrayInvert(array: list[list[Any]]) -> list[list[Any]]:
    result: list[list[Any]] = [[] for _ in array]
    for outer in array:
        for inner in range(len(outer)):
            result[inner].append(outer[inner])
    return result


def matrixAsList(matrix: Sequence[Sequence[Any]], value: Any = True) -> list[tuple[int, int]]:
    return [
        (row, col)
        for row in range(len(matrix))
        for col in range(len(matrix[0]))
        if matrix[row][col] == value
    ]


class Stack(Generic[T]):
    def __init__(self) -> None:
        self.list: list[T] = []

    def push(self, item: T) -> None:
        self.list.append(item)

    def pop(self) -> T:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return not self.list


class Queue(Generic[T]):
    def __init__(self) -> None:
        self.list: list[T] = []

    def push(self, item: T) -> None:
        self.list.insert(0, item)

    def pop(self) -> T:
        return self.list.pop()

    def isEmpty(self) -> bool:
        return not self.list


class PriorityQueue(Generic[T]):
    """Lowest priority first; ties in insertion order."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, T]] = []
        self.count = 0

    def push(self, item: T, priority: float) -> None:
        heapq.heappush(self.heap, (priority, self.count, item))
        self.count += 1

    def pop(self) -> T:
        return heapq.heappop(self.heap)[2]

    def isEmpty(self) -> bool:
        return not self.heap

    def update(self, item: T, priority: float) -> None:
        for index, (p, c, i) in enumerate(self.heap):
            if i == item:
                if p <= priority:
                    return
                del self.heap[index]
                self.heap.append((priority, c, item))
                heapq.heapify(self.heap)
                return
        self.push(item, priority)


class PriorityQueueWithFunction(PriorityQueue[T]):
    def __init__(self, priorityFunction: Callable[[T], float]) -> None:
        self.priorityFunction = priorityFunction
        super().__init__()

    def push(self, item: T, priority: float | None = None) -> None:
        super().push(item, self.priorityFunction(item))


class TimeoutFunctionException(Exception):
    pass


def pause() -> None:
    input("<Press enter/return to continue>")


#: What `from util import *` gives: as the course's module (which has no `__all__`), every
#: public function and class, and the modules it imports that course files use through it.
__all__ = [
    "Counter",
    "PriorityQueue",
    "PriorityQueueWithFunction",
    "Queue",
    "Stack",
    "TimeoutFunctionException",
    "arrayInvert",
    "chooseFromDistribution",
    "flipCoin",
    "getProbability",
    "heapq",
    "inspect",
    "lookup",
    "manhattanDistance",
    "matrixAsList",
    "nSample",
    "nearestPoint",
    "normalize",
    "pause",
    "raiseNotDefined",
    "random",
    "sample",
    "sampleFromCounter",
    "sign",
    "sys",
]
