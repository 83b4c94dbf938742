"""draw, load and check over the installed binary, and the errors they raise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pto_memory_map as pmm
from conftest import ROOT


def test_the_installed_package_uses_the_installed_binary():
    binary = Path(pmm.find_binary())
    assert binary.name.startswith("pto-memory-map")
    # The wheel's own binary, in this environment's scripts folder, not one from the repo's build.
    assert Path(os.path.abspath(binary)).parent == Path(os.path.abspath(sys.executable)).parent


def test_the_package_is_the_installed_wheel_and_typed():
    package = Path(pmm.__file__).parent
    assert "site-packages" in package.parts, f"testing {package}, not the installed wheel"
    assert (package / "py.typed").is_file()
    assert pmm.draw.__doc__ and pmm.load.__doc__ and pmm.check.__doc__ and pmm.assert_fits.__doc__


def test_options_come_from_the_binarys_table():
    table = json.loads(subprocess.run([pmm.find_binary(), "--list-options"], capture_output=True, check=True).stdout)
    names = {row["name"] for row in table["options"]}
    opts = pmm.options()
    assert set(opts) == names
    assert opts["zoom"].kind == "number" and (opts["zoom"].min, opts["zoom"].max) == (0.2, 64.0)
    assert opts["theme"].choices == ("light", "dark")
    assert opts["hide"].repeatable and opts["hide"].flag == "--hide"
    # Read from the binary once per process, however many calls follow.
    from pto_memory_map import api

    pmm.draw(ROOT / "examples" / "demo_case", "txt")
    pmm.options()
    assert api._table.cache_info().misses == 1


def test_draw_svg_is_the_picture_with_the_runs_summary(demo_case):
    d = pmm.draw(demo_case)
    assert d.format == "svg"
    assert d.text.startswith("<svg") and d.text.rstrip().endswith("</svg>")
    assert "qk_matmul" in d.text and "row_softmax" in d.text
    assert d.summary.startswith("drew 2 functions of 32_after_AllocateMemoryAddr.py")
    assert "1 error," in d.summary
    # A notebook shows the SVG, and nothing else for it.
    assert d._repr_svg_() == d.text
    assert d._repr_png_() is None and d._repr_html_() is None
    assert "svg" in repr(d) and "drew 2 functions" in repr(d)


def test_draw_options_change_the_picture(demo_case):
    light = pmm.draw(demo_case).text
    dark = pmm.draw(demo_case, theme="dark").text
    one = pmm.draw(demo_case, function="qk_matmul").text
    narrow = pmm.draw(demo_case, hide=["Bias", "Acc"], width=600, zoom=1.5, x_axis="used").text
    assert dark != light
    height = lambda svg: float(svg.split('height="', 1)[1].split('"', 1)[0])  # noqa: E731
    assert "qk_matmul" in one and height(one) < height(light)  # one card, not two
    assert narrow != light


def test_draw_png_is_shown_at_its_css_size(demo_case):
    d = pmm.draw(demo_case, "png", scale=2)
    assert d.data[:8] == b"\x89PNG\r\n\x1a\n"
    data, meta = d._repr_png_()
    assert data == d.data
    width = int.from_bytes(d.data[16:20], "big")
    assert meta["width"] == round(width / 2)
    with pytest.raises(ValueError):
        d.text


def test_draw_html_is_the_page_in_a_sandboxed_frame(demo_case):
    d = pmm.draw(demo_case, format="html")
    assert d.text.lstrip().lower().startswith("<!doctype html")
    frame = d._repr_html_()
    assert frame.startswith("<iframe ") and frame.endswith("></iframe>")
    assert 'sandbox="allow-scripts"' in frame
    assert "allow-same-origin" not in frame
    # The page travels whole, escaped into srcdoc: no raw quote or tag can end the attribute.
    srcdoc = frame.split('srcdoc="', 1)[1][: -len('"></iframe>')]
    assert '"' not in srcdoc and "<" not in srcdoc
    import html as html_lib

    assert html_lib.unescape(srcdoc) == d.text
    assert d._repr_svg_() is None


def test_save_writes_the_bytes_and_refuses_folders_and_the_input(demo_case, over_capacity, tmp_path):
    d = pmm.draw(demo_case)
    out = d.save(tmp_path / "map.svg")
    assert out.read_bytes() == d.data
    d.save(out)  # replacing an earlier map is fine
    with pytest.raises(pmm.UsageError, match="not a regular file"):
        d.save(tmp_path)
    dump = next((over_capacity / "passes_dump").glob("*.py"))
    before = dump.read_bytes()
    on_input = pmm.draw(over_capacity)
    with pytest.raises(pmm.UsageError, match="input dump"):
        on_input.save(dump)
    assert dump.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_load_reads_functions_spaces_tiles_and_findings(demo_case):
    m = pmm.load(demo_case)
    assert isinstance(m, pmm.MemoryMap)
    assert m.pass_name == "AllocateMemoryAddr"
    assert m.backend.name == "Ascend910B" and m.backend.detected
    assert [f.name for f in m.functions] == ["qk_matmul", "row_softmax"]
    bias = m.function("qk_matmul").space("Bias")
    assert (bias.hwm, bias.limit, bias.occupancy) == (1024, 1024, 1.0)
    assert bias.peak is not None and bias.peak.live[0].name == "bias_bt__tile"
    tiles = m.function("row_softmax").boxes
    assert tiles and all(isinstance(t, pmm.Tile) for t in tiles)
    assert any(t.conflict for t in tiles)
    codes = [f.code for f in m.findings]
    assert codes.count("conflict") == 1 and "pressure" in codes
    conflict = m.findings[0]
    assert conflict.severity == "error" and conflict.function == "row_softmax" and conflict.line == 49
    with pytest.raises(KeyError, match="qk_matmul, row_softmax"):
        m.function("nope")


def test_load_over_capacity(over_capacity):
    m = pmm.load(over_capacity)
    vec = m.function("spill").space("Vec")
    assert vec.hwm == 192 * 1024 and vec.limit == 184 * 1024
    assert vec.occupancy > 1.0
    assert m.function("fits").space("Vec").occupancy < 0.9
    overflow = [f for f in m.findings if f.code == "overflow"]
    assert len(overflow) == 1 and overflow[0].tiles == ["c__tile"] and overflow[0].line == 17


def test_check_returns_the_findings_and_the_verdict(demo_case, over_capacity, fitting_case):
    demo = pmm.check(demo_case)
    assert not demo.passed
    assert [v.code for v in demo.violations] == ["conflict"]
    assert {f.code for f in demo.findings} >= {"conflict", "pressure", "idle"}

    over = pmm.check(over_capacity, max_occupancy=90)
    assert not over.passed
    assert [v.code for v in over.violations] == ["overflow", "max-occupancy"]
    assert "8 KB past the Vec capacity" in over.messages()[0]

    ok = pmm.check(fitting_case, max_occupancy=90, deny="warnings")
    assert ok.passed and ok.violations == []
    # A limit it breaks: the Ascend950 case's fullest space is below 90% but above 10%.
    assert not pmm.check(fitting_case, max_occupancy=10).passed
    assert pmm.check(over_capacity, allow="overflow", max_hwm={"Vec": "200KB"}).passed
    assert not pmm.check(over_capacity, allow=["overflow"], max_hwm={"Vec": 100 * 1024}).passed


def test_check_a_tree_of_cases(demo_case, over_capacity, fitting_case, tmp_path):
    tree = tmp_path / "build_output"
    tree.mkdir()
    shutil.copytree(fitting_case, tree / "fits")
    shutil.copytree(over_capacity, tree / "spills")
    report = pmm.check(tree)
    with pytest.raises(pmm.UsageError, match="holds many cases.*draw one case folder at a time"):
        pmm.draw(tree)
    assert not report.passed
    assert {c.case: c.passed for c in report.cases} == {"fits": True, "spills": False}
    messages = report.messages()
    assert len(messages) == 1 and messages[0].startswith("spills: spill: Vec: L17: overflow")


@pytest.mark.parametrize(
    "options, words",
    [
        ({"zoom": 100}, "zoom=100 is outside 0.2..64"),
        ({"zom": 2}, "unknown option zom=; did you mean zoom=?"),
        ({"theme": "blue"}, "theme='blue' is not one of light, dark"),
        ({"width": "wide"}, "width='wide' is not a number"),
        ({"x_axis": ["limit", "used"]}, "x_axis takes one value"),
        ({"name": "x.py"}, "HTTP service only"),
    ],
)
def test_usage_errors_name_keyword_arguments_before_running(demo_case, options, words):
    with pytest.raises(pmm.UsageError) as err:
        pmm.draw(demo_case, **options)
    assert words in str(err.value)
    assert err.value.exit_code is None  # refused in Python: the binary never ran
    assert "--" not in str(err.value)


def test_usage_errors_from_the_binary_carry_its_message_with_keywords(demo_case):
    with pytest.raises(pmm.UsageError) as err:
        pmm.draw(demo_case, hide="Foo")
    assert err.value.exit_code == 2
    assert "no space 'Foo' in this dump" in err.value.message and "Vec" in err.value.remedy
    with pytest.raises(pmm.UsageError) as err:
        pmm.check(demo_case, deny="bogus")
    assert err.value.exit_code == 2 and err.value.code == "usage"
    assert "--deny bogus is not accepted" in err.value.message and "overflow" in err.value.remedy
    with pytest.raises(pmm.UsageError, match="not one of svg, png, html, json, txt"):
        pmm.draw(demo_case, format="gif")
    with pytest.raises(pmm.UsageError, match="max_occupancy=120 is outside 0..100"):
        pmm.check(demo_case, max_occupancy=120)
    # A usage error is a ValueError too, for code that catches those.
    assert issubclass(pmm.UsageError, ValueError)


def test_a_broken_dump_raises_with_file_line_and_column(over_capacity):
    dump = next((over_capacity / "passes_dump").glob("*.py"))
    text = dump.read_text().replace("pl.tile.exp(a__tile)", "pl.tile.exp(a__tile", 1)
    dump.write_text(text)
    for call in (pmm.draw, pmm.load, pmm.check):
        with pytest.raises(pmm.DumpError) as err:
            call(over_capacity)
        e = err.value
        assert e.exit_code == 1 and e.code == "unreadable" and e.remedy
        assert Path(e.file).name == dump.name and (e.line, e.column) == (17, 9)
        assert e.location.endswith(f"{dump.name}:17:9") and str(e).startswith(e.location)
        assert e.message.startswith("not valid Python")


def test_a_missing_path_is_a_dump_error_naming_it(tmp_path):
    with pytest.raises(pmm.PtoMemoryMapError, match="no such file or folder") as err:
        pmm.draw(tmp_path / "nowhere")
    assert err.value.location is None and err.value.code == "not_found"


def test_paths_are_never_flags(demo_case, tmp_path, monkeypatch):
    """Paths follow `--`: a dump named like a flag is a dump, and `--help` is a missing file."""
    monkeypatch.chdir(tmp_path)
    dump = next((demo_case / "passes_dump").glob("*.py"))
    shutil.copy(dump, tmp_path / "-demo.py")
    drawing = pmm.draw("-demo.py")
    assert drawing.text.lstrip().startswith("<svg") and "qk_matmul" in drawing.text
    assert pmm.check("-demo.py").findings
    for call in (pmm.draw, pmm.load, pmm.check):
        with pytest.raises(pmm.DumpError) as err:
            call("--help")
        assert err.value.code == "not_found" and "--help: no such file or folder" in err.value.message


def test_option_values_that_start_with_a_dash_are_values(demo_case, tmp_path, monkeypatch):
    """Every option goes as one word (`--soc=-soc.toml`), so a value like a flag stays a value."""
    monkeypatch.chdir(tmp_path)
    dump = next((demo_case / "passes_dump").glob("*.py"))
    with pytest.raises(pmm.PtoMemoryMapError) as err:
        pmm.draw(dump, soc="-soc.toml")
    assert "-soc.toml" in err.value.message and "unexpected argument" not in err.value.message
    with pytest.raises(pmm.PtoMemoryMapError) as err:
        pmm.draw(demo_case, pass_name="-x")
    assert "-x" in err.value.message and "unexpected argument" not in err.value.message
    out = tmp_path / "written.svg"
    with pytest.raises(pmm.PtoMemoryMapError):
        pmm.draw(dump, function=f"-o{out}")
    assert not out.exists()


def test_packed_lanes_are_drawn_when_asked(tmp_path):
    """`packed=True` draws each space's packing beside it; `packed="yes"` is not a bool."""
    dump = ROOT / "tests" / "fixtures" / "lifetimes.py"
    plain = pmm.draw(dump, function="wasteful").text
    packed = pmm.draw(dump, function="wasteful", packed=True).text
    assert 'data-space="Vec packed"' in packed and 'data-space="Vec packed"' not in plain
    assert 'data-space="Vec packed"' not in pmm.draw(dump, function="wasteful", packed=False).text
    with pytest.raises(pmm.UsageError):
        pmm.draw(dump, packed="yes")


