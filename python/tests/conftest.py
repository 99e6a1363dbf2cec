"""Shared fixtures: the test corpus (``$VTDX_CORPUS``, by default ``../shared/corpus``
beside the repository) and small helpers."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = pathlib.Path(os.environ.get("VTDX_CORPUS", REPO.parent / "shared" / "corpus"))


def corpus_path(*parts):
    """A path in the corpus; fails loudly (never skips) when the corpus is missing."""
    if not (CORPUS / "xmlconf").is_dir():
        pytest.fail(f"the shared test corpus is missing at {CORPUS} (set VTDX_CORPUS)")
    return CORPUS.joinpath(*parts)


@pytest.fixture
def corpus():
    return corpus_path()
