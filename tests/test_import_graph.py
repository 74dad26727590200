"""No import cycles among kartu's own modules (app/ and engine/).

Every import counts: at module level, inside a function (a *lazy* import) and
under ``if TYPE_CHECKING``. Hiding a cycle in a function or a type-only block
keeps Python from tripping over it, not the modules from depending on each
other: neither can then be read, tested or changed without the other.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "engine")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement names: modules, and ``module.name``
    for each name taken from one (it may be a submodule)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        parts = package[: len(package) - node.level + 1]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(paths: list[Path], root: Path) -> dict[str, set[str]]:
    """Module -> the modules among ``paths`` (files under ``root``) it imports,
    each name resolved to the longest module it starts with."""
    modules = {module_name(p, root): p for p in paths}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            for name in imported(node, module, path.name == "__init__.py"):
                parts = name.split(".")
                for end in range(len(parts), 0, -1):
                    target = ".".join(parts[:end])
                    if target in modules:
                        if target != module:
                            graph[module].add(target)
                        break
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_in_app_and_engine() -> None:
    paths = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]
    assert cycles(import_graph(paths, ROOT)) == []


def test_the_check_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    # The check must be able to fail: two modules that import each other,
    # one lazily and one only for type checking.
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from app import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.a import f\n")
    (package / "c.py").write_text("from . import a\n")
    graph = import_graph(sorted(package.glob("*.py")), tmp_path)
    assert graph["app.c"] == {"app", "app.a"}  # the package, then its module
    assert cycles(graph) == [["app.a", "app.b"]]
