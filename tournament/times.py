"""Times as submissions and deadlines give them, and as the manifest writes them.

A deadline without a time zone means something else on every machine that reads it (and in
every season), so a deadline must say its offset (`+01:00`) or `Z`; submission times from an
export are read with the offset the export writes (Gradescope's Ruby-style
`2024-03-01 21:15:04.930736000 -08:00`). Everything is compared and written in UTC, to the
second: the manifest's `2024-03-01T12:00:00Z`.
"""

from __future__ import annotations

import datetime as dt
import math
import re

UTC = dt.timezone.utc

#: A date and a time of day, an optional fraction of a second and an optional zone: ISO 8601
#: (`2024-03-01T12:00:00+01:00`, `...Z`) and what Ruby's YAML writes
#: (`2024-03-01 12:00:00.123456789 +01:00`).
_TIME = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d{1,9}))?)?"
    r"\s*(?P<zone>Z|UTC|[+-]\d{2}:?\d{2})?"
)


class TimeProblem(ValueError):
    """A time that cannot be read; the message says what was expected."""


def parse_time(text: str, *, zone_required: bool = True) -> dt.datetime:
    """The instant `text` names, in UTC. Without a zone it is a TimeProblem, unless
    `zone_required` is False (then it is read as UTC)."""
    match = _TIME.fullmatch(text.strip())
    if not match:
        raise TimeProblem(f"{text!r} is not a time: expected ISO 8601 such as "
                          "2024-03-01T23:59:00+01:00 or 2024-03-01T22:59:00Z")
    zone = match["zone"]
    if zone is None and zone_required:
        raise TimeProblem(f"{text!r} has no time zone: add Z (UTC) or an offset such as "
                          "+01:00, so that it means the same instant everywhere")
    try:
        day = dt.date.fromisoformat(match["date"])
        fraction = (match["fraction"] or "").ljust(6, "0")[:6]
        moment = dt.datetime(day.year, day.month, day.day, int(match["hour"]),
                             int(match["minute"]), int(match["second"] or 0), int(fraction))
    except ValueError as exc:
        raise TimeProblem(f"{text!r} is not a time: {exc}") from None
    if zone in (None, "Z", "UTC"):
        return moment.replace(tzinfo=UTC)
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise TimeProblem(f"{text!r} has an impossible offset {zone}")
    offset = dt.timedelta(hours=hours, minutes=minutes) * sign
    return moment.replace(tzinfo=dt.timezone(offset)).astimezone(UTC)


def from_timestamp(seconds: float) -> dt.datetime:
    """A file's modification time (seconds since the epoch) as a UTC instant."""
    return dt.datetime.fromtimestamp(seconds, UTC)


def utc_text(moment: dt.datetime) -> str:
    """`moment` as the manifest writes times: UTC, to the second, `2024-03-01T12:00:00Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def duration_text(seconds: float) -> str:
    """A lateness in words for people, the one wording of the manifest's, the report's and the
    marks' reasons: `3 d 2 h 05 min`, `2 h 05 min`, `4 min 10 s`, `40 s` ('' for a number that
    is not finite: a manifest is JSON, which lets `Infinity` through)."""
    if not math.isfinite(seconds):
        return ""
    whole = max(0, round(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h {minutes:02d} min"
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
