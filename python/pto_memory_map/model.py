"""The map as data: dataclasses read from the binary's JSON (``-f json`` and ``check --format json``).

Only the fields listed here are read; a field a newer binary adds is ignored rather than refused,
and one it drops takes its default, so these classes keep working across versions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Type, TypeVar

__all__ = [
    "Backend",
    "Finding",
    "Peak",
    "LiveTile",
    "FreeRange",
    "Space",
    "Tile",
    "Function",
    "MemoryMap",
    "CheckReport",
    "CaseReport",
]

T = TypeVar("T")


def _build(cls: Type[T], data: Any, nested: Optional[Mapping[str, Any]] = None) -> T:
    """``cls`` from the keys of ``data`` that it declares; ``nested`` builds fields holding objects."""
    if not isinstance(data, Mapping):
        data = {}
    nested = nested or {}
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        make = nested.get(f.name)
        if make is not None and value is not None:
            value = [make(v) for v in value] if isinstance(value, list) else make(value)
        kwargs[f.name] = value
    return cls(**kwargs)


@dataclass
class Finding:
    """Something the analysis found: an overflow, a conflict, a space near full, an idle tile...

    ``severity`` is ``error``, ``warning`` or ``note``; ``code`` names the rule
    (``pto-memory-map explain CODE`` says what it means); ``line`` is the dump line it points at.
    """

    code: str = ""
    severity: str = ""
    message: str = ""
    remedy: str = ""
    function: Optional[str] = None
    space: Optional[str] = None
    tiles: List[str] = field(default_factory=list)
    line: Optional[int] = None
    lines: List[int] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any) -> "Finding":
        return _build(cls, data)

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.function, self.space, f"L{self.line}" if self.line else None) if p)
        return f"{where + ': ' if where else ''}{self.code}: {self.message}"


@dataclass
class Backend:
    """The chip whose capacities scale the lanes, and how it was chosen."""

    name: str = ""
    arch: str = ""
    detected: bool = False
    source: Optional[str] = None
    capacities: Dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any) -> "Backend":
        return _build(cls, data)


@dataclass
class LiveTile:
    """One tile live at a space's peak."""

    name: str = ""
    offset: int = 0
    size: int = 0

    @classmethod
    def from_json(cls, data: Any) -> "LiveTile":
        return _build(cls, data)


@dataclass
class Peak:
    """The line where a space holds the most bytes, and what is live there."""

    bytes: int = 0
    line: Optional[int] = None
    live: List[LiveTile] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any) -> "Peak":
        return _build(cls, data, {"live": LiveTile.from_json})


@dataclass
class FreeRange:
    """A free byte range of a space."""

    offset: int = 0
    size: int = 0

    @classmethod
    def from_json(cls, data: Any) -> "FreeRange":
        return _build(cls, data)


@dataclass
class Space:
    """One on-chip memory space of a function (Vec, Mat, Left, Right, Acc, Bias, ...).

    ``hwm`` is the high-water mark (highest byte bound, offset + size) and ``limit`` the capacity,
    both in bytes.
    """

    space: str = ""
    hwm: int = 0
    limit: int = 0
    tiles: int = 0
    bases: int = 0
    headroom: Optional[int] = None
    peak: Optional[Peak] = None
    largest_free: Optional[FreeRange] = None

    @property
    def occupancy(self) -> float:
        """The high-water mark as a share of the capacity (1.0 is full; above is an overflow)."""
        return self.hwm / self.limit if self.limit else 0.0

    @classmethod
    def from_json(cls, data: Any) -> "Space":
        return _build(cls, data, {"peak": Peak.from_json, "largest_free": FreeRange.from_json})


@dataclass
class Tile:
    """A tile bound to on-chip memory: its bytes ``[offset, offset + size)`` of ``space`` over dump
    lines ``start..end``."""

    name: str = ""
    space: str = ""
    base: str = ""
    offset: int = 0
    size: int = 0
    shape: List[Any] = field(default_factory=list)
    dtype: Optional[str] = None
    op: Optional[str] = None
    start: int = 0
    end: int = 0
    uses: List[int] = field(default_factory=list)
    conflict: bool = False

    @classmethod
    def from_json(cls, data: Any) -> "Tile":
        return _build(cls, data)


