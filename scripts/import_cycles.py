#!/usr/bin/env python3
"""Lists import cycles among the files of each crate and of the Python package.

    python scripts/import_cycles.py                 # every crates/*/src and python/nestsim
    python scripts/import_cycles.py crates/nest-ssd/src python/nestsim

Exit 1 when there is a cycle. A file's module is its path (`host/gate.rs` → `host::gate`,
`host/mod.rs` → `host`; `report.py` → `report`, `experiments/__init__.py` → `experiments`).

Rust: a file depends on the module of every item it names through `crate::`, `super::` or
`self::` paths (in `use` trees, grouped or nested, and inline), and on a child module it names
directly (`use flash::Die` in `mod.rs`). A name a module re-exports (`pub use x::Y`) counts as a
dependency on the module that defines it — a facade does not hide a loop — and the re-export
itself is no dependency. Python: every `import` and `from … import`, relative or absolute, at
any depth (a lazy import inside a function still ties the two files together).

A file and its own ancestors may use each other — a facade (`ssd/mod.rs` with `ssd/flash.rs`'s
`impl Ssd`, a package's `__init__.py` and its modules) is one unit — so the rule is: siblings
and cousins never form a loop. Test files (`tests.rs`, `tests_*.rs`, `test_*.rs`) and
`#[cfg(test)] mod … { }` blocks are left out.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _is_test(name: str) -> bool:
    return name == "tests" or name.startswith("tests_") or name.startswith("test_")


# --- Rust ---------------------------------------------------------------------------------------

_USE = re.compile(r"(?:^|(?<=[\s;{}]))(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")


def _rust_modules(src: Path) -> dict:
    mods = {}
    for p in src.rglob("*.rs"):
        parts = list(p.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        if parts and _is_test(parts[-1]):
            continue
        mods[tuple(parts)] = p
    return mods


def _strip(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def _expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` → [[a, b], [a, c, d], [a, c, e]]."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        tree = re.sub(r"\s+as\s+\w+$", "", tree)
        return [[x.strip() for x in tree.split("::") if x.strip()]]
    head = [x for x in tree[:i].strip().rstrip(":").split("::") if x]
    inner = tree[i + 1 : tree.rindex("}")]
    items, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += (c == "{") - (c == "}")
        cur += c
    items.append(cur)
    return [head + e for it in items if it.strip() for e in _expand(it)]


def _absolute(path: list, here: tuple):
    if path[0] == "crate":
        return path[1:]
    cur, i = list(here), 0
    while i < len(path) and path[i] in ("super", "self"):
        if path[i] == "super":
            cur = cur[:-1]
        i += 1
    return cur + path[i:] if i else None


def rust_graph(src: Path) -> dict:
    mods = _rust_modules(src)
    reexports, uses = {}, {}
    for m, p in mods.items():
        text = _strip(p.read_text())
        uses[m] = []
        for u in _USE.finditer(text):
            public = bool(u.group(1))
            for path in _expand(u.group(2)):
                if not path:
                    continue
                if path[0] not in ("crate", "super", "self"):
                    if m + (path[0],) not in mods:
                        continue  # another crate or std
                    path = ["self"] + path
                a = _absolute(path, m)
                if a is None:
                    continue
                if public:
                    reexports[(m, a[-1])] = a
                else:
                    uses[m].append(a)
        body = _USE.sub("", text)
        for x in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", body):
            a = _absolute(x.group(1).split("::"), m)
            if a:
                uses[m].append(a)

    def resolve(a, depth=0):
        for k in range(len(a), -1, -1):
            mod = tuple(a[:k])
            if mod in mods:
                target = reexports.get((mod, a[k])) if k < len(a) else None
                if target and target != a and depth < 8:
                    return resolve(target, depth + 1)
                return mod
        return None

    return {m: {r for a in uses[m] if (r := resolve(a)) is not None} for m in mods}


# --- Python -------------------------------------------------------------------------------------


def python_graph(pkg: Path) -> dict:
    mods = {}
    for p in pkg.rglob("*.py"):
        parts = list(p.relative_to(pkg).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and _is_test(parts[-1]):
            continue
        mods[tuple(parts)] = p
    name = pkg.name
    graph = {}
    for m, p in mods.items():
        package = m if p.name == "__init__.py" else m[:-1]
        deps = set()
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name.split(".") for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(package[: len(package) - (node.level - 1)]) if node.level > 1 else list(package)
                    base = [name] + base
                else:
                    base = []
                mod = base + (node.module.split(".") if node.module else [])
                targets = [mod + [a.name] for a in node.names]
            for t in targets:
                if not t or t[0] != name:
                    continue
                t = t[1:]
                for k in range(len(t), -1, -1):
                    if tuple(t[:k]) in mods:
                        deps.add(tuple(t[:k]))
                        break
        graph[m] = deps
    return graph


# --- cycles -------------------------------------------------------------------------------------


def cycles(graph: dict) -> list:
    """Elementary cycles, each once, after dropping self-loops and ancestor ↔ descendant edges."""

    def related(a, b):
        return a == b[: len(a)] or b == a[: len(b)]

    g = {m: sorted(d for d in deps if not related(m, d)) for m, deps in graph.items()}
    found, seen = [], set()

    def dfs(node, stack):
        for n in g.get(node, ()):
            if n in stack:
                cyc = stack[stack.index(n) :] + [n]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    found.append(cyc)
            elif len(stack) < 12:
                dfs(n, stack + [n])

    for m in sorted(g):
        dfs(m, [m])
    return found


def check(path: Path, sep: str) -> int:
    graph = python_graph(path) if any(path.glob("*.py")) else rust_graph(path)
    sep = "." if any(path.glob("*.py")) else "::"
    found = cycles(graph)
    for c in found:
        print(" → ".join(sep.join(x) or "(root)" for x in c))
    print(f"{path}: {len(found)} cycles among {len(graph)} files")
    return len(found)


def main() -> int:
    paths = [Path(a) for a in sys.argv[1:]] or sorted(ROOT.glob("crates/*/src")) + [ROOT / "python" / "nestsim"]
    bad = sum(check(p, "::") for p in paths)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
