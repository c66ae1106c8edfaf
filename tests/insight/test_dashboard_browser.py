"""The dashboard in a real browser (Debian's Chromium through Selenium, no browser download): what a person sees
on the training dashboard, the graph and the debugger pages, over real training output. Screenshots of each page
are written to docs/insight/ when INSIGHT_SCREENSHOTS=1 (the README's pictures; off by default, so that a test run
leaves the checkout as it was)."""
import os
import shutil
import time

import numpy as np
import pytest

from tests.conftest import REPO
from tests.insight.insight_server import serving

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="no system Chromium/chromedriver: install them with "
           "'apt-get install -y chromium chromium-driver' (.ci/run does) to run the browser tests")
SHOTS = os.path.join(REPO, "docs", "insight")


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
                "--disable-gpu", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_window_size(1280, 800)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def site(insight_base):
    base, info = insight_base
    with serving(base, reload_interval=1) as (url, token):
        yield url, token, info, base


def _wait(driver, condition, timeout=30):
    return WebDriverWait(driver, timeout).until(condition)


def _shot(driver, name):
    if os.environ.get("INSIGHT_SCREENSHOTS") == "1":
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name))


def _open(driver, url):
    driver.get(url)
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main h1"))


def test_loss_curve_shows_every_recorded_step(browser, site):
    url, _, info, _ = site
    losses = info["losses"]["lenet_lr0.01"]
    _open(browser, f"{url}/#/dashboard?train_id=./lenet_lr0.01&train_id=./lenet_lr0.05")
    card = _wait(browser, EC.presence_of_element_located((By.CSS_SELECTOR, 'section.scalar[data-tag="loss/auto"]')))
    card.find_element(By.TAG_NAME, "summary").click()  # the data table under the chart
    rows = [r.find_elements(By.TAG_NAME, "td") for r in card.find_elements(By.CSS_SELECTOR, "tbody tr")]
    mine = [(int(c[1].text), float(c[2].text)) for c in rows if c[0].text == "./lenet_lr0.01"]
    assert [s for s, _ in mine] == list(range(1, len(losses) + 1))  # one point per recorded step
    assert mine[-1][1] == float(np.float32(losses[-1]))            # the last value is the logged loss
    assert f"step {len(losses)}," in card.find_element(By.CSS_SELECTOR, "p.last").text
    # the chart itself draws the same points (two runs overlaid, zoom slider present)
    option = browser.execute_script(
        "const c = insight.dashboard.scalarCharts['loss/auto/scalar'].chart.getOption();"
        "return {series: c.series.map(s => [s.name, s.data.length, s.data[s.data.length - 1]]),"
        "        zoom: c.dataZoom.length, log: c.yAxis[0].type};")
    assert option["series"][0] == ["./lenet_lr0.01", len(losses), [len(losses), float(np.float32(losses[-1]))]]
    assert option["series"][1][0] == "./lenet_lr0.05" and option["zoom"] == 2
    browser.find_element(By.ID, "log-axis").click()
    assert browser.execute_script(
        "return insight.dashboard.scalarCharts['loss/auto/scalar'].chart.getOption().yAxis[0].type") == "log"
    browser.find_element(By.ID, "log-axis").click()
    browser.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    _shot(browser, "training-dashboard.png")


def test_new_steps_appear_without_reloading(browser, site, tmp_path):
    import openspore as ms
    url, _, _, base = site
    with ms.SummaryRecord(os.path.join(str(base), "live")) as rec:
        for step in (1, 2, 3):
            rec.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
            rec.record(step)
        rec.flush()
        _open(browser, f"{url}/#/dashboard?train_id=./live")
        last = _wait(browser, EC.presence_of_element_located((By.CSS_SELECTOR, 'section[data-tag="loss"] p.last')))
        _wait(browser, lambda d: "step 3," in last.text)
        browser.execute_script("window.__stillHere = true")  # gone if the page were reloaded
        rec.add_value("scalar", "loss", ms.Tensor(np.float32(0.125)))
        rec.record(4)
        rec.flush()
        _wait(browser, lambda d: "step 4, value 0.125 (4 points)" in last.text, timeout=20)
        assert browser.execute_script("return window.__stillHere") is True


