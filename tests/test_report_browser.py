"""Reports render in a real browser (headless Chromium): figures drawn, images decoded, a
screenshot with content. Experiments' reports are checked in test_experiments.py."""

from conftest import assert_report_renders, render_report


def test_run_report_renders(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", check=0)
    r = assert_report_renders(cli, tmp_path / "o", tmp_path / "chromium", min_figures=3)
    assert r["check"]["images"] == 0  # a run report embeds SVG only
    page = (tmp_path / "o" / "report.html").read_text()
    assert page.index("<h3>per class</h3>") < page.index("class='fig'") < page.index("<h3>per workload</h3>"), "classes, figures, details"
    assert r["check"]["width"] <= 1280, r


def test_a_broken_image_is_caught(cli, small_scenario, tmp_path):
    # The check can fail: an image that does not decode is counted as broken.
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", check=0)
    cli("report", tmp_path / "o", check=0)
    page = tmp_path / "o" / "report.html"
    page.write_text(page.read_text().replace("</body>", "<img src='data:image/png;base64,AAAA'></body>"))
    r = render_report(page, tmp_path / "chromium")
    assert r["check"]["broken"] == 1 and r["check"]["images"] == 1, r


def test_sweep_report_renders_its_figures(cli, tmp_path):
    from conftest import ROOT
    sw = tmp_path / "s.toml"
    sw.write_text(f'[sweep]\nscenario = "{ROOT / "examples" / "storage-classes.toml"}"\nseeds = 2\n'
                  '[[sweep.axis]]\nkey = "host[0].queue_depth"\nvalues = [4, 8]\n')
    cli("sweep", sw, "-o", tmp_path / "sw", "-q", check=0)
    assert (tmp_path / "sw" / "plots" / "sweep-host-0-queue-depth.svg").exists()
    r = assert_report_renders(cli, tmp_path / "sw", tmp_path / "chromium", min_figures=1)
    assert r["check"]["figures"] == 1


def test_the_demos_comparison_page_fits_a_laptops_window(cli, tmp_path):
    """Issue 62, finding 10: compare.html for the demo's four classes fits a 1,280 px window (the CDF
    strip was 1,584 px, the class that pays cut off), its image decodes, and its per-class table is
    a row per class and op (it was ~60 rows of one metric each)."""
    import re

    from conftest import ROOT
    from nestsim.compare import compare, write

    demo = ROOT / "examples" / "demo.toml"
    for name, extra in (("a", ()), ("b", ("--set", "qos.host=ignore"))):
        cli("run", demo, "-o", tmp_path / name, "-q", "--set", "run.duration=40ms", *extra, check=0)
    page = write(compare([tmp_path / "b", tmp_path / "a"], labels=["no QoS", "QoS"]), tmp_path / "cmp")
    r = render_report(page, tmp_path / "chromium")
    assert r["check"]["images"] == 1 and r["check"]["broken"] == 0 and r["check"]["width"] <= 1280, r
    table = page.read_text().split("<h2>Per class</h2>")[1]
    rows = re.findall(r"<tr><td>", table)
    assert len(rows) == 4 * 3, len(rows)  # urgent, high, medium, low × all, read, write
    assert "p99 µs" in table and "→" in table


def test_a_network_only_reports_tables_are_its_own(cli, tmp_path):
    """A run with flows and no storage request shows its network table, not empty request tables;
    a storage run shows its classes' table before its figures."""
    from conftest import ROOT

    cli("run", ROOT / "examples" / "dctcp-dumbbell.toml", "-o", tmp_path / "net", "-q", "--set", "run.duration=5ms", "--set", "run.warmup=1ms", check=0)
    r = assert_report_renders(cli, tmp_path / "net", tmp_path / "chromium", min_figures=1)
    page = (tmp_path / "net" / "report.html").read_text()
    assert "<h3>network</h3>" in page and "<h3>per class</h3>" not in page and "<h3>per workload</h3>" not in page, r
