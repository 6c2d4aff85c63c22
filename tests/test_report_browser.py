"""Reports render in a real browser (headless Chromium): figures drawn, images decoded, a
screenshot with content. Experiments' reports are checked in test_experiments.py."""

from conftest import assert_report_renders, render_report


def test_run_report_renders(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", check=0)
    r = assert_report_renders(cli, tmp_path / "o", tmp_path / "chromium", min_figures=3)
    assert r["check"]["images"] == 0  # a run report embeds SVG only


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
