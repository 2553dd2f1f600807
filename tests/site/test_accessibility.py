"""Every page type for every reader: no WCAG 2 A/AA violation by axe-core, the widgets work by keyboard.

axe-core (through ``axe-playwright-python``, which ships its script: nothing
is fetched) runs its WCAG 2.0 and 2.1 level A and AA rules on each page type
of the whole site, in every language, in the light and the dark scheme, at
1280 and 390 px: each language in one of the four configurations (scheme and
width), each configuration in one language, so that each scheme and each
width is checked in two languages. What axe checks depends on a language's
text (its ``lang``, titles, names and labels: every language is checked),
on the scheme (contrast: both, each in two languages) and on the width
(reflow, scrolling regions: both, each in two languages); a language changes
the text, not the stylesheet, the templates or the layout. A run of axe
costs about two seconds of CPU per page, and the page sweep of
``test_browser.py`` loads every page of every language at both widths. Any
violation fails, naming the page, the rule and the elements. A keyboard test
walks an example page as a reader without a mouse does.

Alone: ``nox -s tests -- tests/site/test_accessibility.py`` (it builds the
whole site first, as every test of the built pages does).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from _browser import Server, watch
from _site import LANGUAGES, SYNTHETIC_CUDA_EXAMPLE

# One page of each type the site has.
PAGE_TYPES = {
    "home": "index.html",
    "gallery": "examples/index.html",
    "example": f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.html').as_posix()}",
    "section": f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).parent.as_posix()}/index.html",
    "timeline": "timeline.html",
    "runners": "runners.html",
    "errors": "errors.html",
    "sources": "sources.html",
    "contribute": "contribute.html",
    "mental model": "concepts/mental_model.html",
}
SCHEMES = ["light", "dark"]
WIDTHS = [1280, 390]
# WCAG 2.0 and 2.1, levels A and AA: what the site promises
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
# Tab presses allowed from the top of an example page to its release table (the skip link, the
# sidebar, the page's own links and code cells' copy buttons come first)
MAX_TABS = 400


def violations(response: dict[str, Any]) -> list[str]:
    """axe's violations, a line each: the rule, its impact and what it asks, then every element it found."""
    lines = []
    for violation in response["violations"]:
        elements = "; ".join(
            f"{' '.join(map(str, node['target']))} {node['html'][:160]!r}" for node in violation["nodes"]
        )
        lines.append(f"{violation['id']} ({violation['impact']}: {violation['help']}): {elements}")
    return lines


