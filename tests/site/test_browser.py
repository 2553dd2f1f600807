"""The site as readers meet it: every language, in Debian's Chromium, served on loopback.

The whole site (``whole_site``, built once per run as ``nox -s docs`` builds
it) is served under the path it is published at (``autograd_notes_site_url``)
by a small HTTP server that answers a missing page with the site's
``404.html``, as GitHub Pages does. Chromium is driven by Playwright with
``executable_path``: Playwright cannot download a browser here, and
``.ci/run`` installs Debian's ``chromium``. Every request that leaves
loopback is refused and counted as a failure: the site must work offline.

Screenshots of key pages are written to ``build/screenshots/`` (or
``AUTOGRAD_NOTES_SCREENSHOTS``) for people to look at.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import Problems, Server, watch
from _html import read_page
from _site import LANGUAGES, ROOT, SYNTHETIC_CUDA_EXAMPLE, Site

from autograd_notes._explain.match import rank, token_weights
from autograd_notes.site.build.error_index import cell_messages, cell_quotes
from autograd_notes.site.examples.figure_scraper import TEXT_KEY, png_texts

SCREENSHOTS = Path(os.environ.get("AUTOGRAD_NOTES_SCREENSHOTS", ROOT / "build" / "screenshots"))
EXAMPLE_PAGE = f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.html').as_posix()}"
INPLACE_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)


# -- the server and the browser: tests/site/conftest.py -------------------------


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900})
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def watched(context: Any) -> tuple[Any, Problems]:
    """A page whose console errors, page errors, failed requests and off-loopback requests are collected."""
    return watch(context)


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


SEARCH_MS = 30_000  # a search takes 1-2 s here, under load too


def search_from_the_sidebar(page: Any, url: str, query: str) -> None:
    """Open ``url``, type ``query`` in the sidebar's search box, press Enter and wait for every result.

    Sphinx's search is done when it writes its summary ("Search finished, found
    ..."), after the last result. Its progress dots are no sign: ``stopPulse``
    leaves the next tick scheduled, which starts them again (out of sight) within
    half a second, so a wait for them to stop missed the end on a loaded machine.
    """
    page.goto(url)
    page.fill("form.sidebar-search-container input[name=q]", query)
    page.press("form.sidebar-search-container input[name=q]", "Enter")
    page.wait_for_function(
        "(document.querySelector('#search-results p.search-summary')?.textContent ?? '').trim() !== ''",
        timeout=SEARCH_MS,
    )


# -- the tests -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "query"),
    [
        ("en", "version counter"),
        ("ru", "счётчик версий"),
        ("zh_CN", "计算图"),
        ("pt_BR", "contador de versão"),
    ],
)
def test_search_finds_the_mental_model_in_each_language(
    server: Server, watched: tuple[Any, Problems], language: str, query: str
) -> None:
    page, problems = watched
    search_from_the_sidebar(page, server.url(language, "index.html"), query)
    summary = page.inner_text("#search-results p.search-summary")
    assert re.search(r"\d", summary), (language, summary)  # "found 3 pages", in the reader's language
    links = page.eval_on_selector_all("ul.search li a", "links => links.map(a => a.href)")
    assert any("concepts/mental_model.html" in link for link in links), (language, links)
    assert all(f"/{language}/" in link for link in links)
    screenshot(page, f"{language}-search")
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_pasted_error_message_leads_to_its_entry_in_the_error_index(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    search_from_the_sidebar(page, server.url(language, "index.html"), INPLACE_ERROR)
    entry = page.locator("ul.search li a[href*='errors.html']").first
    entry.click()
    page.wait_for_load_state("load")
    assert page.url.split("#")[0].endswith(f"/{language}/errors.html")
    assert page.get_by_text("modified by an inplace operation").first.is_visible()
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switcher_opens_the_same_page_in_every_language(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    for target in LANGUAGES:
        page.goto(server.url(language, EXAMPLE_PAGE))
        page.click(f"nav.language-switcher a[hreflang='{target.replace('_', '-')}']")
        page.wait_for_load_state("load")
        assert page.url == server.url(target, EXAMPLE_PAGE)
        assert page.evaluate("document.documentElement.lang") == target.replace("_", "-")
    assert problems.clear() == []


# What a block's line looks like on screen: the boxes of its text, and the block's visible inside.
LINE_BOXES = """(pre, needle) => {
    const text = pre.textContent;
    const start = text.indexOf(needle);
    if (start < 0) return null;
    const stop = text.indexOf("\\n", start) < 0 ? text.length : text.indexOf("\\n", start);
    const range = document.createRange();
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let at = 0, started = false, node;
    while ((node = walker.nextNode())) {
        if (!started && start < at + node.length) { range.setStart(node, start - at); started = true; }
        if (stop <= at + node.length) { range.setEnd(node, stop - at); break; }
        at += node.length;
    }
    const box = pre.getBoundingClientRect();
    const left = box.left + pre.clientLeft, top = box.top + pre.clientTop;
    return {
        line: text.slice(start, stop),
        rects: [...range.getClientRects()].filter(r => r.width > 0)
            .map(r => [r.left, r.right, r.top, r.bottom]),
        inside: [left, left + pre.clientWidth, top, top + pre.clientHeight],
        window: window.innerWidth,
    };
}"""
# Every visible block of outputs that needs scrolling sideways to be read (code may: it keeps its lines;
# so may an output with a show_state table, whose rows keep theirs).
SIDEWAYS = """() => [...document.querySelectorAll(
        "article div.sphx-glr-script-out pre, article .runner-tab-panel pre")]
    .filter(pre => pre.offsetParent !== null && pre.scrollWidth > pre.clientWidth)
    .filter(pre => pre.querySelector(".g-StateRow") === null)
    .map(pre => [pre.scrollWidth, pre.clientWidth, pre.textContent.slice(0, 80)])"""
ERROR_LINE = "RuntimeError: one of the variables needed for gradient computation"


def assert_read_whole(block: Any, needle: str) -> str:
    """The line of ``block`` starting with ``needle`` is on screen whole: inside the block and the window."""
    block.scroll_into_view_if_needed()
    found = block.evaluate(LINE_BOXES, needle)
    assert found is not None, needle
    left, right, top, bottom = found["inside"]
    assert found["rects"], found
    for x0, x1, y0, y1 in found["rects"]:
        assert left - 1 <= x0, (found["line"], (x0, x1), (left, right))
        assert x1 <= right + 1, (found["line"], (x0, x1), (left, right))
        assert top - 1 <= y0, (found["line"], (y0, y1), (top, bottom))
        assert y1 <= bottom + 1, (found["line"], (y0, y1), (top, bottom))
        assert x1 <= found["window"], found
    return str(found["line"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_outputs_wrap_so_the_error_line_is_read_whole_at_1280_px(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    assert page.viewport_size["width"] == 1280
    page.goto(server.url(language, EXAMPLE_PAGE))
    assert page.evaluate(SIDEWAYS) == []  # outputs wrap
    outputs = page.locator("div.sphx-glr-script-out pre", has_text=ERROR_LINE)
    assert outputs.count() >= 2
    for n in range(outputs.count()):
        if outputs.nth(n).is_visible():
            line = assert_read_whole(outputs.nth(n), ERROR_LINE)
            assert "has been modified by an inplace operation" in line
            assert "which is output 0 of" in line  # the words the paragraphs after it point at
    # code keeps its lines: a long `match=` line is one line on screen, read by scrolling its block
    match = page.locator("div.highlight-Python pre", has_text="match=").first
    match.scroll_into_view_if_needed()
    found = match.evaluate(LINE_BOXES, "match=")
    assert len({round(top) for _, _, top, _ in found["rects"]}) == 1, found
    page.locator("div.sphx-glr-script-out pre", has_text="output 0 of Pow").first.scroll_into_view_if_needed()
    screenshot(page, f"{language}-traceback")
    # the other runner's output, in its tab, wraps the same way
    tabs = page.locator(".runner-tabs").first
    tabs.locator("label").nth(1).click()
    panel = tabs.locator(".runner-tab-panel").nth(1)
    assert panel.is_visible()
    assert page.evaluate(SIDEWAYS) == []
    assert "torch.cuda.FloatTensor" in assert_read_whole(panel.locator("pre"), ERROR_LINE)
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switcher_fits_the_sidebar_and_marks_the_current_language(
    server: Server, context: Any, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, EXAMPLE_PAGE))
    sidebar = page.locator(".sidebar-container").bounding_box()
    switcher = page.locator("nav.language-switcher")
    parts = [switcher, switcher.locator(".language-switcher-label"), *switcher.locator("a").all()]
    assert len(parts) == 2 + len(LANGUAGES)
    for part in parts:
        box = part.bounding_box()
        assert box is not None
        assert sidebar["x"] <= box["x"], (part.inner_text(), box, sidebar)
        assert box["x"] + box["width"] <= sidebar["x"] + sidebar["width"], (part.inner_text(), box, sidebar)
        assert part.evaluate("e => e.scrollWidth <= e.clientWidth"), part.inner_text()
    # the label lines up with the navigation's captions
    caption = page.locator(".sidebar-tree .caption").first.bounding_box()
    label = switcher.locator(".language-switcher-label").bounding_box()
    assert abs(caption["x"] - label["x"]) <= 1
    tag = language.replace("_", "-")
    links = switcher.locator("a")
    for link in links.all():
        assert link.get_attribute("hreflang") == link.get_attribute("lang")
    current = switcher.locator('a[aria-current="true"]')
    assert current.count() == 1
    assert current.get_attribute("hreflang") == tag
    style = "e => ['fontWeight', 'borderLeftColor', 'color'].map(p => getComputedStyle(e)[p])"
    weight, mark, _ = current.evaluate(style)
    assert int(weight) >= 600
    assert mark not in ("rgba(0, 0, 0, 0)", "transparent")
    for other in switcher.locator("a:not([aria-current])").all():
        assert int(other.evaluate(style)[0]) < 600
        assert other.evaluate(style)[1] == "rgba(0, 0, 0, 0)"
    screenshot(page, f"{language}-example-top")  # the switcher, and the runners box
    # dark mode: the names stay readable on the dark sidebar, the mark stays visible
    page.emulate_media(color_scheme="dark")
    page.reload()
    background = page.locator(".sidebar-drawer").evaluate("e => getComputedStyle(e).backgroundColor")
    assert _luminance(background) < 0.2
    for link in links.all():
        assert _luminance(link.evaluate(style)[2]) > 0.5
    assert _luminance(current.evaluate(style)[1]) > 0.3
    screenshot(page, f"{language}-example-top-dark")
    page.emulate_media(color_scheme="light")
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_runners_box_keeps_its_text_off_its_border_like_an_admonition(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, EXAMPLE_PAGE))
    inset = """e => {
        const box = e.getBoundingClientRect();
        const line = e.querySelector(':scope > p:not(.admonition-title)').getBoundingClientRect();
        const last = e.lastElementChild.getBoundingClientRect();
        return [line.left - box.left, box.right - line.right, box.bottom - last.bottom];
    }"""
    runners = page.locator(".runner-summary").evaluate(inset)
    note = page.locator("div.admonition.sphx-glr-download-link-note").evaluate(inset)
    assert runners[0] >= 8, runners  # the border (3 px) and the padding
    assert abs(runners[0] - note[0]) <= 1, (runners, note)  # as furo's own admonitions
    assert runners[1] >= 6, runners  # and off the right and bottom edges
    assert runners[2] >= 6, runners
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_table_wider_than_a_phone_says_that_it_scrolls(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """The runners' facts at 390 px: a line above them, in the page's language; none where tables fit."""
    page, problems = watched
    hint = """() => Array.from(document.querySelectorAll('article .table-wrapper')).map(
        w => [w.classList.contains('autograd-wide'), getComputedStyle(w, '::before').content])"""
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(server.url(language, "runners.html"))
    wrappers = page.evaluate(hint)
    wide = [content for is_wide, content in wrappers if is_wide]
    assert wide, wrappers
    words = {"en": "Swipe", "ru": "Прокрутите", "zh_CN": "滑动", "pt_BR": "Deslize"}[language]
    assert all(words in content for content in wide), wide
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(server.url(language, "runners.html"))
    assert not any(is_wide for is_wide, _content in page.evaluate(hint))
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_figure_scaled_down_on_a_phone_says_how_to_see_it_full_size(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """A chart wider than a phone is scaled to fit; the line under it, in the page's language, says so.

    A browser review found the sharded page's matrix at 5 px labels on a phone, and nothing saying that
    tapping it opens it full size.
    """
    page, problems = watched
    hints = """() => Array.from(document.querySelectorAll('article a.figure-full-size')).map(
        a => getComputedStyle(a, '::after').content)"""
    example = "examples/18_distributed/plot_sharded_gradients.html"
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(server.url(language, example))
    page.wait_for_load_state("load")
    shown = page.evaluate(hints)
    assert shown, "no figure wider than a phone: the test would say nothing"
    words = {"en": "Tap", "ru": "Нажмите", "zh_CN": "点按", "pt_BR": "Toque"}[language]
    assert all(words in content for content in shown), shown
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(server.url(language, example))
    page.wait_for_load_state("load")
    assert all(content in ("none", "normal", "") for content in page.evaluate(hints))
    assert problems.clear() == []


def test_figures_side_by_side_stack_on_a_phone_each_as_wide_as_the_column(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    """A browser review found two side-by-side figures at 150 × 50 px on a phone (42 % each, stacked)."""
    page, problems = watched
    widths = """() => Array.from(document.querySelectorAll('article img.sphx-glr-multi-img')).map(
        img => [img.getBoundingClientRect().width, img.naturalWidth,
                img.closest('article').getBoundingClientRect().width])"""
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(server.url("en", "examples/13_training_loops/plot_numpy_requires_grad.html"))
    page.wait_for_load_state("load")
    shown = page.evaluate(widths)
    assert len(shown) >= 2, "no figures side by side: the test would say nothing"
    for width, natural, column in shown:
        assert width >= min(natural, 0.9 * column), (width, natural, column)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(server.url("en", "examples/13_training_loops/plot_numpy_requires_grad.html"))
    page.wait_for_load_state("load")
    wide = page.evaluate(widths)
    # on a wide screen sphinx-gallery's own rule still holds: never smaller than 42 % of the column
    assert all(width >= min(natural, 0.42 * column) for width, natural, column in wide), wide
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_download_link_returns_its_file(whole_site: Site, server: Server, language: str) -> None:
    """Every download link of every example page, followed from the served page's address, returns its
    file (over HTTP: following a link needs no browser)."""
    checked = 0
    for name in whole_site.pages(language):
        if not name.startswith("examples/"):
            continue
        page = server.url(language, name)
        for link in read_page(whole_site.html / language, name).root.find_all("a", class_="download"):
            href = urllib.parse.urljoin(page, link.attrs["href"])
            with urllib.request.urlopen(href) as response:
                assert response.status == 200, (name, href)
                body = response.read()
            assert len(body) > 100, (name, href)
            if href.endswith(".py"):
                assert b"autograd_notes" in body or b"import torch" in body, href
            elif href.endswith(".ipynb"):
                assert b'"cells"' in body, href
            elif href.endswith(".zip"):
                assert body[:2] == b"PK", href
            else:
                raise AssertionError(f"{name}: a download of an unknown kind: {href}")
            checked += 1
    examples = len(list((ROOT / "gallery").glob("*/plot_*.py")))
    assert checked >= 3 * examples + 2  # .py, .ipynb, .zip of every example, and the gallery's two archives


def test_cpu_and_gpu_tabs_switch(server: Server, watched: tuple[Any, Problems]) -> None:
    page, problems = watched
    page.goto(server.url("en", EXAMPLE_PAGE))
    tabs = page.locator(".runner-tabs").first
    labels = tabs.locator("label")
    panels = tabs.locator(".runner-tab-panel")
    assert labels.count() == 2
    assert "CPU runner" in labels.nth(0).inner_text()
    assert "CUDA runner" in labels.nth(1).inner_text()
    assert panels.nth(0).is_visible()
    assert not panels.nth(1).is_visible()
    assert "torch.FloatTensor" in panels.nth(0).inner_text()
    labels.nth(1).click()
    assert panels.nth(1).is_visible()
    assert not panels.nth(0).is_visible()
    assert "torch.cuda.FloatTensor" in panels.nth(1).inner_text()
    tabs.scroll_into_view_if_needed()
    screenshot(page, "en-example-cuda-tab")
    labels.nth(0).click()
    assert panels.nth(0).is_visible()
    assert not panels.nth(1).is_visible()
    assert problems.clear() == []


DOWNLOAD_LOOK = """a => {
  const probe = document.createElement("span");
  probe.style.backgroundColor = "var(--color-background-secondary)";
  document.body.append(probe);
  const furo = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const style = getComputedStyle(a);
  return [style.backgroundImage, style.backgroundColor, furo];
}"""


def test_download_buttons_take_furos_colours_in_both_schemes(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    """No sphinx-gallery yellow gradient: furo's secondary background, light and dark."""
    page, problems = watched
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.goto(server.url("pt_BR", EXAMPLE_PAGE))
        image, background, furo = page.locator("div.sphx-glr-download a").first.evaluate(DOWNLOAD_LOOK)
        assert (image, background) == ("none", furo), scheme
    assert problems.clear() == []


