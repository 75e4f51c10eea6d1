"""How long and how much memory reading a Gradescope export's metadata takes (printed, never
asserted; see docs/collect.md for the numbers).

`tournament collect` reads `submission_metadata.yml` with the platform's one YAML reader
(`pacman.yamlfile`, PyYAML's pure-Python composer with checks per event), capped at
`tournament.sources.GRADESCOPE_LIMITS`. This writes a metadata file of N submissions, each
with T autograder results, and times reading it, to say what the cap costs at most.

Run: `python benchmarks/gradescope_metadata.py [--submissions 500] [--tests 30]`.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from pacman.yamlfile import load_yaml
from tournament.sources import GRADESCOPE_LIMITS


def metadata(submissions: int, tests: int) -> str:
    """A metadata file as Gradescope writes one (Ruby symbols as keys, Ruby times)."""
    parts = []
    for i in range(submissions):
        results = "".join(
            f"      - :name: test {j}\n        :score: 1.0\n        :max_score: 1.0\n"
            f"        :output: '{'x' * 120}'\n" for j in range(tests))
        parts.append(
            f"submission_{100000 + i}:\n  :submitters:\n  - :name: Student {i}\n"
            f"    :sid: '{i}'\n    :email: s{i}@example.edu\n"
            "  :created_at: 2024-03-01 09:00:00.123456789 -08:00\n  :score: 10.0\n"
            f"  :results:\n    :tests:\n{results}  :history: []\n")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=500)
    parser.add_argument("--tests", type=int, default=30)
    options = parser.parse_args()
    text = metadata(options.submissions, options.tests)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "submission_metadata.yml"
        path.write_text(text)
        cpu = time.process_time()
        data = load_yaml(path, GRADESCOPE_LIMITS)
        cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    megabytes = len(text.encode()) / 1e6
    print(f"{megabytes:.1f} MB, {len(data)} submissions: {cpu:.1f} s of CPU "
          f"({cpu / megabytes:.1f} s per MB), peak memory {peak:.0f} MiB; the cap is "
          f"{GRADESCOPE_LIMITS.max_bytes // (1024 * 1024)} MiB")


if __name__ == "__main__":
    main()
