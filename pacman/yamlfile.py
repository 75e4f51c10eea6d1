"""The one reader of YAML files: plain data only, bounded, errors that name file and line.

Teams write `team.yaml`, organizers write tournament configs and weight files. PyYAML's
`safe_load` is safe against code execution but not against the file: an alias bomb
(`a: &a [*a, *a, ...]` nested ten deep) expands to billions of items once anything walks the
result, nesting ten thousand deep overflows the composer's recursion (RecursionError), a
5,000-digit number fails in `int()` (ValueError), and tags or implicit types turn text into
dates. None of those is a YAML error, so callers that catch `yaml.YAMLError` crashed.

`load_yaml` reads the file with `pacman.files.read_text_bounded` (a regular file, at most a
size cap, no link when asked) and parses it with PyYAML's own machinery, a `SafeLoader`
subclass that checks each event as the composer takes it:
- no anchors or aliases (`&name`, `*name`): nothing here needs them, and refusing them at
  the first one means no expansion is ever built;
- no explicit tags (`!!str`, `!!python/...`, `!local`): quoting says "text" already;
- lists and mappings nested at most `max_depth` levels (the top one is the first), checked
  before descending, so the composer's recursion stays bounded;
- scalars resolve only to text, whole numbers (at most 2**63 - 1 in size), decimal numbers
  (with an exponent as YAML 1.2 reads them: `1e308` is a number, not text), true/false and
  null; what YAML 1.1 would read as a date or a merge key (`<<`) stays text;
- mapping keys are plain values, each given once.

Anything else in the file raises `YamlProblem` (file, line, column, what is wrong); nothing
an author writes raises anything else.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pacman.files import FileProblem, read_text_bounded


@dataclass(frozen=True)
class YamlLimits:
    """How big and how deep a file may be. Generous for what each file really holds."""

    max_bytes: int
    max_depth: int


#: A team's own files (team.yaml): a few keys, two or three levels.
TEAM_FILE = YamlLimits(max_bytes=64 * 1024, max_depth=8)
#: The organizer's files (tournament configs, weights): a config is five levels deep and a
#: few kilobytes; a long list of baselines still fits easily.
ORGANIZER_FILE = YamlLimits(max_bytes=1024 * 1024, max_depth=32)

#: The largest whole number accepted (int64): ids, seeds and counts all fit.
_LARGEST = 2**63 - 1
#: Implicit types a plain scalar may resolve to; anything else (dates, merge keys, the `=`
#: value key) stays text.
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "null")
)


class YamlProblem(ValueError):
    """A YAML file that is not plain, bounded data. `detail` is the message without the file;
    `line` and `column` are 1-based, None when the problem has no place (a file too big)."""

    def __init__(self, path: str, problem: str, line: int | None = None,
                 column: int | None = None) -> None:
        self.path = path
        self.problem = problem
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line is not None else ""
        self.detail = f"{where}{problem}"
        super().__init__(f"{path}: {self.detail}")

    def __reduce__(self) -> tuple[type[YamlProblem], tuple[str, str, int | None, int | None]]:
        # Rebuilt from its parts, so that it survives a trip to another process (pickle).
        return type(self), (self.path, self.problem, self.line, self.column)


class _Refused(yaml.MarkedYAMLError):
    """A check of ours failed at a place in the file."""


def _refused(problem: str, where: Any) -> _Refused:
    """Our refusal, placed where `where` (an event or a node) starts in the file."""
    return _Refused(problem=problem, problem_mark=where.start_mark)


class _PlainLoader(yaml.SafeLoader):
    """SafeLoader that composes plain data only; see the module's docstring for the rules."""

    def __init__(self, stream: str, max_depth: int) -> None:
        super().__init__(stream)
        self.max_depth = max_depth
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise _refused("an alias (*name) is not allowed here: write the value out", event)
        if getattr(event, "anchor", None) is not None:
            raise _refused("an anchor (&name) is not allowed here: write the value out", event)
        if getattr(event, "tag", None) is not None:
            tag = str(event.tag).replace("tag:yaml.org,2002:", "!!")
            raise _refused(f"a tag ({tag}) is not allowed here: quote the value to make it "
                           "text", event)
        if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            return super().compose_node(parent, index)
        if self._depth >= self.max_depth:
            raise _refused(f"nested more than {self.max_depth} levels deep", event)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _refused("a key must be a plain value, not a list or mapping", key_node)
            if key_node.value in seen:  # YAML requires unique keys; PyYAML keeps the last
                raise yaml.constructor.ConstructorError(
                    problem=f"the key {key_node.value!r} is given twice",
                    problem_mark=key_node.start_mark)
            seen.add(key_node.value)
        return super().construct_mapping(node, deep)

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        try:
            value = super().construct_yaml_int(node)
        except ValueError:
            value = _LARGEST + 1  # more digits than int() converts: far too large anyway
        if abs(value) > _LARGEST:
            raise _refused(f"a whole number larger than {_LARGEST}", node)
        return value


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag in _PLAIN_TAGS]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_PlainLoader.add_constructor("tag:yaml.org,2002:int", _PlainLoader.construct_bounded_int)
#: A number with an exponent but no sign in it or no decimal point (`1e308`, `2.5e3`), which
#: YAML 1.1 reads as text while YAML 1.2 and every author read a number. Tried after PyYAML's
#: own resolvers, so it only claims what they left as text.
_EXPONENT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")
_PlainLoader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT,
                                   list("-+.0123456789"))


def parse_yaml(text: str, source: str, limits: YamlLimits = ORGANIZER_FILE) -> Any:
    """Plain data from YAML text; `source` names it in errors. Raises only YamlProblem."""
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise YamlProblem(source, f"more than the {limits.max_bytes} bytes allowed")
    loader: _PlainLoader | None = None
    try:
        loader = _PlainLoader(text, limits.max_depth)  # checks the characters first
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        if not isinstance(exc, _Refused):
            what = f"invalid YAML: {what}"
        if mark is None:
            raise YamlProblem(source, what) from None
        raise YamlProblem(source, what, mark.line + 1, mark.column + 1) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise YamlProblem(source, f"character #x{exc.character:04x} is not allowed in YAML "
                          f"({exc.reason})", line, column) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(source, f"invalid YAML: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()


def load_yaml(path: Path, limits: YamlLimits = ORGANIZER_FILE, follow_links: bool = True) -> Any:
    """Plain data from a YAML file (None for an empty one). Raises only YamlProblem.

    `follow_links=False` refuses a file that is a symbolic link (a team's file must be its
    own); a missing file, a folder, a fifo or a device are problems too.
    """
    try:
        text = read_text_bounded(path, limits.max_bytes, follow_links)
    except FileProblem as exc:
        raise YamlProblem(str(path), str(exc).removeprefix(f"{path}: ")) from None
    return parse_yaml(text, str(path), limits)
