"""Every code block of README.md and docs/ runs as written.

The `sh` blocks run in bash (-e, pipefail) with the installed wheel's `pto-memory-map` first on
PATH; the `python` blocks run in this environment's Python, where the wheel's package is
installed. Both run in a scratch folder laid out as the blocks assume a reader's is: the bundled
example as `examples/`, a case as `build_output/my_case` (a second one beside it), the example
before and after a change as `base/` and `head/`. A Python block finds `compiled` (PyPTO's compile
result, whose `output_dir` is the case folder) and `path` bound to that case, as in the reader's
session the text describes.

A block that cannot run here says so in an HTML comment right above it, with the reason:
`<!-- docs-blocks: not run: REASON -->`; one whose last command is meant to fail gives its exit
status: `<!-- docs-blocks: exit 1: REASON -->`. Blocks in other languages (JSON, Markdown, the
untagged synopses) are not programs and are not run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest

import pto_memory_map as pmm

from conftest import ROOT

RUN = {"sh": "sh", "bash": "sh", "console": "sh", "python": "python", "py": "python"}
MARK = re.compile(r"^<!-- docs-blocks: (not run|exit (\d+)): (.+?) -->$")


@dataclass
class Block:
    file: str
    line: int
    language: str
    code: str
    skip: Optional[str]
    exit: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def blocks() -> List[Block]:
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text().splitlines()
        i = 0
        while i < len(lines):
            fence = re.match(r"^```(\w*)\s*$", lines[i])
            if not fence:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            language = RUN.get(fence.group(1).lower())
            if language:
                # The mark is among the HTML comments right above the fence.
                above = i - 1
                mark = None
                while above >= 0 and lines[above].strip().startswith("<!--") and not mark:
                    mark = MARK.match(lines[above].strip())
                    above -= 1
                skip = mark.group(3) if mark and mark.group(1) == "not run" else None
                status = int(mark.group(2)) if mark and mark.group(2) else 0
                rel = str(doc.relative_to(ROOT))
                found.append(Block(rel, i + 1, language, "\n".join(lines[i + 1 : end]), skip, status))
            i = end + 1
    return found


BLOCKS = blocks()


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "examples" / "demo_case", tmp_path / "build_output" / "my_case")
    shutil.copytree(ROOT / "tests" / "fixtures" / "fx_a5_case", tmp_path / "build_output" / "mx")
    shutil.copytree(ROOT / "examples" / "demo_case", tmp_path / "base")
    shutil.copytree(ROOT / "examples" / "demo_change", tmp_path / "head")
    return tmp_path


PRELUDE = """\
from types import SimpleNamespace
compiled = SimpleNamespace(output_dir="build_output/my_case")
path = "build_output/my_case"
"""


def test_the_docs_have_blocks_that_run_and_every_skip_says_why():
    ran = [b for b in BLOCKS if b.skip is None]
    assert len(ran) >= 6, [str(b) for b in ran]
    assert {b.language for b in ran} == {"sh", "python"}
    for b in BLOCKS:
        assert b.skip is None or len(b.skip) > 20, f"{b}: say why the block cannot run here"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None], ids=str)
def test_the_block_runs_as_written(block: Block, scratch: Path):
    binary_dir = Path(pmm.find_binary()).parent
    env = {"PATH": f"{binary_dir}:{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(scratch)}
    if block.language == "sh":
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", block.code]
    else:
        command = [sys.executable, "-c", PRELUDE + block.code]
    run = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == block.exit, f"{block} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    # Nothing a block says on standard error is an error of the tool, except where it must fail.
    if block.exit == 0:
        assert "error:" not in run.stderr and "Traceback" not in run.stderr, f"{block}:\n{run.stderr}"
