"""Fixtures: a table directory (international and Russian up to 4 pieces at least, built
by scripts/python-test.sh with the kabe binary) and the doctest globals."""

import os
import pathlib

import pytest

import kabe


def tables_dir() -> pathlib.Path:
    path = os.environ.get("KABE_TEST_TABLES")
    if not path:
        pytest.exit("set KABE_TEST_TABLES to a table directory (scripts/python-test.sh builds one)", returncode=2)
    return pathlib.Path(path)


@pytest.fixture(scope="session")
def tables() -> pathlib.Path:
    return tables_dir()


@pytest.fixture()
def tb(tables):
    with kabe.open_tablebase(tables) as opened:
        yield opened


@pytest.fixture(scope="session")
def kabe_bin() -> str:
    path = os.environ.get("KABE_BIN")
    if not path:
        pytest.exit("set KABE_BIN to the kabe binary (scripts/python-test.sh does)", returncode=2)
    return path


def small_pdn(directory: pathlib.Path) -> pathlib.Path:
    """A one-game PDN file whose every position is within 2-piece tables."""
    pdn = directory / "small.pdn"
    pdn.write_text('[GameType "20"]\n[FEN "W:W32:B27"]\n[Result "2-0"]\n1. 32x21 2-0\n')
    return pdn


def doctest_globals(tmp: pathlib.Path) -> dict:
    return {"kabe": kabe, "TABLES": str(tables_dir()), "PDN": str(small_pdn(tmp))}