@dataclass
class Function:
    """One compute function of the dump (AIC, AIV or InCore) with its spaces and tiles."""

    name: str = ""
    ftype: str = ""
    src_start: int = 0
    src_end: int = 0
    spaces: List[Space] = field(default_factory=list)
    boxes: List[Tile] = field(default_factory=list)
    source: List[str] = field(default_factory=list, repr=False)

    def space(self, name: str) -> Space:
        """The space called ``name`` (``KeyError`` naming the spaces there are if none is)."""
        for s in self.spaces:
            if s.space == name:
                return s
        raise KeyError(f"no space {name!r} in {self.name}; its spaces are: {', '.join(s.space for s in self.spaces)}")

    @classmethod
    def from_json(cls, data: Any) -> "Function":
        return _build(cls, data, {"spaces": Space.from_json, "boxes": Tile.from_json})


@dataclass
class MemoryMap:
    """A drawn dump as data: what ``pto-memory-map PATH -f json`` writes.

    ``raw`` keeps the whole JSON document, for fields these classes do not declare.
    """

    dump: str = ""
    pass_name: str = ""
    backend: Backend = field(default_factory=Backend)
    functions: List[Function] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    def function(self, name: str) -> Function:
        """The function called ``name`` (``KeyError`` naming the functions there are if none is)."""
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(f"no function {name!r}; the functions are: {', '.join(f.name for f in self.functions)}")

    @classmethod
    def from_json(cls, data: Any) -> "MemoryMap":
        out = _build(
            cls,
            data,
            {"backend": Backend.from_json, "functions": Function.from_json, "findings": Finding.from_json},
        )
        out.raw = dict(data) if isinstance(data, Mapping) else {}
        return out


@dataclass
class CaseReport:
    """One case of a checked tree (a ``build_output/`` of case folders)."""

    case: str = ""
    dump: str = ""
    passed: bool = True
    functions: int = 0
    findings: List[Finding] = field(default_factory=list)
    violations: List[Finding] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any) -> "CaseReport":
        return _build(cls, data, {"findings": Finding.from_json, "violations": Finding.from_json})


@dataclass
class CheckReport:
    """What ``check`` found.

    ``passed`` is the gate's verdict; ``violations`` are the findings that failed it (errors always,
    plus what ``deny`` and the limits add) and ``findings`` all of them. For a tree of cases,
    ``cases`` holds each case's report (findings and violations are then every case's, in order)
    and ``unreadable`` the cases that could not be read, each with its error.
    """

    passed: bool = True
    dump: str = ""
    findings: List[Finding] = field(default_factory=list)
    violations: List[Finding] = field(default_factory=list)
    cases: List[CaseReport] = field(default_factory=list)
    unreadable: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Any) -> "CheckReport":
        out = _build(
            cls,
            data,
            {"findings": Finding.from_json, "violations": Finding.from_json, "cases": CaseReport.from_json},
        )
        if out.cases and not out.findings and not out.violations:
            out.findings = [f for c in out.cases for f in c.findings]
            out.violations = [f for c in out.cases for f in c.violations]
        if not out.dump and isinstance(data, Mapping):
            out.dump = str(data.get("root", ""))
        out.raw = dict(data) if isinstance(data, Mapping) else {}
        return out

    def messages(self) -> List[str]:
        """One line per violation (and per unreadable case), as a failed gate reports them."""
        lines: List[str] = []
        if self.cases:
            for c in self.cases:
                lines.extend(f"{c.case}: {v}" for v in c.violations)
        else:
            lines.extend(str(v) for v in self.violations)
        lines.extend(f"{u.get('case', '?')}: {u.get('error', 'unreadable')}" for u in self.unreadable)
        return lines
