"""Exceptions of the state API that are kept out of the compiled modules.

The compiled build (`pacman.fastbuild`) compiles `pacman.state` with mypyc, which cannot
compile a subclass of `RuntimeError`; defined here, in a module that stays Python, the class is
the same one in either build. `pacman.state` re-exports it.
"""

from __future__ import annotations


class TerminalStateError(RuntimeError):
    """`generateSuccessor` was called on a won or lost state."""


class OptionError(ValueError):
    """A built-in agent's option with a value it cannot take: `ExpectimaxAgent: depth:
    expected at least 1, got -3`. A ValueError, as the course's command line expects; it
    keeps the option's name apart so that a config can put the problem at `args.depth`."""

    def __init__(self, owner: str, option: str, problem: str, message: str = "") -> None:
        super().__init__(message or f"{owner}: {option}: {problem}")
        self.owner = owner
        self.option = option
        self.problem = problem


class OptionProblem(ValueError):
    """A value one named option cannot take, found where the option's owner is not known (the
    evaluation options, `pacman.agents.evaluation.resolve_evaluation`, which every baseline
    shares). The agent that took the option makes it an `OptionError` with its own name."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option
