"""Untrusted agents in their own processes, with limits the referee enforces.

`limits` (the Limits value and its bookkeeping), `wire` (the line protocol), `confine` (the
layers a child applies to itself), `cgroup` (memory and process caps from outside),
`child` (the sandboxed side) and `process` (the referee's side: `SandboxedHandle`).
"""
