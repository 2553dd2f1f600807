// Autograd Notes: the search page. Sphinx's own search wants every word of a
// query in a page and ranks by little more than titles; here MiniSearch ranks
// the pages (BM25 over fields, any word of the query), weighing most the
// questions each page says it answers, then its title, its headings and its
// prose (site/search/documents.py writes them, in the page's language). A
// pasted error comes first: the pages the "paste your error" ranking finds
// (error_search.js), with the cell. Sphinx's page shows the results: this
// script only replaces how they are found and ordered (Search._performSearch).
(function () {
  "use strict";

  var ERROR_FIRST = 0.4; // the error ranking's lowest score (MIN_SCORE): what the paste box lists comes first
  var MAX_RESULTS = 30;
  var ERRORS_PAGE = "errors"; // the error-message index
  var SNIPPET = 220; // the most characters of a page's opening shown under its title
  var BOOST = { q: 4, t: 3, h: 1.5, b: 1 };
  // Words that ask rather than say what about, in the site's languages (Sphinx's stop words
  // cover the rest); Chinese has no stop words of Sphinx's.
  var ASKING = new Set([
    "why", "how", "what", "when", "which", "does", "doesn", "don", "do", "is", "can", "should",
    "почему", "как", "что", "зачем", "когда", "ли", "можно", "нужно",
    "por", "que", "porque", "como", "quando", "qual", "o", "é",
    "为什么", "怎么", "怎样", "如何", "什么", "为何", "问题", "请问", "时候", "一个", "这个", "那个",
    "没有", "不会", "可以", "需要", "的", "了", "是", "在", "和", "与", "我", "你", "时", "会", "要",
    "把", "被", "还", "就", "都", "也", "有", "不", "设", "为", "么", "吗", "呢", "吧", "啊", "这",
    "那", "个", "让", "给", "对", "从", "到", "将",
  ]);
  var CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  var WORDS = /[\p{L}\p{N}_]+/gu;
  var DOTTED = /[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+/g; // torch.where, nn.Linear: a name of its own
  var HYPHENATED = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu; // non-scalar: also nonscalar
  var CAMEL = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g; // GradScaler: also grad, scaler

  var data = window.AUTOGRAD_NOTES_PAGES;
  if (!window.MiniSearch || !data) {
    return;
  }
  // Sphinx's search page loads searchtools.js (Search) and language_data.js (Stemmer, stop
  // words) after the scripts of the page: they are there when the page is ready, before
  // Search.init runs the query.
  var stop = new Set();
  var stemmer = null;
  var chinese = data.language.indexOf("zh") === 0;
  var segmenter =
    chinese && typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter("zh", { granularity: "word" }) : null;

  // A run of Chinese characters, in words: the browser's dictionary (Intl.Segmenter), or,
  // without one, overlapping pairs of characters. The same for the pages and the query.
  function chineseWords(run) {
    if (segmenter) {
      return Array.from(segmenter.segment(run))
        .filter(function (piece) {
          return piece.isWordLike;
        })
        .map(function (piece) {
          return piece.segment;
        });
    }
    if (run.length < 2) {
      return [run];
    }
    var pairs = [];
    for (var n = 0; n + 1 < run.length; n++) {
      pairs.push(run.slice(n, n + 2));
    }
    return pairs;
  }

  // A word and, for a name, its parts: retain_graph also retain and graph; GradScaler also grad and
  // scaler.
  function addWord(words, word) {
    words.push(word);
    var parts = word.indexOf("_") > 0 ? word.split("_") : [];
    if (/[a-z][A-Z]/.test(word)) {
      parts = parts.concat(word.match(CAMEL) || []);
    }
    parts.forEach(function (part) {
      if (part && part !== word) {
        words.push(part);
      }
    });
  }

  function tokenize(text) {
    var words = [];
    (text.match(DOTTED) || []).forEach(function (name) {
      words.push(name);
    });
    (text.match(HYPHENATED) || []).forEach(function (word) {
      words.push(word.replace(/-/g, ""));
    });
    (text.match(WORDS) || []).forEach(function (word) {
      if (!CJK.test(word)) {
        addWord(words, word);
        return;
      }
      word.split(/([\u3400-\u9fff\uf900-\ufaff]+)/).forEach(function (piece) {
        if (CJK.test(piece)) {
          words.push.apply(words, chineseWords(piece));
        } else if (piece) {
          addWord(words, piece);
        }
      });
    });
    return words;
  }

  // A name (torch.where, retain_graph) is kept as it is; a word loses its ending (Sphinx's
  // stemmer of the language) unless it is a stop word or asks.
  function processTerm(term) {
    var word = term.toLowerCase();
    if (/[._]/.test(word)) {
      return word;
    }
    if (!word || stop.has(word) || ASKING.has(word) || (word.length < 2 && !CJK.test(word))) {
      return null;
    }
    return stemmer && !CJK.test(word) ? stemmer.stemWord(word) : word;
  }

  // Each word of a synonyms group (docs/search_synonyms.toml), as the search compares it, with the
  // other words of its group.
  var groups = null;
  function synonymsOf(word) {
    if (groups === null) {
      groups = new Map();
      (data.synonyms || []).forEach(function (group) {
        var words = group.map(processTerm).filter(Boolean);
        words.forEach(function (each) {
          groups.set(
            each,
            words.filter(function (other) {
              return other !== each;
            }),
          );
        });
      });
    }
    return groups.get(word) || [];
  }

  // A word of a query as the search looks for it: the word itself, or, where no page uses it
  // ("unfreeze"; "freeze" on a Russian page), the words of its group that pages do use.
  function withSynonyms(term) {
    var word = processTerm(term);
    if (!word) {
      return null;
    }
    var exact = { fuzzy: false, prefix: false, processTerm: String };
    var used = function (each) {
      return pages().search(each, exact).length > 0;
    };
    if (used(word)) {
      return word;
    }
    var others = synonymsOf(word).filter(used);
    return others.length ? others : word; // a word of no group may be a typo: fuzzy matching finds it
  }

  var index = null;
  function pages() {
    if (index === null) {
      index = new MiniSearch({
        idField: "d",
        fields: ["q", "t", "h", "b"],
        storeFields: ["t"],
        tokenize: tokenize,
        processTerm: processTerm,
        extractField: function (page, field) {
          var value = page[field];
          return Array.isArray(value) ? value.join(" \n ") : value;
        },
      });
      index.addAll(data.pages);
    }
    return index;
  }

  // The pages that answer ``query``, best first: [docname, title, anchor, score].
  var byDoc = new Map(
    data.pages.map(function (page) {
      return [page.d, page];
    }),
  );

  function terms(text) {
    return new Set(tokenize(text).map(processTerm).filter(Boolean));
  }

  // What a result shows under its title: the recorded message an error matched, the question of the
  // page that shares most words with the query, or the page's opening. Text only, never markup.
  function snippet(doc, asked, message) {
    if (message) {
      return message;
    }
    var page = byDoc.get(doc);
    if (!page) {
      return "";
    }
    var best = null;
    var most = 0;
    page.q.forEach(function (question) {
      var shared = 0;
      terms(question).forEach(function (term) {
        shared += asked.has(term) ? 1 : 0;
      });
      if (shared > most) {
        best = question;
        most = shared;
      }
    });
    if (best) {
      return best;
    }
    var opening = page.b.slice(0, SNIPPET);
    return opening.length < page.b.length ? opening.replace(/\s+\S*$/, "") + " …" : opening;
  }

  // The pages that answer ``query``, best first: [docname, title, anchor, score, snippet].
  function rank(query) {
    var found = [];
    var seen = new Set();
    var asked = terms(query); // the query's words, as the snippets compare them
    var errors = window.AutogradNotesErrorSearch;
    var messages = window.AUTOGRAD_NOTES_ERRORS;
    if (errors && messages) {
      var matches = errors.rank(query, messages);
      // a page listed for its quote alone (a GPU's message no record holds) leads too
      if (matches.length && (matches[0].score >= ERROR_FIRST || matches[0].quote)) {
        matches.forEach(function (match) {
          var anchor = match.cells.length ? "#cell-" + match.cells[0] : "";
          found.push([match.doc, match.title, anchor, 1000 + match.score, snippet(match.doc, asked, match.text)]);
          seen.add(match.doc);
        });
        // then where every documented message is listed, with its other pages
        var index = byDoc.get(ERRORS_PAGE);
        if (index) {
          found.push([index.d, index.t, "", 1000, snippet(index.d, asked)]);
          seen.add(index.d);
        }
      }
    }
    pages()
      .search(query, {
        boost: BOOST,
        combineWith: "OR",
        processTerm: withSynonyms,
        fuzzy: function (term) {
          return term.length > 5 ? 0.2 : null;
        },
      })
      .forEach(function (result) {
        if (!seen.has(result.id)) {
          found.push([result.id, result.t, "", result.score, snippet(result.id, asked)]);
          seen.add(result.id);
        }
      });
    return found.slice(0, MAX_RESULTS);
  }

  // Sphinx lists the results; each gets its snippet (Sphinx's own would be the page's text around
  // the first word found, code and boxes included).
  function addSnippets(results) {
    var shown = new Map(
      results.map(function (result) {
        return [result[0], result[4]];
      }),
    );
    var list = document.getElementById("search-results");
    if (!list) {
      return;
    }
    new MutationObserver(function () {
      list.querySelectorAll("ul.search > li").forEach(function (item) {
        var link = item.querySelector("a");
        if (!link || item.querySelector("p.search-snippet")) {
          return;
        }
        var doc = (link.getAttribute("href") || "").split("#")[0].replace(/\.html$/, "");
        var text = shown.get(doc);
        if (text) {
          var line = document.createElement("p");
          line.className = "search-snippet";
          line.textContent = text;
          item.appendChild(line);
        }
      });
    }).observe(list, { childList: true, subtree: true });
  }

  function install() {
    if (typeof Search === "undefined") {
      return;
    }
    stop = window.stopwords || new Set();
    stemmer = typeof Stemmer === "function" ? new Stemmer() : null;
    window.AutogradNotesSiteSearch = { rank: rank, tokenize: tokenize, processTerm: processTerm };
    // Sphinx shows its results from the last one: [docname, title, anchor, description, score,
    // file name, kind], the best last.
    if (typeof DOCUMENTATION_OPTIONS !== "undefined") {
      DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false; // the snippets are this script's
    }
    Search._performSearch = function () {
      var query = new URLSearchParams(window.location.search).get("q") || "";
      var results = rank(query);
      addSnippets(results);
      return results
        .map(function (result) {
          return [result[0], result[1], result[2], null, result[3], result[0], "text"];
        })
        .reverse();
    };
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", install);
  } else {
    install();
  }
})();
