"""The type stubs (python/vtdx/_vtdx.pyi) agree with the compiled module: mypy's
stubtest compares every name, signature and class of the runtime with the stubs."""

import subprocess
import sys

import pytest


def test_stubtest(tmp_path):
    pytest.importorskip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "vtdx"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # only the installed package, not the sources beside it
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_public_name_is_documented():
    import vtdx

    for name in vtdx.__all__:
        obj = getattr(vtdx, name)
        if name.startswith("__") or isinstance(obj, str):
            continue
        assert obj.__doc__, f"vtdx.{name} has no docstring"
        for attr, member in vars(obj).items() if isinstance(obj, type) else []:
            if attr.startswith("_") or not callable(member) and not isinstance(member, property):
                continue
            assert getattr(member, "__doc__", None), f"vtdx.{name}.{attr} has no docstring"
