"""How the organizer's YAML files are checked: every problem found, each with its key path.

An organizer edits a file (a tournament config, a marking scheme), runs a command, and must
not find out one typo per run: the whole file is validated, every problem is collected with
its key path (`grid.layouts[2]: unknown layout 'smalClassic' (did you mean smallClassic?)`)
and one `ProblemsError` lists them all, before anything is done. Unknown keys are errors too,
because a misspelt optional key would otherwise silently fall back to its default.

How: the shape of each mapping is a pydantic model (`StrictMapping` subclasses), each leaf
value a validator that words its own problem as the organizer reads it (`problem`); checks
that cover several values collect theirs in `Problems` and raise them together, so that
every problem, wherever it is found, comes back as one pydantic error with its location.
`problem_lines` words them. `tournament.config` (the tournament's config) and
`tournament.markscheme` (a marking scheme) both build on this, so both read the same way.
"""

from __future__ import annotations

import difflib
import ipaddress
import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Annotated, Any, NoReturn, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from pacman.replay import MAX_MOVES

T = TypeVar("T")

#: The pydantic error type of every problem found here; its context holds the message and,
#: where the problem belongs elsewhere than where it was found, the key path it belongs to.
PROBLEM = "problem"

Loc = tuple[str | int, ...]


class ProblemsError(ValueError):
    """A file that cannot be used; the message lists every problem, one per line, each as
    `file: key.path: message`.

    `problems` holds the same lines without the file-name prefix, for tests and for callers
    that present them differently.
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(f"{source}: {p}" for p in self.problems))

    def __reduce__(self) -> tuple[type[ProblemsError], tuple[str, tuple[str, ...]]]:
        # Rebuilt from its parts, so that it survives a trip to another process (pickle).
        return type(self), (self.source, self.problems)


def problem(message: str, at: str | None = None) -> PydanticCustomError:
    """One problem, where it was found or (`at`) at another key path."""
    context: dict[str, str] = {"message": message}
    if at is not None:
        context["at"] = at
    return PydanticCustomError(PROBLEM, "{message}", context)


class Problems:
    """Problems collected at locations below the value being validated, raised together.

    A validator that checks several things (the items of a list, the parts of a baseline)
    reports all it found rather than the first, as pydantic does for the fields of a model.
    """

    def __init__(self) -> None:
        self.details: list[InitErrorDetails] = []

    def add(self, loc: Loc, message: str, at: str | None = None) -> None:
        self.details.append({"type": problem(message, at), "loc": loc, "input": None})

    def absorb(self, exc: ValidationError | PydanticCustomError, prefix: Loc = ()) -> None:
        """Take the problems of a nested validation, their locations under `prefix`."""
        if isinstance(exc, PydanticCustomError):
            context = exc.context or {}
            self.add(prefix, str(context.get("message", exc.message())), context.get("at"))
            return
        for error in exc.errors():
            self.absorb_error(error, prefix)

    def absorb_error(self, error: ErrorDetails, prefix: Loc = ()) -> None:
        context = error.get("ctx") or {}
        message = str(context.get("message", error["msg"]))
        self.add((*prefix, *error["loc"]), message, context.get("at"))

    def run(self, check: Callable[[], T], prefix: Loc = ()) -> T | None:
        """`check()`'s value, or None with its problems kept."""
        try:
            return check()
        except (ValidationError, PydanticCustomError) as exc:
            self.absorb(exc, prefix)
            return None

    def __bool__(self) -> bool:
        return bool(self.details)

    def raise_any(self) -> None:
        if self.details:
            raise ValidationError.from_exception_data(PROBLEM, self.details)


def raise_at(loc: Loc, message: str) -> NoReturn:
    """Report one problem at `loc` below the value being validated."""
    raise ValidationError.from_exception_data(
        PROBLEM, [{"type": problem(message), "loc": loc, "input": None}]
    )


def problem_lines(exc: ValidationError, data: object = None) -> list[str]:
    """Each problem as `key.path[0]: message`. With the file's `data` (a mapping), in the
    order of its top-level keys (problems under keys it lacks last), so that the list reads
    like the file; else in the order they were found."""
    lines = []
    for error in exc.errors():
        context = error.get("ctx") or {}
        message = str(context.get("message", error["msg"]))
        path = str(context.get("at") or key_path(error["loc"]) or "(top level)")
        lines.append(f"{path}: {message}")
    order = {key: i for i, key in enumerate(data)} if isinstance(data, dict) else {}

    def position(line: str) -> int:
        top = re.split(r"[.\[:]", line, maxsplit=1)[0]
        return order.get(top, len(order))

    return sorted(lines, key=position)


