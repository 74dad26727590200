"""The engine stays a pure library: no web, database, Redis, clock or global random."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN_MODULES = {
    "fastapi", "starlette", "sqlalchemy", "alembic", "redis", "uvicorn", "app",
    "random", "time", "datetime", "socket", "os", "subprocess", "requests", "httpx",
}
FORBIDDEN_CALLS = {"open", "print", "input"}


def engine_files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_imports_no_io_clock_or_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            names = []
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"


def test_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    # The check above must be able to fail: feed it a module that breaks the rule.
    bad = ast.parse("import random\nfrom sqlalchemy import select\n")
    found = {alias.name for node in ast.walk(bad) if isinstance(node, ast.Import)
             for alias in node.names}
    found |= {node.module for node in ast.walk(bad)
              if isinstance(node, ast.ImportFrom) and node.module}
    assert found & FORBIDDEN_MODULES == {"random", "sqlalchemy"}