def _luminance(css_colour: str) -> float:
    red, green, blue = (int(v) for v in re.findall(r"\d+", css_colour)[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def test_dark_mode_switches_the_page_and_is_remembered(server: Server, watched: tuple[Any, Problems]) -> None:
    page, problems = watched
    page.goto(server.url("en", EXAMPLE_PAGE))
    background = "getComputedStyle(document.body).backgroundColor"
    assert _luminance(page.evaluate(background)) > 0.8
    for _ in range(3):  # furo cycles auto -> dark -> light (or auto -> light -> dark)
        if page.evaluate("document.body.dataset.theme") == "dark":
            break
        page.locator(".theme-toggle-content button.theme-toggle").click()
    assert page.evaluate("document.body.dataset.theme") == "dark"
    assert _luminance(page.evaluate(background)) < 0.2
    output = page.locator("div.sphx-glr-script-out pre").first
    assert _luminance(output.evaluate("e => getComputedStyle(e).color")) > 0.6  # outputs stay readable
    screenshot(page, "en-example-dark")
    page.reload()
    assert page.evaluate("document.body.dataset.theme") == "dark"
    assert _luminance(page.evaluate(background)) < 0.2
    assert problems.clear() == []


def test_copy_buttons_copy_code_without_prompts_and_not_outputs(
    server: Server, context: Any, watched: tuple[Any, Problems]
) -> None:
    page, problems = watched
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server.url("en", EXAMPLE_PAGE))
    code_cells = page.locator("div.highlight-Python div.highlight pre")
    assert code_cells.count() > 3
    assert page.locator("div.sphx-glr-script-out button.copybtn").count() == 0
    # every code cell has one, and so does the install command
    assert page.locator("div.install-line button.copybtn").count() == 1
    assert page.locator("button.copybtn").count() == code_cells.count() + 1
    cell = code_cells.nth(1)
    cell.hover()
    cell.locator("xpath=following-sibling::button[contains(@class, 'copybtn')]").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == cell.inner_text().strip()
    # a doctest-style snippet: prompts and printed lines are left behind
    page.goto(server.url("en", "index.html"))
    page.evaluate(
        """() => {
        const block = document.createElement('div');
        block.className = 'highlight-pycon notranslate';
        const prompt = '<span class="gp">&gt;&gt;&gt; </span>';
        block.innerHTML = '<div class="highlight"><pre data-snippet="">' + prompt + 'x = 1\\n'
          + prompt + 'print(x)\\n<span class="go">1</span>\\n</pre></div>';
        document.querySelector('article').prepend(block);
        addCopyButtonToCodeCells();
    }"""
    )
    page.locator("pre[data-snippet]").hover()  # (copybutton gives every cell an id of its own)
    page.locator("pre[data-snippet] + button.copybtn").click()
    assert page.evaluate("navigator.clipboard.readText()") == "x = 1\nprint(x)"
    assert problems.clear() == []


@pytest.mark.parametrize(
    ("language", "tooltip", "title"),
    [
        ("en", "Copy", "Copy to clipboard"),
        ("ru", "Скопировать", "Скопировать в буфер"),
        ("zh_CN", "复制", "复制到剪贴板"),
        ("pt_BR", "Copiar", "Copiar para a área de transferência"),
    ],
)
def test_copy_buttons_speak_the_page_language(
    server: Server, watched: tuple[Any, Problems], language: str, tooltip: str, title: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, EXAMPLE_PAGE))
    button = page.locator("button.copybtn").first
    assert button.get_attribute("data-tooltip") == tooltip
    assert button.locator("svg title").text_content() == title
    assert problems.clear() == []


