"""``python -m pto_memory_map.codequality CHECK.json``: a ``check --format json`` report as a GitLab
Code Quality report (on standard output), so the findings show in a merge request's widget.

Each finding becomes one entry at its dump line; paths are made relative to the working directory
(the project's checkout in a CI job). Severities map error to ``major`` (``critical`` when it failed
the gate), warning to ``minor`` and note to ``info``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any, Dict, List, Mapping, Optional

__all__ = ["code_quality"]

_SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def _relative(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _entries(
    dump: str, findings: List[Mapping[str, Any]], violations: List[Mapping[str, Any]], case: str
) -> List[Dict[str, Any]]:
    failing = {json.dumps(v, sort_keys=True) for v in violations}
    out = []
    for f in findings + [v for v in violations if v not in findings]:
        where = ": ".join(str(p) for p in (case or None, f.get("function"), f.get("space")) if p)
        description = f"{where + ': ' if where else ''}{f.get('message', '')}"
        key = "\0".join(
            str(x) for x in (dump, f.get("code"), f.get("function"), f.get("space"), f.get("tiles"), f.get("message"))
        )
        severity = _SEVERITY.get(str(f.get("severity")), "info")
        if json.dumps(f, sort_keys=True) in failing and severity != "info":
            severity = "critical"
        out.append(
            {
                "description": description,
                "check_name": f"pto-memory-map/{f.get('code', 'finding')}",
                "fingerprint": hashlib.sha256(key.encode()).hexdigest(),
                "severity": severity,
                "location": {"path": _relative(dump), "lines": {"begin": int(f.get("line") or 1)}},
            }
        )
    return out


def code_quality(report: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The Code Quality entries for a ``check --format json`` report (one dump or a tree of cases)."""
    entries: List[Dict[str, Any]] = []
    if "cases" in report:
        for case in report.get("cases", []):
            entries += _entries(
                case.get("dump", ""), case.get("findings", []), case.get("violations", []), case.get("case", "")
            )
        for bad in report.get("unreadable", []):
            entries += _entries(
                bad.get("path", ""),
                [{"code": "unreadable", "severity": "error", "message": bad.get("error", "")}],
                [],
                bad.get("case", ""),
            )
    else:
        entries += _entries(report.get("dump", ""), report.get("findings", []), report.get("violations", []), "")
    # One entry per fingerprint: GitLab drops repeats anyway, and keeps the first.
    seen, unique = set(), []
    for e in entries:
        if e["fingerprint"] not in seen:
            seen.add(e["fingerprint"])
            unique.append(e)
    return unique


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(
            "usage: python -m pto_memory_map.codequality CHECK.json"
            "  (from `pto-memory-map check --format json`; - for stdin)",
            file=sys.stderr,
        )
        return 2
    try:
        if args[0] == "-":
            text = sys.stdin.read()
        else:
            with open(args[0], encoding="utf-8") as f:
                text = f.read()
        report = json.loads(text)
    except (OSError, ValueError) as err:
        print(f"error: {args[0]}: {err}", file=sys.stderr)
        return 1
    json.dump(code_quality(report), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
