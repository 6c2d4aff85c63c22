#!/usr/bin/env python3
"""Lists import cycles among one crate's source files (`use crate::…` and `crate::…::` paths).

    python scripts/import_cycles.py crates/nest-model/src

Exit 1 when there is a cycle. A file's module is its path (`host/gate.rs` → `host::gate`,
`host/mod.rs` → `host`); a reference to `crate::a::b::Thing` counts as depending on the
longest module prefix that exists.
"""

import re
import sys
from pathlib import Path


def modules(src: Path):
    mods = {}
    for p in src.rglob("*.rs"):
        rel = p.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        if parts and parts[-1] == "tests":
            continue
        mods["::".join(parts)] = p
    return mods


def deps(text: str, mods) -> set:
    out = set()
    text = re.sub(r"//.*", "", text)
    # `use crate::{a, b::c}` groups and plain `crate::a::b` paths.
    for m in re.finditer(r"crate::\{([^}]*)\}", text):
        for item in m.group(1).split(","):
            out |= _resolve(item.strip(), mods)
    for m in re.finditer(r"crate::((?:\w+::)*\w+)", text):
        out |= _resolve(m.group(1), mods)
    return out


def _resolve(path: str, mods) -> set:
    parts = [p for p in path.split("::") if p and p != "self"]
    for k in range(len(parts), 0, -1):
        name = "::".join(parts[:k])
        if name in mods:
            return {name}
    return set()


def main() -> int:
    src = Path(sys.argv[1])
    mods = modules(src)
    graph = {m: deps(p.read_text(), mods) - {m, ""} for m, p in mods.items()}
    cycles, seen = [], set()

    def dfs(node, stack):
        for n in sorted(graph.get(node, ())):
            if n in stack:
                cyc = stack[stack.index(n):] + [n]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    cycles.append(cyc)
            elif len(stack) < 12:
                dfs(n, stack + [n])

    for m in sorted(graph):
        dfs(m, [m])
    for c in cycles:
        print(" → ".join(c))
    print(f"{len(cycles)} cycles among {len(mods)} files")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