def test_a_missing_page_gets_the_404_page_with_working_links(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    page, problems = watched
    response = page.goto(server.url("en", "examples/no-such-page.html"))
    assert response is not None
    assert response.status == 404
    assert page.locator("h1").first.inner_text().startswith("Page not found")
    screenshot(page, "404")
    # Chromium logs the page's own 404; its stylesheets and scripts load from the nested path
    assert problems.clear() == [
        "console: Failed to load resource: the server responded with a status of 404 (Not Found)"
    ]
    page.locator("article a", has_text="error-message index").click()
    page.wait_for_load_state("load")
    assert page.url.startswith(server.url("en", "errors.html"))
    assert problems.clear() == []


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_math_renders_as_mathml_and_key_pages_are_captured(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, "examples/10_higher_order/plot_create_graph.html"))
    formula = page.locator("math").first
    # laid out as MathML (a browser without it would show inline text)
    assert formula.evaluate("e => getComputedStyle(e).display") in ("math", "inline math")
    assert formula.locator("msup").first.evaluate("e => e.getBoundingClientRect().height") > 0
    box = formula.bounding_box()
    assert box is not None
    assert box["width"] > 5
    assert box["height"] > 5
    screenshot(page, f"{language}-create-graph")
    for name in ("index.html", "errors.html", "runners.html"):
        page.goto(server.url(language, name))
        screenshot(page, f"{language}-{name.removesuffix('.html')}")
    assert problems.clear() == []


