"""Runs the Python examples of python/README.md (every ```python block, each in a
fresh namespace where ``vtdx`` is imported) so the documentation cannot drift from
the code."""

import pathlib
import re

import pytest

import vtdx

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text(encoding="utf-8")
    found = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(found) >= 6, "the README's Python examples moved or disappeared"
    return found


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_example(index, capsys):
    code = blocks()[index]
    namespace = {"__name__": f"readme_example_{index}", "vtdx": vtdx}
    exec(compile(code, f"{README}:block{index}", "exec"), namespace)
