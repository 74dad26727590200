"""The engine stays a pure library: no web, database, Redis, clock or global random.

The checks read the source (``ast``), not the imported modules. Each one is
also run on a throw-away tree laid out like ``engine/`` that breaks its
rule, so a checker that stopped finding anything would fail its self-test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN_MODULES = frozenset({
    "fastapi", "starlette", "sqlalchemy", "alembic", "redis", "uvicorn", "app",
    "random", "time", "datetime", "socket", "os", "subprocess", "requests", "httpx",
})
# Turning views into bytes is the server's job; the engine hands out plain data.
SERIALIZERS = frozenset({"orjson", "json", "ujson", "msgspec"})
FORBIDDEN_CALLS = frozenset({"open", "print", "input"})


def python_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def file_violations(path: Path, modules: Iterable[str] = FORBIDDEN_MODULES,
                    calls: Iterable[str] = FORBIDDEN_CALLS) -> list[str]:
    """What ``path`` does against the rule: each import of one of ``modules``
    (by top-level package) and each call of a builtin in ``calls``."""
    modules, calls = frozenset(modules), frozenset(calls)
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            names = []
        found.extend(f"{path.name} imports {name}" for name in names
                     if name.split(".")[0] in modules)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in calls:
            found.append(f"{path.name} calls {node.func.id}()")
    return found


def tree_violations(root: Path, modules: Iterable[str] = FORBIDDEN_MODULES,
                    calls: Iterable[str] = FORBIDDEN_CALLS) -> list[str]:
    """:func:`file_violations` of every Python file under ``root``."""
    return [v for path in python_files(root) for v in file_violations(path, modules, calls)]


@pytest.mark.parametrize("path", python_files(ENGINE), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_imports_no_io_clock_or_global_random(path: Path) -> None:
    assert file_violations(path) == []


def test_engine_imports_no_serializer() -> None:
    assert tree_violations(ENGINE, SERIALIZERS, calls=()) == []


def fake_engine(tmp_path: Path, bad_module: str) -> Path:
    """A tree laid out like engine/ whose games/bad.py is ``bad_module``."""
    root = tmp_path / "engine"
    (root / "games").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "cards.py").write_text("from engine.rng import Rng\nfrom itertools import chain\n")
    (root / "games" / "__init__.py").write_text("from . import bad\n")
    (root / "games" / "bad.py").write_text(bad_module)
    return root


def test_purity_check_catches_forbidden_imports_and_calls(tmp_path: Path) -> None:
    root = fake_engine(tmp_path, (
        "import random\n"
        "import os.path\n"
        "from time import monotonic\n"
        "from fastapi import FastAPI\n"
        "def load(name):\n"
        "    with open(name) as f:\n"
        "        print(f.read())\n"
    ))
    assert tree_violations(root) == [
        "bad.py imports random",
        "bad.py imports os.path",
        "bad.py imports time",
        "bad.py imports fastapi",
        "bad.py calls open()",
        "bad.py calls print()",
    ]


def test_purity_check_passes_a_clean_tree(tmp_path: Path) -> None:
    root = fake_engine(tmp_path, "from engine.cards import rank_of\nimport itertools\n")
    assert tree_violations(root) == []


def test_serializer_check_catches_a_serializer(tmp_path: Path) -> None:
    root = fake_engine(tmp_path, "import orjson\nfrom json import dumps\nimport msgspec.json\n")
    assert tree_violations(root, SERIALIZERS, calls=()) == [
        "bad.py imports orjson", "bad.py imports json", "bad.py imports msgspec.json",
    ]
