"""Take README's screenshot of a report (docs/report.png) in headless chromium, as the tests do.

    arena tournament tournaments/example.yaml
    arena report tournaments/results/example.sqlite --out /tmp/example.html
    python docs/report_screenshot.py /tmp/example.html docs/report.png

Needs Debian's chromium and chromium-driver (apt-get) and selenium (the test extra). The shot is
the top of the page, down to the end of the ratings chart (title, standings, ratings), in an
1100-pixel-wide window, so that it stays small (well under 300 KB) and readable in the README.
"""

from __future__ import annotations

import argparse
import base64
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path, help="the report's HTML file")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="report-shot-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={args.width},{args.height}")
        driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
        try:
            driver.set_page_load_timeout(30)
            driver.get(args.report.resolve().as_uri())
            WebDriverWait(driver, 10).until(
                lambda d: d.find_element(By.ID, "v-ply").text.startswith("ply ")
            )
            # Down to the end of the ratings chart: a clean cut, not a chart cut in half.
            bottom = driver.execute_script(
                "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                " return Math.ceil(r.bottom + window.scrollY);",
                "ratings",
            )
            shot = driver.execute_cdp_cmd(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": args.width, "height": bottom, "scale": 1},
                },
            )
            args.out.write_bytes(base64.b64decode(shot["data"]))
        finally:
            driver.quit()
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e3:.0f} KB)")


if __name__ == "__main__":
    main()
