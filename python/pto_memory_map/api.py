"""draw, load and check: typed calls over the ``pto-memory-map`` binary, which does all the work.

Keyword options are the option table's names (``x_axis``, ``zoom``, ``hide``, ``theme``, ...), read
from the binary (``pto-memory-map --list-options``) once per process, so Python holds no copy of the
table and a newer binary's options are accepted without a new Python release.
"""

from __future__ import annotations

import difflib
import functools
import html
import json
import math
import os
import secrets
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import PtoMemoryMapError, UsageError, error_from_json
from .model import CheckReport, MemoryMap

__all__ = ["Drawing", "draw", "load", "check", "code_quality", "options", "Option"]

PathLike = Union[str, "os.PathLike[str]"]

# Options that the command line takes but the table does not list (they choose the input rather
# than the view), with the keyword each is passed as.
_INPUT_FLAGS = {"pass_name": "--pass-name", "soc": "--soc"}
# Every run asks for its errors as one JSON object on standard error's last line (after the
# subcommand's name, where there is one).
_ERRORS = ["--error-format", "json"]


@dataclass(frozen=True)
class Option:
    """One row of the binary's option table."""

    name: str
    flag: Optional[str]
    kind: str
    help: str
    default: str
    repeatable: bool
    choices: Tuple[str, ...] = ()
    min: Optional[float] = None
    max: Optional[float] = None
    placeholder: str = ""


@dataclass(frozen=True)
class _Table:
    version: str
    options: Dict[str, Option]
    formats: Tuple[str, ...]


def _binary() -> str:
    from . import find_binary

    return find_binary()


@functools.lru_cache(maxsize=4)
def _table(binary: str) -> _Table:
    try:
        out = subprocess.run([binary, "--list-options"], capture_output=True, timeout=60, check=False)
    except OSError as err:
        raise PtoMemoryMapError(f"could not run {binary}: {err}") from err
    if out.returncode != 0:
        raise PtoMemoryMapError(
            f"{binary} --list-options failed ({out.stderr.decode(errors='replace').strip()}): "
            "this package needs the binary of its own release; reinstall pto-memory-map",
            exit_code=out.returncode,
        )
    data = _json(out.stdout, f"{binary} --list-options", [binary, "--list-options"])
    rows = {}
    for row in data["options"]:
        kind = row.get("kind", {})
        rows[row["name"]] = Option(
            name=row["name"],
            flag=row.get("cli"),
            kind=kind.get("type", "text"),
            help=row.get("help", ""),
            default=row.get("default", ""),
            repeatable=bool(row.get("repeatable")),
            choices=tuple(kind.get("choices", ())),
            min=kind.get("min"),
            max=kind.get("max"),
            placeholder=kind.get("placeholder", ""),
        )
    return _Table(version=data.get("version", ""), options=rows, formats=tuple(data.get("formats", ())))


def options() -> Dict[str, Option]:
    """The binary's option table, by keyword name: what ``draw`` and ``load`` accept."""
    return dict(_table(_binary()).options)


def _json(data: bytes, what: str, command: List[str]) -> Any:
    """The binary's JSON output, or this package's own error when it is not JSON (never a
    ``JSONDecodeError``): a binary of another release, or output cut short."""
    try:
        return json.loads(data)
    except ValueError as err:
        raise PtoMemoryMapError(
            f"{what} did not write JSON ({err}); this package needs the binary of its own release: "
            "reinstall pto-memory-map",
            command=command,
        ) from None