# -- reading on any screen: 1280 px and a 390 px phone, light and dark ----------

WIDTHS = [1280, 390]
KEY_PAGES = {"home": "index.html", "example": EXAMPLE_PAGE, "timeline": "timeline.html"}
# What keeps a page from being read as written, each a list of what is wrong (empty when none is).
READ_AS_WRITTEN = """() => {
  const html = document.documentElement;
  const shown = e => e.offsetParent !== null;
  const outputs = "article div.sphx-glr-script-out pre, article .runner-tab-panel pre, "
    + "article div.cell_output pre";
  const code = [...document.querySelectorAll("article div.highlight pre")].filter(shown)
    .filter(pre => !pre.closest(".sphx-glr-script-out, .runner-tab-panel, .cell_output, .error-variant"));
  const lines = pre => pre.textContent.replace(/\\n$/, "").split("\\n").length;
  const rows = pre => {
    const style = getComputedStyle(pre);
    const inside = pre.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    return Math.round(inside / parseFloat(style.lineHeight));
  };
  const hinted = e => getComputedStyle(e).backgroundImage.includes("radial-gradient");
  const wide = [...document.querySelectorAll("article .table-wrapper, article .tl-scroll")].filter(shown)
    .filter(box => box.scrollWidth > box.clientWidth + 1);
  const firstColumnStays = box => {
    const cell = box.querySelector("tbody tr > :first-child");
    const before = cell.getBoundingClientRect().left;
    const start = box.scrollLeft;
    box.scrollLeft = start === 0 ? box.scrollWidth : -box.scrollWidth;  // to the other end (rtl boxes too)
    const after = cell.getBoundingClientRect().left;
    box.scrollLeft = start;
    const shadow = getComputedStyle(cell).boxShadow;
    return Math.abs(before - after) <= 1 && shadow !== "none";
  };
  // a word of a heading on two lines, cut where no break belongs: a break may follow a space, a dot,
  // a hyphen, an underscore, "=", "(" or ",", come between a lower-case and an upper-case letter
  // (CamelCase), or fall next to a Chinese character or full-width mark
  const cutWords = [];
  const wideChar = /[\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef]/u;
  const mayBreak = (before, after) => /\\s/.test(before) || /\\s/.test(after) || /[.\\-_=(,]/.test(before)
    || (/[a-z]/.test(before) && /[A-Z]/.test(after)) || wideChar.test(before) || wideChar.test(after);
  for (const heading of document.querySelectorAll("article h1, article h2, article h3, article h4")) {
    if (!shown(heading)) continue;
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    let last = null;  // the previous character: [its text, its line]
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("a.headerlink")) continue;  // the ¶ shown on hover
      for (let i = 0; i < node.textContent.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = [...range.getClientRects()].find(r => r.width > 0);
        const char = node.textContent[i];
        if (!rect) {  // a space at the end of a line has no box: it is still the break
          if (last && /\\s/.test(char)) last = [char, last[1]];
          continue;
        }
        const line = Math.round(rect.top);
        if (last && last[1] < line - 2 && !mayBreak(last[0], char)) {
          cutWords.push(heading.textContent.trim().slice(0, 60));
        }
        last = [char, line];
      }
    }
  }
  return {
    sideways: html.scrollWidth > html.clientWidth + 1 ? [[html.scrollWidth, html.clientWidth]] : [],
    word_cut_in_heading: cutWords,
    hidden_output: [...document.querySelectorAll(outputs)].filter(shown)
      .filter(pre => pre.scrollHeight > pre.clientHeight + 1).map(pre => pre.textContent.slice(0, 60)),
    wrapped_code: code.filter(pre => rows(pre) > lines(pre)).map(pre => pre.textContent.slice(0, 60)),
    code_scrolls_unhinted: code.filter(pre => pre.scrollWidth > pre.clientWidth + 1 && !hinted(pre))
      .map(pre => pre.textContent.slice(0, 60)),
    table_without_fixed_column: wide.filter(box => !(hinted(box) && firstColumnStays(box)))
      .map(box => box.className),
    figure_not_at_the_text_edge: [...document.querySelectorAll("article img.sphx-glr-single-img")]
      .filter(shown)
      .filter(img => Math.abs(img.getBoundingClientRect().left
        - img.closest("section").getBoundingClientRect().left) > 1)
      .map(img => img.src.split("/").pop()),
    output_label_may_wrap: [...document.querySelectorAll("article div.sphx-glr-script-out")].filter(shown)
      .map(box => getComputedStyle(box, "::before"))
      .filter(label => label.content !== "none"
        && (label.whiteSpace !== "nowrap" || label.flexShrink !== "0"))
      .map(label => label.content),
  };
}"""
UNLINKED_FIGURES = """() => [...document.querySelectorAll(
  "article img.sphx-glr-single-img, article img.sphx-glr-multi-img")]
  .filter(img => img.naturalWidth > img.parentNode.clientWidth + 1 && !img.closest("a.figure-full-size"))
  .map(img => img.src.split("/").pop())"""


