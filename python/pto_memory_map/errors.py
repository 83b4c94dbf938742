"""The errors the Python API raises: the binary's own message, with its ``file:line:col`` split out."""

from __future__ import annotations

import re
from typing import Optional, Sequence

__all__ = ["PtoMemoryMapError", "UsageError", "DumpError"]

# "path/to/dump.py:16:9: not valid Python: ..." (column optional), as the binary starts a message
# that points into a file.
_LOCATION = re.compile(r"^(?P<file>[^\s:][^:\n]*?):(?P<line>\d+)(?::(?P<column>\d+))?: (?P<rest>.*)$", re.S)


class PtoMemoryMapError(Exception):
    """A run of ``pto-memory-map`` that did not produce what was asked.

    ``message`` is the binary's message (flags renamed to the keyword arguments that set them);
    ``file``, ``line`` and ``column`` locate it in the dump when the binary names a place;
    ``exit_code`` is the binary's status (``None`` when Python refused the call before running it)
    and ``command`` the argument list it ran with.
    """

    def __init__(
        self,
        message: str,
        *,
        exit_code: Optional[int] = None,
        command: Optional[Sequence[str]] = None,
    ) -> None:
        self.message = message
        self.exit_code = exit_code
        self.command = list(command) if command is not None else None
        self.file: Optional[str] = None
        self.line: Optional[int] = None
        self.column: Optional[int] = None
        found = _LOCATION.match(message)
        if found:
            self.file = found["file"]
            self.line = int(found["line"])
            self.column = int(found["column"]) if found["column"] else None
        super().__init__(message)

    @property
    def location(self) -> Optional[str]:
        """``file:line:col`` (or ``file:line``) when the binary named a place, else ``None``."""
        if self.file is None:
            return None
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column is not None else "")


class UsageError(PtoMemoryMapError, ValueError):
    """The call itself is wrong: an unknown option, a value out of range, a space the dump lacks.

    The binary exits 2 for these; the API raises the same class for what it can tell before
    running the binary (keyword arguments checked against the option table).
    """


class DumpError(PtoMemoryMapError):
    """The dump could not be drawn: unreadable, not valid Python, nothing bound to on-chip memory."""