def test_output_that_is_not_json_raises_the_packages_own_error(demo_case, tmp_path, monkeypatch):
    """A binary that answers something else (another release, a crash) is this package's error,
    never a JSONDecodeError."""
    real = pmm.find_binary()
    fake = tmp_path / "pto-memory-map"
    fake.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --list-options ]; then exec {real} --list-options; fi\n'
        "echo 'this is not JSON'\n"
        "echo 'error: something went wrong' >&2\n"
        "exit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PTO_MEMORY_MAP_BINARY", str(fake))
    with pytest.raises(pmm.PtoMemoryMapError) as err:
        pmm.check(demo_case)
    assert not isinstance(err.value.__cause__, json.JSONDecodeError)
    assert "did not write JSON" in str(err.value)
    # Without the JSON error the binary's text is kept whole.
    with pytest.raises(pmm.PtoMemoryMapError) as err:
        pmm.draw(demo_case)
    assert err.value.code is None and "something went wrong" in str(err.value)


def test_the_package_never_reads_a_messages_words():
    """Errors come from the binary's JSON fields: no module of the package uses regular expressions."""
    import ast

    package = Path(pmm.__file__).parent
    for source in package.glob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            assert "re" not in names and module != "re", f"{source.name} imports re"


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_save_honours_the_umask(demo_case, tmp_path, umask, mode):
    drawing = pmm.draw(demo_case)
    old = os.umask(umask)
    try:
        made = drawing.save(tmp_path / "new.svg")
        (tmp_path / "old.svg").write_text("old")
        replaced = drawing.save(tmp_path / "old.svg")
    finally:
        os.umask(old)
    assert made.stat().st_mode & 0o777 == mode and replaced.stat().st_mode & 0o777 == mode


def test_save_into_a_missing_folder_names_it(demo_case, tmp_path):
    with pytest.raises(pmm.UsageError, match="the folder .*nosuchdir' does not exist"):
        pmm.draw(demo_case).save(tmp_path / "nosuchdir" / "x.svg")


def test_a_binary_of_ones_own_build_is_chosen_by_environment(monkeypatch, tmp_path):
    installed = pmm.find_binary()
    monkeypatch.setenv("PTO_MEMORY_MAP_BINARY", installed)
    assert pmm.find_binary() == installed
    not_a_binary = tmp_path / "pto-memory-map"
    not_a_binary.write_text("")
    monkeypatch.setenv("PTO_MEMORY_MAP_BINARY", str(not_a_binary))
    with pytest.raises(FileNotFoundError, match="PTO_MEMORY_MAP_BINARY"):
        pmm.find_binary()
