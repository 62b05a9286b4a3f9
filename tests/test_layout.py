"""The house's layout (DESIGN.md, house style): no import circle among the modules of
ledgerbuild/ and formulas/ (imports read with ast, those inside functions included, so a
circle hidden by a lazy import counts), and no module there over 450 lines (the house style
asks ~400; issue 31's bound is 450).

Shortcut: an import names the module it loads (`from .book import Sheet` is an edge to
`book`, `from . import notes` one to `notes`); the package's own `__init__` that Python runs
first is not an edge, as every submodule would otherwise be in a circle with it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"ledgerbuild": ROOT / "ledgerbuild", "ledgerbuild.formulas": ROOT / "formulas"}


def modules(packages: dict[str, Path]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under each package root."""
    found = {}
    for prefix, root in packages.items():
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the file imports (absolute or relative, at any depth)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            edges |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = {f"{base}.{alias.name}" for alias in node.names}
            edges |= {t for t in targets if t in known} or {base}
    return {e for e in edges if e in known and e != name}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def graph_of(packages: dict[str, Path]) -> dict[str, set[str]]:
    known = modules(packages)
    return {name: imports(name, path, known) for name, path in known.items()}


def test_no_import_circle():
    graph = graph_of(PACKAGES)
    assert len(graph) > 100  # every module was read (ledgerbuild/ and formulas/)
    assert "ledgerbuild.writers.xlsx.book" in graph["ledgerbuild.writers.xlsx.package"]
    assert circles(graph) == []


def test_the_circle_check_finds_a_lazy_circle(tmp_path):
    """The two circles the house had (families.py <-> families_vision.py through a lazy import,
    xlsx book <-> package), rebuilt in a scratch package, are found; a one-way import is not."""
    pkg = tmp_path / "pkg"
    (pkg / "xlsx").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "families.py").write_text("def fields():\n    from .families_vision import split_vlm\n")
    (pkg / "families_vision.py").write_text("from .families import count\n")
    (pkg / "xlsx" / "__init__.py").write_text("from .book import Book\n")
    (pkg / "xlsx" / "book.py").write_text("from . import package\n")
    (pkg / "xlsx" / "package.py").write_text("from ..xlsx.book import Book\nimport pkg.families\n")
    found = circles(graph_of({"pkg": pkg}))
    assert found == [["pkg.families", "pkg.families_vision"], ["pkg.xlsx.book", "pkg.xlsx.package"]]


MAX_LINES = 450


def test_no_module_over_450_lines():
    lengths = {path: len(path.read_text().splitlines()) for path in modules(PACKAGES).values()}
    assert len(lengths) > 100
    over = sorted(f"{path.relative_to(ROOT)}: {n}" for path, n in lengths.items() if n > MAX_LINES)
    assert over == []


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    return text[start : text.index("\n## ", start + 1)]


def test_the_readme_layout_and_contributing_table_name_files_that_exist():
    """Every file or folder the README's Layout and "Contributing: which files a change touches"
    name in backticks exists (relative to the repository or to ledgerbuild/; a bare file name
    somewhere in ledgerbuild/ or formulas/), and Layout lists the topics in TOPICS order."""
    text = (ROOT / "README.md").read_text()
    layout, table = _section(text, "Layout"), _section(text, "Contributing: which files a change touches")
    names = {p.name for root in PACKAGES.values() for p in root.rglob("*")}
    named = [t for t in re.findall(r"`([^`\s]+)`", layout + table) if re.search(r"(\.py|\.yaml|/)$", t)]
    missing = [
        t
        for t in named
        if "ID" not in t  # a placeholder (models/ID.yaml)
        and not ((ROOT / t).exists() or (ROOT / "ledgerbuild" / t).exists() or t.rstrip("/") in names)
    ]
    assert len(named) > 20 and missing == []
    listed = re.search(r"in TOPICS order \(formulas/__init__.py\): (.*?) \(\+ shapes", layout, re.S)
    assert listed is not None
    topics = ast.literal_eval(
        (ROOT / "formulas" / "__init__.py").read_text().split("TOPICS = ", 1)[1].split("]")[0] + "]"
    )
    assert [t.strip() for t in listed.group(1).replace("\n", " ").split(",")] == topics