# Every figure of a page: the file its src names, its width as drawn (1x) and as shown.
FIGURES = """() => [...document.querySelectorAll(
  "article img.sphx-glr-single-img, article img.sphx-glr-multi-img")]
  .map(img => [img.src, img.naturalWidth, img.getBoundingClientRect().width])"""
SMALLEST_TEXT_PX = 10.0


def small_figure_text(figures: list[list[Any]], sizes: dict[str, float | None]) -> list[str]:
    """The figures whose smallest text is shown under :data:`SMALLEST_TEXT_PX` (or carries no size)."""
    small = []
    for src, natural, shown in figures:
        if src not in sizes:
            with urllib.request.urlopen(src) as response:
                text = png_texts(response.read()).get(TEXT_KEY)
            sizes[src] = float(text) if text is not None else None
        size = sizes[src]
        if size is None:
            small.append(f"{src.rsplit('/', 1)[-1]}: no text size recorded")
        elif natural and size * shown / natural < SMALLEST_TEXT_PX:
            small.append(f"{src.rsplit('/', 1)[-1]}: {size * shown / natural:.1f} px")
    return small


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_loads_and_reads_as_written_at_1280_and_390_px(
    whole_site: Site, server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """Every page loads (no error, nothing off the machine) and reads as written, at both widths.

    No output cut short, no code line wrapped, no page scrolling sideways,
    no word of a heading cut in two (a name in code breaks at its dots,
    underscores or capitals), wide
    tables' first column fixed: a code block or table that scrolls shows
    a shadow at its edge (the scroll hint). At 1280 px, every value and label
    of a figure is at least 10 px tall as shown, and a figure shown smaller
    than drawn is a link to its full size. Each page is loaded once, at 1280
    px, then narrowed to 390 px as a window is (the layout is CSS's; the
    scroll hints follow the width) and read again: the pages a phone loads
    at 390 px from the start are the accessibility tests' and the key pages'
    screenshots.
    """
    page, problems = watched
    names = whole_site.pages(language)
    assert len(names) > 40
    sizes: dict[str, float | None] = {}
    failures = {}
    for name in names:
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        response = page.goto(server.url(language, name), wait_until="load")
        assert response is not None, name
        assert response.status == 200, name
        found = {f"{what} ({WIDTHS[0]} px)": items for what, items in page.evaluate(READ_AS_WRITTEN).items()}
        found["small_figure_text"] = small_figure_text(page.evaluate(FIGURES), sizes)
        found["scaled_figure_without_link"] = page.evaluate(UNLINKED_FIGURES)
        page.set_viewport_size({"width": WIDTHS[1], "height": 900})
        page.evaluate(NEXT_FRAME)  # the page has laid itself out at the new width
        found |= {f"{what} ({WIDTHS[1]} px)": items for what, items in page.evaluate(READ_AS_WRITTEN).items()}
        found["load"] = problems.clear()
        found = {what: items for what, items in found.items() if items}
        if found:
            failures[name] = found
    assert not failures, failures
    assert any(size is not None for size in sizes.values())
    screenshot(page, f"{language}-last-page-{WIDTHS[1]}")


# resolves once the page has drawn two frames: what a resize changed is laid out and its handlers ran
NEXT_FRAME = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _rgb(png: bytes) -> Any:
    from io import BytesIO

    from PIL import Image

    return Image.open(BytesIO(png)).convert("RGB")


def _white_share(png: bytes) -> float:
    """The share of a picture's pixels that are near white."""
    import numpy as np

    return float((np.asarray(_rgb(png)).min(axis=2) > 225).mean())


@pytest.mark.parametrize("language", LANGUAGES)
def test_figures_thumbnails_and_code_follow_a_dark_page(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """No white tile on a dark page (a pixel check), no underlined names in dark code."""
    page, problems = watched
    page.emulate_media(color_scheme="dark")
    page.goto(server.url(language, EXAMPLE_PAGE))
    assert _luminance(page.evaluate("getComputedStyle(document.body).backgroundColor")) < 0.2
    figure = page.locator("article img.sphx-glr-single-img").first
    figure.scroll_into_view_if_needed()
    assert _white_share(figure.screenshot()) < 0.05
    names = page.locator(
        "article div.highlight-Python .highlight .nn, article div.highlight-Python .highlight .nc"
    )
    assert names.count() > 0
    for n in range(names.count()):
        assert names.nth(n).evaluate("e => getComputedStyle(e).textDecorationLine") == "none"
    # in light mode the same figure is the white card it was drawn on: the check can fail
    page.emulate_media(color_scheme="light")
    assert _white_share(figure.screenshot()) > 0.5
    page.emulate_media(color_scheme="dark")
    page.goto(server.url(language, "examples/index.html"))
    thumbnails = page.locator("article .sphx-glr-thumbcontainer img")
    assert thumbnails.count() > 20
    for n in (0, thumbnails.count() // 2, thumbnails.count() - 1):
        thumbnails.nth(n).scroll_into_view_if_needed()
        assert _white_share(thumbnails.nth(n).screenshot()) < 0.05, n
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_outputs_show_repeated_warnings_once_and_state_tables_whole(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """forward_mode's 18 identical warnings are one line and a count; a show_state table's rows keep
    their line on a phone, its names in view while it scrolls."""
    page, problems = watched
    page.goto(server.url(language, "examples/10_higher_order/plot_forward_mode.html"))
    warned = page.locator("div.sphx-glr-script-out pre", has_text="DeprecationWarning").first
    text = warned.inner_text()
    assert text.count("DeprecationWarning") == 1, text
    assert re.search(r"\b18\b.*\n.*first call: 18", text), text
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(server.url(language, "examples/02_backward/plot_non_leaf_grad.html"))
    table = page.locator("div.sphx-glr-script-out pre", has_text="requires_grad").first
    table.scroll_into_view_if_needed()
    header = table.evaluate(LINE_BOXES, "tensor  ")
    assert len({round(top) for _, _, top, _ in header["rects"]}) == 1, header
    assert table.evaluate("pre => pre.scrollWidth > pre.clientWidth")  # it scrolls on a phone...
    name = table.locator(".g-StateName").nth(1)
    before = name.bounding_box()
    table.evaluate("pre => { pre.scrollLeft = pre.scrollWidth; }")
    assert name.bounding_box()["x"] == pytest.approx(before["x"], abs=1)  # ...with its names in view
    screenshot(page, f"{language}-state-table-390")
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_key_pages_are_captured_at_both_widths_light_and_dark(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for key, name in KEY_PAGES.items():
                page.goto(server.url(language, name))
                background = page.evaluate("getComputedStyle(document.body).backgroundColor")
                assert (_luminance(background) < 0.2) == (scheme == "dark"), (key, scheme)
                screenshot(page, f"{language}-{key}-{width}-{scheme}")
    assert problems.clear() == []


# -- paste your error ------------------------------------------------------------

ERROR_SEARCH_CASES = json.loads((Path(__file__).parent / "error_search_cases.json").read_text("utf-8"))
PASTE_LABELS = {
    "en": "Paste your error",
    "ru": "Вставьте свою ошибку",
    "zh_CN": "粘贴你的错误",
    "pt_BR": "Cole seu erro",
}
# an error's exact text today (records/cpu): one example explains it, the index and the timeline quote it
EXACT_ERROR = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [4, 3]], which is output 0 of Tanh, is at version 1; expected version 0 "
    "instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True)."
)


def first_result(box: Any) -> tuple[str, list[str]]:
    """The first page the box lists, and the links to its cells."""
    first = box.locator("ol.error-search-list > li").first
    cells = [str(a.get_attribute("href")) for a in first.locator("a.error-search-cell").all()]
    return str(first.locator("a").first.get_attribute("href")), cells


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_pasted_error_lists_the_example_that_explains_it_first(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    """Real messages of old and new releases, with other shapes, numbers and names, on both pages."""
    page, problems = watched
    # the box's normalisation is the Python one's (tests/site/test_error_search.py reads the same cases)
    page.goto(server.url(language, "errors.html"))
    for case in ERROR_SEARCH_CASES["normalise"]:
        script = "t => [AutogradNotesErrorSearch.errorMessage(t), AutogradNotesErrorSearch.normalise(t)]"
        found = page.evaluate(script, case["text"])
        expected = {"type": case["type"], "tokens": case["tokens"], "details": case["details"]}
        assert found == [case["message"], expected], case["text"]
    for name in ("errors.html", "index.html"):
        page.goto(server.url(language, name))
        # labelled for screen readers, in the page's language
        textarea = page.get_by_label(PASTE_LABELS[language])
        assert textarea.evaluate("e => e.tagName") == "TEXTAREA"
        assert textarea.is_visible()
        box = page.locator("form.error-search")
        assert box.locator(".error-search-results").get_attribute("aria-live") == "polite"
        wrong = []
        for case in ERROR_SEARCH_CASES["pastes"]:
            textarea.fill(case["paste"])
            href, cells = first_result(box)
            page_name = href.removeprefix("./").removesuffix(".html")
            if page_name not in {case["page"], *case.get("also", [])} or not cells:
                wrong.append((case["paste"][:80], href, case["page"]))
            cell_link = rf"(\./)?{re.escape(page_name)}\.html#cell-\d+"
            assert all(re.fullmatch(cell_link, cell) for cell in cells), cells
        assert wrong == []
    screenshot(page, f"{language}-paste-your-error")
    # each result shows the recorded message it matched, the words the paste shares marked
    textarea.fill(ERROR_SEARCH_CASES["pastes"][0]["paste"])
    matched = box.locator("ol.error-search-list > li").first.locator("p.error-search-matched")
    assert matched.locator("mark").count() >= 3
    assert "gradient" in matched.inner_text()
    # unrelated words list nothing, say so, and lead to the index of every documented message
    textarea.fill("the weather in Lisbon is mild in November")
    assert box.locator("ol.error-search-list").count() == 0
    assert box.locator("p.error-search-status").inner_text() == box.get_attribute("data-none")
    index = box.locator("p.error-search-index a")
    assert (index.get_attribute("href") or "").endswith("errors.html")
    assert problems.clear() == []


ERROR_HOLDOUT = json.loads((Path(__file__).parent / "error_holdout.json").read_text("utf-8"))


def test_the_box_ranks_every_real_error_as_explain_does(
    server: Server, watched: tuple[Any, Problems], whole_site: Site
) -> None:
    """The JavaScript port and the Python matcher list the same pages, cells and quotes, in order,
    for every error of the hold-out set (users' pastes, from tracebacks to bare messages), over the
    records the site was built from (its synthetic ones included)."""
    page, problems = watched
    page.goto(server.url("en", "errors.html"))
    script = (
        "texts => texts.map(t => AutogradNotesErrorSearch.rank(t, window.AUTOGRAD_NOTES_ERRORS)"
        ".map(m => [m.doc, m.cells, m.quote]))"
    )
    texts = [case["text"] for case in ERROR_HOLDOUT]
    in_browser = page.evaluate(script, texts)
    messages = cell_messages(whole_site.project)
    weights = token_weights(m.normalised for m in messages)
    quotes = cell_quotes(whole_site.project)
    in_python = [
        [[m.page, m.cells, m.quote] for m in rank(text, messages, weights, quotes)] for text in texts
    ]
    assert in_browser == in_python
    assert sum(bool(found) for found in in_python) >= 60  # the comparison covers real results
    assert any(m[2] for found in in_python for m in found)  # and a page listed for its quote
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_paste_box_works_with_the_keyboard_and_leads_to_the_cell(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, "index.html"))
    box = page.locator("form.error-search")
    textarea = page.get_by_label(PASTE_LABELS[language])
    textarea.focus()
    page.keyboard.insert_text(ERROR_SEARCH_CASES["pastes"][0]["paste"])  # results as the reader pastes
    assert box.locator("ol.error-search-list > li").count() >= 1
    box.locator(".error-search-results").evaluate("e => e.replaceChildren()")
    page.keyboard.press("Tab")  # to the button
    assert page.evaluate("document.activeElement.type") == "submit"
    page.keyboard.press("Enter")
    href, cells = first_result(box)
    assert href.removeprefix("./") == f"{ERROR_SEARCH_CASES['pastes'][0]['page']}.html"
    page.keyboard.press("Tab")  # to the first page, then its first cell
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == cells[0]
    with page.expect_navigation():
        page.keyboard.press("Enter")
    anchor = cells[0].split("#")[1]
    assert page.url.endswith(f"#{anchor}")
    cell = page.locator(f"[id='{anchor}']")
    assert cell.count() == 1
    assert cell.locator("pre").first.is_visible()  # the code cell that raises it
    assert problems.clear() == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_exact_error_text_in_the_site_search_lists_its_example_first(
    server: Server, watched: tuple[Any, Problems], language: str
) -> None:
    page, problems = watched
    search_from_the_sidebar(page, server.url(language, "index.html"), EXACT_ERROR)
    links = page.eval_on_selector_all("ul.search li a", "links => links.map(a => a.href)")
    assert links, language
    assert "examples/14_training_state/plot_inplace_in_training.html" in links[0], links
    assert any("errors.html" in link for link in links)  # the index still comes, after it
    assert problems.clear() == []


def test_a_request_that_leaves_the_machine_is_refused_and_counted(browser: Any) -> None:
    """What every page test relies on: Chromium refuses a request off loopback (a host name or an
    address), and the watched page counts it."""
    context = browser.new_context()
    try:
        page, problems = watch(context)
        page.set_content(
            "<img src='https://example.com/a.png'><img src='http://192.0.2.1/b.png'>", wait_until="load"
        )
        found = problems.clear()
    finally:
        context.close()
    for url in ("https://example.com/a.png", "http://192.0.2.1/b.png"):
        assert f"request off the machine: {url}" in found, found
        assert any(line.startswith(f"failed: {url} (") for line in found), found


# every mark of a difference (not "same", not "no record") inside the visible part of its table's box,
# right of the sticky row names; and no box that hides rows below its lower edge
HIDDEN_MARKS = """() => {
  const hidden = [];
  for (const box of document.querySelectorAll('.tl-scroll')) {
    const edge = box.getBoundingClientRect();
    const names = box.querySelector('th[scope="row"]');
    const left = names ? names.getBoundingClientRect().right : edge.left;
    for (const mark of box.querySelectorAll('td.tl-mark:not(.tl-same):not(.tl-none)')) {
      const shown = mark.getBoundingClientRect();
      if (shown.left < left - 1 || shown.right > edge.right + 1) hidden.push(mark.innerText);
    }
    if (box.scrollHeight > box.clientHeight + 1) hidden.push('rows cut at the lower edge');
    // the line that says where older releases are shows only where they are out of view
    const hint = box.previousElementSibling;
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (!hint || !hint.classList.contains('tl-scroll-hint')) hidden.push('no line about older releases');
    else if (!hint.hidden !== scrolls) hidden.push(scrolls ? 'no swipe hint' : 'a swipe hint, no scroll');
  }
  return hidden;
}"""


def test_every_difference_mark_is_in_view_at_1280_px(server: Server, watched: tuple[Any, Problems]) -> None:
    # the marks are the same in every language; the English pages, every example
    page, _problems = watched
    hidden = {}
    for example in sorted((ROOT / "gallery").glob("*/plot_*.py")):
        name = f"examples/{example.parent.name}/{example.stem}.html"
        page.goto(server.url("en", name))
        found = page.evaluate(HIDDEN_MARKS)
        if found:
            hidden[name] = found
    assert hidden == {}


SWIPE_HINTS = """() => Array.from(document.querySelectorAll('.tl-scroll')).map(box => ({
  scrolls: box.scrollWidth > box.clientWidth + 1,
  shown: !box.previousElementSibling.hidden,
}))"""


def test_a_phone_is_told_where_the_older_releases_are(server: Server, watched: tuple[Any, Problems]) -> None:
    page, _problems = watched
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server.url("ru", "examples/16_extending_autograd/plot_compile_and_autograd.html"))
    boxes = page.evaluate(SWIPE_HINTS)
    assert boxes
    assert any(box["scrolls"] for box in boxes)
    assert all(box["shown"] == box["scrolls"] for box in boxes), boxes
