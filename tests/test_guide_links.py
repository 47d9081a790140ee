"""The README is the front door (short: what it is, a screenshot, the two commands, a tour with links);
the user guide in docs/ holds the rest. Every relative link of either must lead to a file that exists,
and every page the window's Help lists in its reading order must exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_has_the_two_commands_and_a_screenshot():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) < 15_000
    assert "make run" in text and "make test" in text
    assert re.search(r"!\[[^\]]+\]\(docs/[^)]+\.png\)", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file(page):
    text = page.read_text(encoding="utf-8")
    missing = [target for target in LINK.findall(text)
               if not re.match(r"[a-z]+:", target) and not (page.parent / target).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_guide_order_names_pages_that_exist():
    # read as text: the Help module imports Qt, and this check belongs to the headless suite
    source = (ROOT / "designer" / "gui" / "help.py").read_text(encoding="utf-8")
    block = re.search(r"GUIDE_ORDER = \((.*?)\)\n", source, re.S)
    assert block is not None
    names = re.findall(r'"([a-z-]+\.md)"', block.group(1))
    assert names and all((ROOT / "docs" / name).is_file() for name in names)
    assert set(names) == {p.name for p in (ROOT / "docs").glob("*.md")}, "a page of docs/ missing from the order"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_table_is_broken_by_a_blank_line(page):
    # Markdown ends a table at a blank line: the rows after it show as raw "| ... |" text in the guide
    lines = page.read_text(encoding="utf-8").splitlines()
    broken = [k + 1 for k in range(1, len(lines) - 1)
              if not lines[k].strip() and lines[k - 1].startswith("|") and lines[k + 1].startswith("|")]
    assert not broken, f"{page.name}: a blank line inside a table at line(s) {broken}"