def test_graph_shows_conv2d_under_lenet_and_code_stack(browser, site):
    url, _, _, _ = site
    _open(browser, f"{url}/#/graph?train_id=./lenet_lr0.01")
    scope = "Default/network-WithLossCell/_backbone-SummaryLeNet/conv1-Conv2d"
    item = _wait(browser, EC.presence_of_element_located(
        (By.CSS_SELECTOR, f'li[data-scope="{scope}"] li[data-node^="{scope}/Conv2D"] button')))
    assert item.text.startswith("Conv2D")
    # the drawn graph holds both convolutions inside their LeNet scope boxes
    drawn = browser.execute_script(
        "return insight.graph.cy.nodes().filter(n => n.data('label') === 'Conv2D')"
        ".map(n => [n.id(), n.ancestors().map(a => a.id())]);")
    assert len(drawn) == 2
    assert all("Default/network-WithLossCell/_backbone-SummaryLeNet" in parents for _, parents in drawn)
    item.click()
    stack = _wait(browser, EC.presence_of_element_located((By.ID, "code-stack")))
    assert "nets.py:22" in stack.text  # the line of `self.conv1(x)` in LeNet.construct
    details = browser.find_element(By.ID, "node-details").text
    assert "float32[8,4,28,28]" in details and "pad_mode" in details
    # collapsing the LeNet scope hides the convolutions behind one box; the search finds them again
    browser.execute_script("document.querySelector('li[data-scope=\"Default/network-WithLossCell/"
                           "_backbone-SummaryLeNet\"] > button').click()")
    assert browser.execute_script("return insight.graph.cy.nodes().filter(n => n.data('label') === 'Conv2D')"
                                  ".length") == 0
    search = browser.find_element(By.ID, "graph-search")
    search.send_keys("conv2-Conv2d/Conv2D")
    _wait(browser, EC.element_to_be_clickable((By.CSS_SELECTOR, ".results button"))).click()
    _wait(browser, lambda d: "conv2-Conv2d" in d.find_element(By.ID, "node-details").text)
    time.sleep(0.5)
    _shot(browser, "graph.png")


def test_debugger_lists_a_hit_from_the_diverging_run(browser, site):
    url, token, _, _ = site
    browser.get(f"{url}/#token={token}")  # the address 'insight start' prints
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "main h1"))
    _open(browser, f"{url}/#/debugger?dump_dir=./diverging")
    _wait(browser, EC.presence_of_element_located((By.ID, "condition")))
    Select(browser.find_element(By.ID, "condition")).select_by_value("tensor_overflow")
    browser.find_element(By.XPATH, "//button[text()='Add watchpoint']").click()
    _wait(browser, lambda d: "tensor_overflow" in d.find_element(By.ID, "watchpoints").text)
    browser.find_element(By.XPATH, "//button[text()='Check watchpoints']").click()
    row = _wait(browser, EC.presence_of_element_located((By.CSS_SELECTOR, "#hits tr.hit-row")), timeout=120)
    cells = row.find_elements(By.TAG_NAME, "td")
    assert cells[2].text == "TensorOverflow" and row.find_elements(By.CSS_SELECTOR, ".hints li")  # and hints
    cells[1].find_element(By.TAG_NAME, "button").click()
    _wait(browser, lambda d: "nan_count" in d.find_element(By.ID, "tensor").text
          or "pos_inf_count" in d.find_element(By.ID, "tensor").text)
    assert browser.execute_script("return insight.debugger.rel.nodes().length") >= 2
    time.sleep(0.5)
    _shot(browser, "debugger.png")


def test_lineage_and_a_narrow_window(browser, site):
    url, _, _, _ = site
    _open(browser, f"{url}/#/lineage")
    table = _wait(browser, EC.presence_of_element_located((By.CSS_SELECTOR, 'table[aria-label="run comparison"]')))
    text = table.text
    assert "./lenet_lr0.01" in text and "./lenet_lr0.05" in text and "Momentum" in text
    _shot(browser, "lineage.png")
    browser.set_window_size(480, 800)
    try:
        _open(browser, f"{url}/#/")
        nav = browser.find_element(By.CSS_SELECTOR, "header nav")
        assert nav.is_displayed() and browser.find_element(By.CSS_SELECTOR, 'table[aria-label="runs"]').is_displayed()
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 520  # no sideways scrolling of the page itself
    finally:
        browser.set_window_size(1280, 800)


def test_the_run_list_marks_a_run_with_a_damaged_record(browser, tmp_path):
    from tests.insight.test_summary_damaged import _damage, _record_offsets, _write_run
    path = _write_run(tmp_path / "hit", range(1, 4))
    _damage(path, _record_offsets(path.read_bytes())[2] + 20)
    _write_run(tmp_path / "intact", range(1, 4))
    with serving(str(tmp_path)) as (url, _):
        _open(browser, f"{url}/#/")
        rows = {r.find_element(By.TAG_NAME, "a").text: r for r in browser.find_elements(By.CSS_SELECTOR, "tbody tr")}
        badge = rows["./hit"].find_element(By.CSS_SELECTOR, "span.error")
        assert badge.text.strip() == "⚠ 1 damaged record(s) skipped"
        assert "payload's CRC does not match" in badge.get_attribute("title")
        assert not rows["./intact"].find_elements(By.CSS_SELECTOR, "span.error")
