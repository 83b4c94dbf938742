"""The example notebook, executed headless in a real IPython kernel, shows the SVG and the page."""

from __future__ import annotations

import html

import nbformat
from nbclient import NotebookClient

from conftest import ROOT


def test_the_example_notebook_draws_the_bundled_example(tmp_path):
    path = ROOT / "examples" / "memory_map.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    # The kernel is this environment's Python (ipykernel installed here), run in examples/.
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "examples")}},
    )
    client.execute()
    nbformat.validate(nb)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors

    svg = [o.data["image/svg+xml"] for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(svg) == 1
    assert svg[0].lstrip().startswith("<svg") and "qk_matmul" in svg[0] and "row_softmax" in svg[0]

    pages = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert len(pages) == 1
    frame = pages[0]
    assert frame.startswith("<iframe ") and 'sandbox="allow-scripts"' in frame
    page = html.unescape(frame.split('srcdoc="', 1)[1])
    assert page.lstrip().lower().startswith("<!doctype html") and "<script" in page

    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "drew 2 functions of 32_after_AllocateMemoryAddr.py" in text
    assert "qk_matmul    Bias   100.0% of 1 KiB" in text
    assert "fails:" in text and "conflict" in text

    # Saved with its outputs, it is a notebook a reader opens with the pictures in place.
    out = tmp_path / "executed.ipynb"
    nbformat.write(nb, out)
    assert nbformat.read(out, as_version=4).cells[1].outputs
