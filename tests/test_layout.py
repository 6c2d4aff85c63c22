"""The code base's shape, as the seams and plug-ins issues set it: small files, no import cycles
in any crate or the Python package."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_source_file_is_over_600_lines():
    too_long = []
    for p in (ROOT / "crates").glob("*/src/**/*.rs"):
        if p.name == "tests.rs" or "tests" in p.relative_to(ROOT / "crates").parts[2:-1]:
            continue
        n = sum(1 for _ in p.open())
        if n > 600:
            too_long.append(f"{p.relative_to(ROOT)}: {n} lines")
    assert not too_long, too_long


def _cycles(*paths):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "import_cycles.py"), *map(str, paths)], capture_output=True, text=True)


def test_no_crate_and_not_the_python_package_imports_in_a_cycle():
    p = _cycles()
    assert p.returncode == 0, p.stdout
    checked = [line for line in p.stdout.splitlines() if "cycles among" in line]
    # Every crate and the package were read (a glob that found nothing would pass vacuously).
    assert len(checked) == len(list(ROOT.glob("crates/*/src"))) + 1, checked
    assert all(" 0 cycles" in line for line in checked), p.stdout


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    (tmp_path / "a.rs").write_text("use crate::b::B;\n")
    (tmp_path / "b.rs").write_text("pub struct B;\nfn f() { crate::a::g(); }\n")
    (tmp_path / "c.rs").write_text("use crate::a;\n")
    p = _cycles(tmp_path)
    assert p.returncode == 1
    assert "a → b → a" in p.stdout and "1 cycles" in p.stdout


def test_the_cycle_finder_follows_super_paths_and_re_exports(tmp_path):
    # x/mod.rs re-exports Conn from x/conn.rs: y.rs naming crate::x::Conn depends on x::conn,
    # and x/conn.rs reaching y through super::super closes the loop. x/mod.rs and x/conn.rs
    # using each other is a facade (ancestor and descendant), not a cycle.
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mod.rs").write_text("mod conn;\npub use conn::Conn;\npub struct X;\n")
    (tmp_path / "x" / "conn.rs").write_text("use super::X;\nuse super::super::y::Y;\npub struct Conn;\n")
    (tmp_path / "y.rs").write_text("pub struct Y(crate::x::Conn);\n")
    p = _cycles(tmp_path)
    assert p.returncode == 1, p.stdout
    assert "x::conn → y → x::conn" in p.stdout and "1 cycles" in p.stdout, p.stdout


def test_the_cycle_finder_reads_python_imports_lazy_ones_too(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import g\n    return g\n")
    p = _cycles(pkg)
    assert p.returncode == 1, p.stdout
    assert "a → b → a" in p.stdout, p.stdout


def test_docs_list_every_example():
    """docs/scenario.md's table names every scenario in examples/ (the finding: it listed 4 of 11)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "scenario.md").read_text()
    missing = [p.name for p in sorted((root / "examples").glob("*.toml")) if f"`{p.name}`" not in text]
    assert not missing, f"docs/scenario.md's Examples table misses {missing}"


def test_every_cargo_run_in_the_makefile_names_a_binary_cargo_can_pick():
    """`make bench` runs `cargo run -p nest-bench`; once the package had a second binary
    (nest-fuzz) cargo refused to choose and `make bench` failed at its first line. A package
    with several binaries needs `default-run`, or the command `--bin`."""
    import re

    makefile = (ROOT / "Makefile").read_text()
    runs = re.findall(r"cargo run\b[^\n]*", makefile)
    assert runs, "the Makefile runs no cargo binary: update this test"
    for line in runs:
        if "--bin" in line:
            continue
        pkg = re.search(r"-p\s+(\S+)", line).group(1)
        src = ROOT / "crates" / pkg / "src"
        bins = int((src / "main.rs").exists()) + len(list((src / "bin").glob("*.rs")))
        manifest = (ROOT / "crates" / pkg / "Cargo.toml").read_text()
        assert bins <= 1 or re.search(r"^default-run\s*=", manifest, re.M), f"{line!r}: {pkg} has {bins} binaries and no default-run"


def test_the_architecture_page_is_the_code_s_map():
    """docs/architecture.md names every file of the World, each crate with exactly the nest crates
    its Cargo.toml depends on, and every variant of the World's `Event` (issue 57, item 7: it had
    named 22 of nest-model's 41 files and wrong dependencies for two crates)."""
    import re
    import tomllib

    doc = (ROOT / "docs" / "architecture.md").read_text()
    src = ROOT / "crates" / "nest-model" / "src"
    files = [str(p.relative_to(src)) for p in src.rglob("*.rs")
             if p.name != "lib.rs" and not (p.name.startswith("tests") or p.name.startswith("test_"))]
    assert not [f for f in files if f"`{f}`" not in doc], "files of the World the page does not name"
    for crate in sorted((ROOT / "crates").iterdir()):
        manifest = tomllib.loads((crate / "Cargo.toml").read_text())
        deps = {d.removeprefix("nest-") for d in manifest.get("dependencies", {}) if d.startswith("nest-")}
        row = re.search(rf"^\| `{re.escape(crate.name)}` \|.*\| ([^|]*) \|$", doc, re.M)
        assert row, f"{crate.name} has no row in the crates table"
        listed = {d.strip() for d in row.group(1).split(",")} - {"—"}
        assert listed == deps, f"{crate.name}: the page says {sorted(listed)}, Cargo.toml {sorted(deps)}"
    events = (src / "events.rs").read_text()
    body = events[events.index("pub enum Event"):]
    variants = re.findall(r"^    (\w+)[(,{ ]", body[: body.index("\n}")], re.M)
    row = next(line for line in doc.splitlines() if line.startswith("| `nest_model::events::Event`"))
    assert len(variants) > 10 and not [v for v in variants if f"`{v}`" not in row], variants


def test_the_makefiles_test_dependencies_are_pyprojects_test_extra():
    """`make test` installs TEST_DEPS on top of the demo's PY_DEPS (the demo installs only what it
    needs, issue 62 finding 3); a user's `pip install '.[test]'` must get the same tools."""
    import shlex

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    makefile = (ROOT / "Makefile").read_text()
    deps = lambda name: shlex.split(re.search(rf"^{name}\s*:=(.*)$", makefile, re.M).group(1))  # noqa: E731
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert sorted(deps("TEST_DEPS")) == sorted(extra)
    assert not {d.split(">")[0].split("=")[0] for d in deps("PY_DEPS")} & {"pytest", "ray", "scikit-learn", "fio-plot"}