def axe_violations(page: Any) -> list[str]:
    """Run axe-core's WCAG 2 A/AA rules on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    return violations(Axe().run(page, options=AXE_OPTIONS).response)


# (language, scheme, width): each language once, each of the four configurations once, so that
# each scheme and each width is checked in two languages (the docstring says why)
CONFIGURATIONS = [
    ("en", "light", 1280),
    ("ru", "dark", 1280),
    ("zh_CN", "dark", 390),
    ("pt_BR", "light", 390),
]
assert {language for language, _, _ in CONFIGURATIONS} == set(LANGUAGES)
assert {(scheme, width) for _, scheme, width in CONFIGURATIONS} == {(s, w) for s in SCHEMES for w in WIDTHS}


@pytest.mark.parametrize(("language", "scheme", "width"), CONFIGURATIONS)
def test_axe_finds_no_wcag_violation_on_any_page_type(
    server: Server, browser: Any, language: str, scheme: str, width: int
) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    try:
        page, problems = watch(context)
        failures: dict[str, list[str]] = {}
        for kind, name in PAGE_TYPES.items():
            response = page.goto(server.url(language, name), wait_until="load")
            assert response is not None, (kind, name)
            assert response.status == 200, (kind, name)
            found = axe_violations(page) + problems.clear()
            if found:
                failures[f"{kind} ({name})"] = found
    finally:
        context.close()
    where = f"{language} {scheme} {width} px"
    assert not failures, "\n".join(
        f"{where}, {name}:\n  " + "\n  ".join(lines) for name, lines in failures.items()
    )


def focused(page: Any) -> dict[str, Any]:
    """What has the keyboard's focus: its tag, whether it is in the release table, a row's summary, ..."""
    return dict(
        page.evaluate(
            """() => {
        const e = document.activeElement;
        return {
            tag: e.tagName.toLowerCase(),
            inTimeline: e.closest(".release-timeline") !== null,
            inTable: e.closest("table.tl-table") !== null,
            rowSummary: e.matches("details.tl-check > summary"),
            mark: e.matches("button.tl-mark-button"),
            // a mark's explanation, shown beside it while it has the focus
            tip: e.querySelector(".tl-tip") ? [e.querySelector(".tl-tip").textContent,
                e.querySelector(".tl-tip").getBoundingClientRect().width] : null,
            runnerSummary: e.matches(
                "details.runner-cell > summary, details.runner-section-cell > summary"),
            outline: getComputedStyle(e).outlineStyle !== "none"
                && parseFloat(getComputedStyle(e).outlineWidth) > 0,
        };
    }"""
        )
    )


def tab_until(page: Any, what: str, limit: int = MAX_TABS) -> int:
    """Press Tab until the focused element is ``what`` (a key of :func:`focused`); the presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if focused(page)[what]:
            return presses
    raise AssertionError(f"{limit} Tab presses never reached {what}")


def test_an_example_page_works_by_keyboard(server: Server, browser: Any) -> None:
    """From the top of an example page: Tab to its release table, open a row's details with Enter; on the
    runners page, open a popup with Enter and close it with Escape. The focus is seen all along."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page, problems = watch(context)
        page.goto(server.url("en", PAGE_TYPES["example"]), wait_until="load")
        tab_until(page, "inTable")
        assert focused(page)["outline"], focused(page)
        # a release's mark: a button named by its release and what it means, said beside it when focused
        tab_until(page, "mark")
        assert focused(page)["outline"], focused(page)
        text, width = focused(page)["tip"]
        # a release, or releases in a row that every check marks alike
        assert re.fullmatch(r"\d+\.\d+\.\d+(–\d+\.\d+\.\d+)?: .+", text), text
        assert width > 20, focused(page)
        # every difference, check by check: a row's summary is one tab stop, with nothing inside it
        tab_until(page, "rowSummary")
        row = page.evaluate_handle("document.activeElement.parentElement")  # this row, wherever focus goes
        assert row.get_attribute("open") is None
        assert focused(page)["outline"], focused(page)
        page.keyboard.press("Enter")
        assert row.get_attribute("open") is not None
        page.keyboard.press("Tab")  # the link to the cell: the first stop inside what opened
        assert page.evaluate(INSIDE_OPENED_ROW), focused(page)

        page.goto(server.url("en", "runners.html"), wait_until="load")
        tab_until(page, "runnerSummary")
        popup = page.evaluate_handle("document.activeElement.parentElement")
        assert focused(page)["outline"], focused(page)
        page.keyboard.press("Enter")
        assert popup.get_attribute("open") is not None
        page.keyboard.press("Escape")  # from its mark
        assert popup.get_attribute("open") is None
        assert focused(page)["runnerSummary"]
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")  # into the popup
        assert popup.evaluate("p => p.contains(document.activeElement) && p.open")
        page.keyboard.press("Escape")  # from inside it: closed, the focus back on its mark
        assert popup.get_attribute("open") is None
        assert popup.evaluate("p => p.querySelector(':scope > summary') === document.activeElement")
        assert problems.clear() == []
    finally:
        context.close()


# the focus is inside an open row of "Every difference", past its summary
INSIDE_OPENED_ROW = """() => {
    const e = document.activeElement, row = e.closest("details.tl-check");
    return row !== null && row.open && e.closest("summary") === null;
}"""
