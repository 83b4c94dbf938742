"""The errors the Python API raises, built from the binary's JSON error (``--error-format json``).

The binary says what went wrong as data: a ``code`` (its kind), the place in the dump it points at
(``file``, ``line``, ``column``), the ``message`` and a ``remedy``. This module reads those fields;
it never looks inside the message's words.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

__all__ = ["PtoMemoryMapError", "UsageError", "DumpError", "error_from_json"]


class PtoMemoryMapError(Exception):
    """A run of ``pto-memory-map`` that did not produce what was asked.

    ``code`` is the kind of error (``usage``, ``not_found``, ``unreadable``, ``nothing_to_draw``,
    ``too_large``, ``io``, ``over_limit``, ``cancelled``; ``None`` when the binary gave no JSON
    error, such as when it could not be run), ``message`` what went wrong and ``remedy`` what to do;
    ``file``, ``line`` and ``column`` locate it in the dump when it points into one; ``exit_code`` is
    the binary's status (``None`` when Python refused the call before running it) and ``command``
    the argument list it ran with.
    """

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        remedy: Optional[str] = None,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        exit_code: Optional[int] = None,
        command: Optional[Sequence[str]] = None,
    ) -> None:
        self.message = message
        self.code = code
        self.remedy = remedy
        self.file = file
        self.line = line
        self.column = column
        self.exit_code = exit_code
        self.command = list(command) if command is not None else None
        where = self.location
        super().__init__(f"{where}: {message}" if where else message)

    @property
    def location(self) -> Optional[str]:
        """``file:line:col`` (or ``file:line``) when the binary named a place, else ``None``."""
        if self.file is None or self.line is None:
            return None
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column is not None else "")


class UsageError(PtoMemoryMapError, ValueError):
    """The call itself is wrong: an unknown option, a value out of range, a space the dump lacks.

    The binary exits 2 for these (code ``usage``); the API raises the same class for what it can
    tell before running the binary (keyword arguments checked against the option table).
    """


class DumpError(PtoMemoryMapError):
    """The dump could not be drawn: missing, unreadable, not valid Python, nothing bound to on-chip
    memory, over a work limit (see ``code``)."""


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def error_from_json(
    data: Mapping[str, Any], *, exit_code: Optional[int], command: Optional[Sequence[str]]
) -> PtoMemoryMapError:
    """The exception for one JSON error of the binary: :class:`UsageError` for code ``usage``,
    :class:`DumpError` for the others."""
    code = data.get("code")
    cls = UsageError if code == "usage" else DumpError
    text = lambda key: data.get(key) if isinstance(data.get(key), str) else None  # noqa: E731
    return cls(
        text("message") or f"pto-memory-map failed (exit status {exit_code})",
        code=code if isinstance(code, str) else None,
        remedy=text("remedy"),
        file=text("file"),
        line=_int(data.get("line")),
        column=_int(data.get("column")),
        exit_code=exit_code,
        command=command,
    )