def key_path(loc: Loc) -> str:
    """`("criteria", 2, "thresholds")` -> `criteria[2].thresholds`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text = f"{text}.{part}" if text else part
    return text


def show(value: object) -> str:
    """A found value as the organizer wrote it in YAML."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean X?)` for the closest of `choices`, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


# ---- leaf values: each validator words its own problem ------------------------------------


def whole(minimum: int | None = None, maximum: int | None = None) -> Callable[[object], int]:
    """A validator of a whole number (not true/false), at least `minimum` and at most
    `maximum` (a bound that a typo would otherwise turn into hours or all the memory)."""
    expected = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
    if maximum is not None:
        expected += f"{' and' if minimum is not None else ''} <= {maximum:,}"

    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise problem(f"expected {expected}, got {show(value)}")
        if (minimum is not None and value < minimum) or (maximum is not None
                                                          and value > maximum):
            raise problem(f"expected {expected}, got {value}")
        return value

    return check


def text(what: str) -> Callable[[object], str]:
    """A validator of a text that is not blank, stripped; `what` says what it should be."""
    def check(value: object) -> str:
        if not isinstance(value, str) or not value.strip():
            raise problem(f"expected {what}, got {show(value)}")
        return value.strip()

    return check


#: The protocols a Dask scheduler can listen on (`distributed.comm`'s registry). Those that
#: need an extra package (ucx, ws) are accepted here; Dask says what is missing.
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
SCHEDULER_EXAMPLE = "a Dask scheduler address like tcp://host:8786"


def _address_parts(address: str) -> tuple[str, str, str, bool]:
    """(protocol, host, port, whether an IPv6 host's brackets are well formed) of
    `[protocol://]host[:port]`, `tcp` when no protocol is given; unchecked (pure): the one
    reading of an address, for `scheduler_address` and `unencrypted_remote`."""
    protocol, separator, rest = address.partition("://")
    if not separator:
        protocol, rest = "tcp", address
    if rest.startswith("["):  # an IPv6 host: [::1]:8786
        host, bracket, port = rest[1:].partition("]")
        return protocol, host, port[1:], bool(bracket) and (not port or port.startswith(":"))
    host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    return protocol, host, port, True


def scheduler_address(value: object) -> str:
    """A Dask scheduler address, `[protocol://]host[:port]`, checked here rather than by Dask:
    Dask takes `tcp://host:x` or `foo://host` and then spends its whole connect timeout (and
    more) before failing with a message that names neither the key nor what is wrong."""
    address = text(SCHEDULER_EXAMPLE)(value)
    if any(ch.isspace() for ch in address):
        raise problem(f"an address has no spaces, got {address!r}")
    protocol, host, port, bracketed = _address_parts(address)
    if protocol not in SCHEDULER_PROTOCOLS:
        raise problem(f"unknown protocol {protocol!r} in {address!r}; expected one of "
                      f"{', '.join(SCHEDULER_PROTOCOLS)}, as in tcp://host:8786")
    if protocol == "inproc":
        return address
    if not bracketed:
        raise problem(f"expected [IPv6 host]:port, got {address!r}")
    if not host or "/" in host or "@" in host:
        raise problem(f"expected a host name or IP address in {address!r}, "
                      "as in tcp://host:8786")
    if port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise problem(f"expected a port from 1 to 65535 in {address!r}, got {port!r}")
    return address


#: Dask protocols that neither encrypt nor authenticate.
PLAIN_PROTOCOLS = ("tcp", "ws", "ucx")


def unencrypted_remote(address: str | None) -> str:
    """The protocol of a checked scheduler address (`scheduler_address`) when it reaches
    another host without encryption nor authentication, else '' (pure)."""
    if address is None:
        return ""
    protocol, host, _, _ = _address_parts(address)
    if protocol not in PLAIN_PROTOCOLS or host.lower() == "localhost":
        return ""
    try:
        if ipaddress.ip_address(host).is_loopback:
            return ""
    except ValueError:  # a host name: another machine, as far as anyone can tell here
        pass
    return f"{protocol}://"


