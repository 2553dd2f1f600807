"""The search page in Chromium: questions readers asked find the page that answers them, errors their example.

The measure is :mod:`_question_search`'s (``benchmarks/question_search_quality.py``
prints it with the goals): here it must not fall below what the search does
today.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import pytest
from _browser import Problems, Server, watch
from _question_search import measure, questions

FIRST_FLOOR = 0.75
"""At least this share of the questions gets an answering page first: 25 of 39 when the set was
collected (Sphinx's own search: 5 of 27); 37 of 49 once ten more real questions (collected before any
was ranked: 8 of them first) joined it and four pages answered questions readers ask (no_grad or
detach, a layer's output, an assigned parameter, hooks and autograd.grad). Issue 34's goal is 75%.
A new page that answers a question of the set joins that question's pages (the in-place page of what
operations save, for "When inplace operation are allowed and when not"), as a reviewer would judge it."""
TOP_THREE_FLOOR = 0.9
"""At least this share gets one in the top three: 33 of 39 when the set was collected; 45 of 49 now.
The goal is 90%."""


@pytest.fixture
def watched(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield watch(context)
    finally:
        context.close()


def test_questions_readers_asked_find_a_page_that_answers_them(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    page, problems = watched
    quality = measure(page, lambda language: server.url(language, "search.html"))
    assert quality.asked == len(questions()) >= 30
    assert quality.first >= FIRST_FLOOR * quality.asked, (quality.first, quality.missed)
    assert quality.top_three >= TOP_THREE_FLOOR * quality.asked, quality.missed
    assert problems.clear() == []


@pytest.mark.parametrize(
    ("language", "query", "answer"),
    [
        ("en", "Why doesn't backward() work on nonscalar outputs?", "plot_vector_jacobian_product"),
        ("zh_CN", "为什么在backward的时候要把retain_graph设为true", "plot_retain_graph"),
        ("ru", "Почему .grad равен None у промежуточного тензора?", "plot_non_leaf_grad"),
        ("pt_BR", "Como congelar algumas camadas do modelo?", "plot_eval_and_freezing"),
    ],
)
def test_the_search_page_lists_the_answering_page_first(
    server: Server, watched: tuple[Any, Problems], language: str, query: str, answer: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, "search.html") + "?q=" + urllib.parse.quote(query))
    page.wait_for_function(
        "(document.querySelector('#search-results p.search-summary')?.textContent ?? '').trim() !== ''"
    )
    links = page.eval_on_selector_all("ul.search li a", "links => links.map(a => a.href)")
    assert links, query
    assert f"/{answer}.html" in links[0], links[:3]
    assert all(f"/{language}/" in link for link in links)
    # each result says why it is there: the page's question closest to the query, or its opening
    snippets = page.eval_on_selector_all(
        "ul.search li", "items => items.map(li => li.querySelector('p.search-snippet')?.textContent ?? '')"
    )
    assert all(snippets), snippets
    assert snippets[0].endswith(("?", "？")), snippets[0]
    assert problems.clear() == []


@pytest.mark.parametrize(
    ("language", "synonym", "word"),
    [
        ("en", "unfreeze", "freeze"),
        ("ru", "freeze", "заморозить"),
        ("zh_CN", "oom", "显存 内存 memory"),
        ("pt_BR", "freeze", "congelar"),
    ],
)
def test_a_word_no_page_uses_finds_the_pages_of_its_synonyms(  # docs/search_synonyms.toml
    server: Server, watched: tuple[Any, Problems], language: str, synonym: str, word: str
) -> None:
    page, problems = watched
    page.goto(server.url(language, "search.html"))
    page.wait_for_function("window.AutogradNotesSiteSearch !== undefined")
    rank = "query => window.AutogradNotesSiteSearch.rank(query).map(result => result[0])"
    found, direct = page.evaluate(rank, synonym), page.evaluate(rank, word)
    assert direct, word
    assert found[0] == direct[0], (found[:3], direct[:3])
    assert problems.clear() == []


def test_a_pasted_error_shows_the_message_each_page_matched(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    page, problems = watched
    error = "RuntimeError: Trying to backward through the graph a second time"
    page.goto(server.url("en", "search.html") + "?q=" + urllib.parse.quote(error))
    page.wait_for_function(
        "(document.querySelector('#search-results p.search-summary')?.textContent ?? '').trim() !== ''"
    )
    first = page.locator("ul.search li").first
    assert "#cell-" in (first.locator("a").get_attribute("href") or "")
    snippet = first.locator("p.search-snippet").inner_text()
    assert snippet.startswith("RuntimeError: Trying to backward through the graph a second time"), snippet
    # never the page's code or its boxes, as Sphinx's own summary showed them
    assert "match=r" not in page.inner_text("#search-results")
    assert "Go to the end" not in page.inner_text("#search-results")
    assert problems.clear() == []


def test_a_pasted_gpu_error_no_record_holds_leads_to_the_page_that_quotes_it(
    server: Server, watched: tuple[Any, Problems]
) -> None:
    """No runner has recorded a device-side assert; the page about it quotes the message."""
    page, problems = watched
    error = (
        "RuntimeError: CUDA error: device-side assert triggered\n"
        "CUDA kernel errors might be asynchronously reported at some other API call"
    )
    page.goto(server.url("en", "search.html") + "?q=" + urllib.parse.quote(error))
    page.wait_for_function(
        "(document.querySelector('#search-results p.search-summary')?.textContent ?? '').trim() !== ''"
    )
    first = page.locator("ul.search li").first
    href = first.locator("a").get_attribute("href") or ""
    assert href.split("#")[0].endswith("examples/07_cpu_vs_gpu/plot_async_cuda_errors.html"), href
    assert first.locator("p.search-snippet").inner_text() == "device-side assert triggered"
    assert problems.clear() == []
