"""No module of memory_core imports itself back, however indirectly: not at the top of a file, not inside a
function (a lazy import), not under `if TYPE_CHECKING:`. Every import statement counts, as import-linter
counts them; importing `a.b.c` is an edge to `a.b.c`, not to its parent packages. Nor do the children of a
package import each other in a circle with a subpackage taken as a whole (`memory_core.ports` with everything
in it), as import-linter's `acyclic_siblings` contract sees them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable, Optional

CORE = Path(__file__).resolve().parents[2] / "src" / "memory_core"


def module_name(path: Path, root: Path) -> str:
    """`memory_core.ports.clock` for src/memory_core/ports/clock.py, `memory_core.ports` for its __init__.py."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """Every name an import statement anywhere in the tree may refer to, relative imports resolved."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`


def import_graph(root: Path) -> dict[str, set[str]]:
    """{module: the modules of the same package tree it imports}."""
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = imported_names(tree, module, path.name == "__init__.py")
        graph[module] = {name for name in names if name in files and name != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> Optional[list[str]]:
    """One import cycle as [a, b, ..., a], or None when the graph has none (iterative depth-first search)."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once fully explored
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = "open"
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = "done"
                stack.pop()
            elif state.get(following) == "open":
                return path[path.index(following):] + [following]
            elif following not in state:
                state[following] = "open"
                path.append(following)
                stack.append(iter(sorted(graph.get(following, ()))))
    return None


def siblings_graph(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The imports between the children of `package`, each child standing for itself and its descendants."""
    depth = package.count(".") + 1

    def child(module: str) -> Optional[str]:
        parts = module.split(".")
        return ".".join(parts[:depth + 1]) if module.startswith(package + ".") else None

    children: dict[str, set[str]] = {}
    for module, imported in graph.items():
        importer = child(module)
        if importer is not None:
            children.setdefault(importer, set()).update(
                other for other in map(child, imported) if other is not None and other != importer)
    return children


def test_the_cycle_finder_finds_a_lazy_or_type_checking_cycle(tmp_path):
    package = tmp_path / "pkg"
    (package / "ports").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ports" / "__init__.py").write_text("")
    (package / "models.py").write_text("from pkg.records import Entry\n")
    (package / "records.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from pkg.models import Draft\n")
    (package / "space.py").write_text("def pinned():\n    from .ports import store\n")
    (package / "ports" / "store.py").write_text("from .. import space\n")
    graph = import_graph(package)
    assert graph["pkg.space"] == {"pkg.ports", "pkg.ports.store"} and graph["pkg.ports.store"] == {"pkg", "pkg.space"}
    cycle = find_cycle(graph)
    assert cycle in (["pkg.models", "pkg.records", "pkg.models"], ["pkg.ports.store", "pkg.space", "pkg.ports.store"])
    assert find_cycle(siblings_graph(graph, "pkg")) in (["pkg.models", "pkg.records", "pkg.models"],
                                                         ["pkg.ports", "pkg.space", "pkg.ports"])
    del graph["pkg.records"]
    assert find_cycle(graph) == ["pkg.ports.store", "pkg.space", "pkg.ports.store"]
    graph["pkg.ports.store"] = set()
    assert find_cycle(graph) is None
    graph["pkg.ports.other"] = {"pkg.space"}  # no module imports itself back, but the package does
    assert find_cycle(siblings_graph(graph, "pkg")) == ["pkg.ports", "pkg.space", "pkg.ports"]


def test_memory_core_has_no_import_cycles():
    graph = import_graph(CORE)
    assert len(graph) > 40 and "memory_core.usecases.session_start" in graph, "the core was not found"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in the core: " + " -> ".join(cycle or [])


def test_no_package_of_memory_core_has_sibling_import_cycles():
    graph = import_graph(CORE)
    packages = sorted({module.rsplit(".", 1)[0] for module in graph if "." in module})
    assert {"memory_core", "memory_core.ports", "memory_core.usecases"} <= set(packages)
    for package in packages:
        cycle = find_cycle(siblings_graph(graph, package))
        assert cycle is None, f"import cycle between the children of {package}: " + " -> ".join(cycle or [])