def exposed_scheduler(address: str | None, trusted: bool, key: str) -> str:
    """Why a scheduler address may not be used ('' when it may): plain `tcp://` to another
    host, unless the organizer said the network is trusted (`key` names where to say it).
    The one home of this rule, for a tournament's config and a tune file alike."""
    exposed = unencrypted_remote(address)
    if not exposed or trusted:
        return ""
    return (f"{address} is reached over {exposed}, neither encrypted nor authenticated: "
            "anyone who reaches that port can run code on every worker (the teams' files "
            "included) and hand back results of their choosing. Use tls:// with Dask's TLS "
            f"settings (README, Dask cluster), or say that the network is trusted: {key}")


def flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise problem(f"expected true or false, got {show(value)}")
    return value


def choice(choices: Sequence[str], what: str) -> Callable[[object], str]:
    """A validator of one of `choices`, with "did you mean" for a near miss."""
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in choices:
            hint = did_you_mean(value, choices) if isinstance(value, str) else ""
            raise problem(
                f"unknown {what} {show(value)}{hint}; expected one of {', '.join(choices)}"
            )
        return value

    return check


def confidence(value: object) -> float:
    """A confidence level strictly between 0 and 1."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (math.isfinite(value) and 0 < value < 1)
    ):
        raise problem(f"expected a number between 0 and 1 (like 0.95), got {show(value)}")
    return float(value)


def list_of(
    what: str,
    item: Callable[[object, ValidationInfo], T],
    *,
    path: str,
    empty: str | None = None,
    duplicate: str | None = None,
    key: Callable[[T], object] = lambda found: found,
) -> Callable[[object, ValidationInfo], tuple[T, ...]]:
    """A validator of a list at `path` whose items are each checked by `item`; all items'
    problems are reported, then `duplicate` items (by `key`) among those that passed."""

    def check(value: object, info: ValidationInfo) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise problem(f"expected a list of {what}, got {show(value)}")
        problems = Problems()
        if not value and empty:
            problems.add((), empty)
        found: list[tuple[int, T]] = []
        for i, entry in enumerate(value):
            result = problems.run(partial(item, entry, info), (i,))
            if result is not None:
                found.append((i, result))
        if duplicate:
            first: dict[object, int] = {}
            for i, result in found:
                seen = key(result)
                if seen in first:
                    problems.add(
                        (i,),
                        f"{duplicate} {show(seen)} is already given at {path}[{first[seen]}]",
                    )
                else:
                    first[seen] = i
        problems.raise_any()
        return tuple(result for _, result in found)

    return check


def plain(check: Callable[[object], T]) -> Callable[[object, ValidationInfo], T]:
    """A leaf validator as an item of `list_of`."""
    return lambda value, _info: check(value)


Whole = Annotated[int, PlainValidator(whole())]
Positive = Annotated[int, PlainValidator(whole(1))]
#: A game's move limit: at most what a replay holds, so that every kept replay reads back.
MoveLimit = Annotated[int, PlainValidator(whole(1, MAX_MOVES))]
Flag = Annotated[bool, PlainValidator(flag)]


def known(
    data: dict[Any, Any], allowed: Sequence[str], problems: Problems
) -> dict[str, object]:
    """The entries of a mapping under known keys; other keys are reported."""
    found: dict[str, object] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            problems.add((), f"keys must be text, got {show(key)}")
        elif key not in allowed:
            problems.add(
                (key,),
                f"unknown key{did_you_mean(key, allowed)}; expected one of " + ", ".join(allowed),
            )
        else:
            found[key] = value
    return found


# ---- mappings -----------------------------------------------------------------------------


class StrictMapping(BaseModel):
    """A mapping of a file: known keys only, each validated, every problem reported.

    Unknown keys are reported (with "did you mean") and the known ones validated all the same,
    so one run names every problem of the mapping. `null` for a key with a default means the
    default; a required key left out is reported with what it should hold (its field's
    description).
    """

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _known_keys(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise problem(f"expected a mapping, got {show(data)}")
        problems = Problems()
        given = {
            key: value
            for key, value in known(data, list(cls.model_fields), problems).items()
            if value is not None or cls.model_fields[key].is_required()
        }
        try:
            result = handler(given)
        except ValidationError as exc:
            for error in exc.errors():
                if error["type"] == "missing" and len(error["loc"]) == 1:
                    what = cls.model_fields[str(error["loc"][0])].description
                    problems.add(error["loc"], f"required: {what}")
                else:
                    problems.absorb_error(error)
            result = None
        problems.raise_any()
        return result