def _values(call: str, option: Option, value: Any) -> List[str]:
    """The command-line values for one keyword argument, checked against its row of the table."""
    items: List[Any] = [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        if not option.repeatable:
            raise UsageError(f"{call}: {option.name} takes one value, not {type(value).__name__} {value!r}")
        items = list(value)
    out = []
    for item in items:
        if option.kind == "switch":
            if not isinstance(item, bool):
                raise UsageError(f"{call}: {option.name}={item!r} is not True or False ({option.help})")
            out.append("yes" if item else "no")
            continue
        if option.kind == "number":
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                raise UsageError(f"{call}: {option.name}={item!r} is not a number ({option.help})")
            low = option.min if option.min is not None else -math.inf
            high = option.max if option.max is not None else math.inf
            if not (math.isfinite(item) and low <= item <= high):
                raise UsageError(f"{call}: {option.name}={item!r} is outside {low:g}..{high:g} ({option.help})")
            out.append(repr(float(item)) if isinstance(item, float) else str(item))
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise UsageError(f"{call}: {option.name}={item!r} is not text ({option.help})")
        text = os.fspath(item)
        if option.kind == "choice" and text.lower() not in option.choices:
            raise UsageError(f"{call}: {option.name}={text!r} is not one of {', '.join(option.choices)}")
        out.append(text)
    return out


def _option_args(call: str, table: _Table, kwargs: Mapping[str, Any]) -> List[str]:
    args: List[str] = []
    for name, value in kwargs.items():
        if value is None:
            continue
        option = table.options.get(name)
        if option is None:
            known = [n for n, o in table.options.items() if o.flag and n != "format"]
            near = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {near[0]}=? " if near else ""
            raise UsageError(f"{call} got an unknown option {name}=; {hint}the options are: {', '.join(known)}")
        if option.flag is None:
            raise UsageError(f"{call}: {name}= is an option of the HTTP service only ({option.help})")
        # `--flag=VALUE`: one word, so a value that starts with `-` is never read as a flag.
        for text in _values(call, option, value):
            args.append(f"{option.flag}={text}")
    return args


def _input_args(pass_name: Optional[str], soc: Union[PathLike, Sequence[PathLike], None]) -> List[str]:
    args: List[str] = []
    if pass_name is not None:
        args.append(f"{_INPUT_FLAGS['pass_name']}={pass_name}")
    if soc is not None:
        files = [soc] if isinstance(soc, (str, os.PathLike)) else list(soc)
        for f in files:
            args.append(f"{_INPUT_FLAGS['soc']}={os.fspath(f)}")
    return args


def _run(
    binary: str, args: List[str], timeout: Optional[float], ok: Sequence[int] = (0,)
) -> "subprocess.CompletedProcess[bytes]":
    command = [binary, *args]
    try:
        out = subprocess.run(command, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as err:
        raise PtoMemoryMapError(
            f"pto-memory-map took longer than {timeout} s and was stopped", command=command
        ) from err
    except OSError as err:
        raise PtoMemoryMapError(f"could not run {binary}: {err}", command=command) from err
    if out.returncode in ok:
        return out
    raise _error(out, command)


def _error(out: "subprocess.CompletedProcess[bytes]", command: List[str]) -> PtoMemoryMapError:
    """The exception for a failed run, from the JSON error the binary wrote last on standard error."""
    text = out.stderr.decode("utf-8", errors="replace")
    for line in reversed(text.splitlines()):
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and "code" in data:
            return error_from_json(data, exit_code=out.returncode, command=command)
    # No JSON error: the binary crashed or is not this release's.
    return PtoMemoryMapError(
        text.strip() or f"pto-memory-map failed (exit status {out.returncode})", exit_code=out.returncode, command=command
    )


def _png_size(data: bytes) -> Optional[Tuple[int, int]]:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@dataclass(frozen=True)
class Drawing:
    """A drawn map: its bytes in one format, and what the run said.

    A notebook displays it by itself: an SVG or PNG as the picture, an HTML page as the interactive
    page in a sandboxed frame (scripts run, but the page cannot reach the notebook, its cookies or
    its kernel). ``save(path)`` writes it to a file.
    """

    data: bytes = field(repr=False)
    format: str
    summary: str
    """The run's one-line summary: functions drawn, worst occupancy, findings."""
    notes: Tuple[str, ...] = ()
    """Other lines the binary wrote (hints such as why a picture is wide)."""
    source: str = ""
    """The path that was drawn."""
    scale: float = 2.0
    """The PNG's device pixel ratio (a PNG is shown at its size divided by this)."""
    frame_height: int = 720
    """Height in px of the frame a notebook shows the HTML page in."""

    @property
    def text(self) -> str:
        """The output as text (SVG, HTML, JSON, TXT); ``ValueError`` for a PNG."""
        if self.format == "png":
            raise ValueError("a PNG drawing is bytes, not text; use .data")
        return self.data.decode("utf-8")

    def save(self, path: PathLike) -> Path:
        """Writes the bytes to ``path`` (replacing a regular file there whole, never half-written).

        Refuses a path that is not a regular file (a folder, a device, a pipe) and the dump that was
        drawn: a map never takes the place of its input.
        """
        target = Path(path)
        if target.exists() and not target.is_file():
            raise UsageError(f"save({str(target)!r}): not a regular file; give a file name")
        if target.exists() and self.source:
            src = Path(self.source)
            inputs = [src] if src.is_file() else [p for p in src.rglob("*") if p.suffix in (".py", ".pto")]
            if any(p.is_file() and os.path.samefile(p, target) for p in inputs):
                raise UsageError(
                    f"save({str(target)!r}): that is the input dump; writing it would destroy it. "
                    "Choose another file name"
                )
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise UsageError(
                f"save({str(target)!r}): the folder {str(parent)!r} does not exist; create it first "
                "(os.makedirs) or save elsewhere"
            )
        # Made as any program makes a file (read and write for all, less the umask), so a map saved
        # for a web server is readable by it; mkstemp's 0600 would not be.
        temp = parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.data)
            os.replace(temp, target)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
        return target

    def _repr_svg_(self) -> Optional[str]:
        return self.text if self.format == "svg" else None

    def _repr_png_(self) -> Any:
        if self.format != "png":
            return None
        size = _png_size(self.data)
        if size is None or self.scale <= 0:
            return self.data
        # Shown at its CSS size, as the page would show it, rather than `scale` times as large.
        return self.data, {"width": round(size[0] / self.scale), "height": round(size[1] / self.scale)}

    def _repr_html_(self) -> Optional[str]:
        if self.format != "html":
            return None
        return self.iframe()

    def iframe(self, height: Optional[int] = None) -> str:
        """The HTML page in an ``<iframe srcdoc>`` sandboxed to run scripts only (no same origin,
        no forms, no popups, no navigation of the notebook)."""
        if self.format != "html":
            raise ValueError(f"a {self.format} drawing is not a page; draw it with format='html'")
        page = html.escape(self.text, quote=True)
        title = html.escape(f"memory map of {Path(self.source).name or 'a dump'}", quote=True)
        h = int(height or self.frame_height)
        return (
            f'<iframe title="{title}" sandbox="allow-scripts" '
            f'style="width:100%;height:{h}px;border:1px solid #ccc" srcdoc="{page}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<Drawing {self.format}, {len(self.data)} bytes: {self.summary}>"


def draw(
    path: PathLike,
    format: str = "svg",
    *,
    pass_name: Optional[str] = None,
    soc: Union[PathLike, Sequence[PathLike], None] = None,
    timeout: Optional[float] = None,
    **options: Any,
) -> Drawing:
    """Draws the memory map of a pass dump.

    ``path`` is a pass dump (``.py``), a ``passes_dump/`` folder or a case folder (PyPTO's
    ``compiled.output_dir``). ``format`` is ``svg`` (default), ``png``, ``html`` (the interactive
    page), ``json`` or ``txt``. ``options`` are the option table's keywords
    (:func:`options` lists them): ``backend="Ascend950"``, ``x_axis="used"``, ``zoom=2``,
    ``hide=["Bias"]``, ``function="qk_matmul"``, ``theme="dark"``, ``width=900``, ``scale=1``,
    ``fit="Vec=32KB@120-180"``, ``scale_mode="strict"``; ``pass_name`` picks the pass in a folder,
    ``soc`` adds chips described in files.

    Raises :class:`UsageError` for a wrong option (before running anything when the table can tell)
    and :class:`DumpError` when the dump cannot be drawn; both carry the binary's message and, when
    it names one, the dump's ``file:line:col``.
    """
    binary = _binary()
    table = _table(binary)
    fmt = str(format).lower()
    if fmt not in table.formats:
        raise UsageError(f"draw(): format={format!r} is not one of {', '.join(table.formats)}")
    src = os.fspath(path)
    # `--` ends the options: a path that starts with `-` is a path, never a flag.
    args = [*_ERRORS, "-f", fmt, "-o", "-", *_option_args("draw()", table, options), *_input_args(pass_name, soc)]
    args += ["--", src]
    out = _run(binary, args, timeout)
    lines = [line for line in out.stderr.decode("utf-8", errors="replace").splitlines() if line.strip()]
    summary = next((line for line in lines if line.startswith("drew ")), lines[-1] if lines else "")
    scale = options.get("scale")
    return Drawing(
        data=out.stdout,
        format=fmt,
        summary=summary,
        notes=tuple(line for line in lines if line != summary),
        source=src,
        scale=float(scale) if isinstance(scale, (int, float)) and not isinstance(scale, bool) else 2.0,
    )


def load(
    path: PathLike,
    *,
    pass_name: Optional[str] = None,
    soc: Union[PathLike, Sequence[PathLike], None] = None,
    timeout: Optional[float] = None,
    **options: Any,
) -> MemoryMap:
    """Reads a pass dump as data: its functions, their spaces and tiles, and the findings.

    Takes the same arguments as :func:`draw` (``backend=``, ``function=``, ``fit=`` matter here;
    the drawing options are accepted and do not change the data).
    """
    drawing = draw(path, "json", pass_name=pass_name, soc=soc, timeout=timeout, **options)
    return MemoryMap.from_json(_json(drawing.data, "pto-memory-map -f json", [_binary(), "-f", "json"]))


def check(
    path: PathLike,
    *,
    max_occupancy: Optional[float] = None,
    deny: Union[str, Sequence[str], None] = None,
    allow: Union[str, Sequence[str], None] = None,
    max_hwm: Union[Mapping[str, Union[int, str]], Sequence[str], str, None] = None,
    backend: Optional[str] = None,
    pass_name: Optional[str] = None,
    soc: Union[PathLike, Sequence[PathLike], None] = None,
    timeout: Optional[float] = None,
) -> CheckReport:
    """Checks a dump (or a tree of case folders) against a memory budget, as ``pto-memory-map check``.

    Error findings always fail; ``max_occupancy`` (percent, 0-100) fails a space fuller than that;
    ``deny`` adds ``"warnings"``, ``"notes"`` or codes to what fails; ``allow`` exempts codes;
    ``max_hwm`` caps spaces' high-water marks (``{"Vec": "96KB"}`` or ``{"Vec": 98304}``).

    Returns the :class:`CheckReport` whether or not the gate passed (see ``report.passed``, and
    ``report.violations`` for what failed it). Raises :class:`UsageError` for a wrong argument (an
    unknown code, a limit out of range) and :class:`DumpError` when a single dump cannot be read.
    """
    args = _check_args("json", "check", path, max_occupancy, deny, allow, max_hwm, backend, pass_name, soc)
    return CheckReport.from_json(_run_check(args, timeout))


def _run_check(args: List[str], timeout: Optional[float]) -> Any:
    """The JSON a ``check`` run writes: exit 1 with a report on standard output is a failed gate,
    not an error."""
    binary = _binary()
    out = _run(binary, args, timeout, ok=(0, 1))
    if out.returncode == 1 and not out.stdout.strip():
        raise _error(out, [binary, *args])
    return _json(out.stdout, f"pto-memory-map check --format {args[args.index('--format') + 1]}", [binary, *args])


def _check_args(
    fmt: str,
    caller: str,
    path: PathLike,
    max_occupancy: Optional[float],
    deny: Union[str, Sequence[str], None],
    allow: Union[str, Sequence[str], None],
    max_hwm: Union[Mapping[str, Union[int, str]], Sequence[str], str, None],
    backend: Optional[str],
    pass_name: Optional[str],
    soc: Union[PathLike, Sequence[PathLike], None],
) -> List[str]:
    """The arguments of ``pto-memory-map check --format FMT`` for :func:`check` and :func:`code_quality`."""
    args = ["check", *_ERRORS, "--format", fmt]
    if max_occupancy is not None:
        if isinstance(max_occupancy, bool) or not isinstance(max_occupancy, (int, float)):
            raise UsageError(f"{caller}(): max_occupancy={max_occupancy!r} is not a number (percent, 0-100)")
        if not (math.isfinite(max_occupancy) and 0 <= max_occupancy <= 100):
            raise UsageError(f"{caller}(): max_occupancy={max_occupancy!r} is outside 0..100 (percent of capacity)")
        args.append(f"--max-occupancy={max_occupancy}")
    for flag, name, value in (("--deny", "deny", deny), ("--allow", "allow", allow)):
        for item in [value] if isinstance(value, str) else list(value or ()):
            if not isinstance(item, str) or not item:
                raise UsageError(f"{caller}(): {name}={item!r} is not a code, 'warnings' or 'notes'")
            args.append(f"{flag}={item}")
    if isinstance(max_hwm, Mapping):
        caps = [f"{space}={limit}" for space, limit in max_hwm.items()]
    else:
        caps = [max_hwm] if isinstance(max_hwm, str) else list(max_hwm or ())
    for cap in caps:
        args.append(f"--max-hwm={cap}")
    if backend is not None:
        args.append(f"--backend={backend}")
    args += [*_input_args(pass_name, soc), "--", os.fspath(path)]
    return args


def code_quality(
    path: PathLike,
    *,
    max_occupancy: Optional[float] = None,
    deny: Union[str, Sequence[str], None] = None,
    allow: Union[str, Sequence[str], None] = None,
    max_hwm: Union[Mapping[str, Union[int, str]], Sequence[str], str, None] = None,
    backend: Optional[str] = None,
    pass_name: Optional[str] = None,
    soc: Union[PathLike, Sequence[PathLike], None] = None,
    timeout: Optional[float] = None,
) -> List[Dict[str, Any]]:
    """The GitLab Code Quality entries of :func:`check` with the same arguments: the binary's
    ``check --format codequality`` (paths relative to the working folder), whether or not the gate
    passed."""
    args = _check_args(
        "codequality", "code_quality", path, max_occupancy, deny, allow, max_hwm, backend, pass_name, soc
    )
    return list(_run_check(args, timeout))
