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


MAIN_README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_main_readme_python_example(monkeypatch, capsys):
    """The repository README's Python example runs (from the repository root, where
    its relative path points) and prints the product names under $100, which are
    checked against lxml on the same file."""
    from lxml import etree

    text = MAIN_README.read_text(encoding="utf-8")
    found = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(found) == 1, "the README's Python example moved or disappeared"
    monkeypatch.chdir(MAIN_README.parent)
    exec(compile(found[0], f"{MAIN_README}:python", "exec"), {"__name__": "main_readme"})
    printed = capsys.readouterr().out.splitlines()
    expected = [str(t) for t in etree.parse("examples/po.xml").xpath("//item[USPrice < 100]/productName/text()")]
    assert printed == expected and printed
