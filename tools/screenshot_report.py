"""Screenshot a judgegraph HTML report with headless Chromium (for docs/report.png).

    python -m tools.screenshot_report report.html docs/report.png [--open craigslist]   # from the root

Opens the report, unfolds one item's details (the first item with claims, or `--open ID`)
and scrolls nothing: the picture shows the run summary, the metric charts, the items table
and that item's details, up to `--max-height` pixels. Needs Debian's `chromium`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.support.browser import Browser

OPEN_ITEM = """
(() => {
  const wanted = %s;
  const rows = [...document.querySelectorAll("tr.item-row")];
  const row = rows.find(r => wanted ? r.dataset.id === wanted : false)
    || rows.find(r => document.querySelector("#item-" + r.dataset.item + " table.claims"));
  if (!row) return null;
  const details = document.getElementById("item-" + row.dataset.item);
  details.open = true;
  // move it right under the table so the picture shows it without the other items
  const section = document.getElementById("details");
  section.insertBefore(details, section.querySelector("h2").nextSibling);
  [...document.querySelectorAll("details.item")].forEach(d => { if (d !== details) d.hidden = true; });
  return row.dataset.id;
})()
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--open", dest="item", help="id of the item whose details to show")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--max-height", type=int, default=2600)
    args = parser.parse_args(argv)
    with Browser(width=args.width) as browser:
        browser.open(args.report.resolve().as_uri(), ready="document.body && document.body.dataset.reportReady")
        shown = browser.evaluate(OPEN_ITEM % json.dumps(args.item))
        width, height = browser.screenshot(args.png, max_height=args.max_height)
    print(f"wrote {args.png} ({width}x{height}, item {shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
