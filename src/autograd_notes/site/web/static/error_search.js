// Autograd Notes: "paste your error". A reader's error message or traceback
// lists the example pages that explain it, best first, with the cells that
// raise it; on the search page, site_search.js puts those examples above
// the other results, with this ranking (window.AutogradNotesErrorSearch).
// Offline: the messages come from error_search_data.js, written from the
// records when the site was built.
//
// The algorithm is autograd_notes._explain.match's, line for line (its
// docstring explains it); tests/site/error_search_cases.json holds the cases
// both must agree on.
(function () {
  "use strict";

  var DETAIL_WEIGHT = 0.2;
  var TYPE_BONUS = 0.1;
  var MIN_SCORE = 0.4;
  var NEAR_BEST = 0.6;
  var RECALL_WEIGHT = 1.5;
  var SAME_MESSAGE = 0.06;
  var MAX_PAGES = 6;

  var TYPE = /(?:^|[\s:])((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Warning|Exception)))(?::\s|:$|$)/;
  var TYPE_START = /^((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Warning|Exception)))(?::\s|:$|$)/;
  var CPP_CONTEXT = /\n[ \t]*Exception raised from /;
  var TRACEBACK_LINE =
    /^(?:Traceback \(most recent call last\)|During handling of the above exception|The above exception was the direct cause)/;
  var SPACE = /[^\S\n]/g;
  var TENSOR = /\[torch\.(?:\w+\.)*\w*Tensor \[([^\]]*)\]\]/g;
  var SIZE = /torch\.Size\(\[([^\]]*)\]\)/g;
  var BARE_SHAPE = /(^|[\s(=:,])\[(\s*\d+(?:\s*,\s*\d+)*\s*,?\s*)?\]/g;
  var ADDRESS = /\b0x[0-9a-fA-F]+\b/g;
  var URL = /\b(?:https?|file):\/\/\S*/g;
  var PATH = /(^|[\s"'(])(?:[A-Za-z]:)?[\\/][^\s"',)]*/g;
  var QUOTED = /(^|\W)'([^'\s]+)'(?!\w)/g;
  var NAMESPACE = /\b(?:[A-Za-z_]\w*::)+/g;
  var NODE = /\b([A-Z]\w*?)Backward\d*\b/g;
  var NUMBER = /\b\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:st|nd|rd|th)?\b/g;
  var WORD = /<[a-z]+>|[a-z0-9_]+/g;

  function errorMessage(text) {
    text = text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(SPACE, " ");
    var cut = CPP_CONTEXT.exec(text);
    if (cut) {
      text = text.slice(0, cut.index);
    }
    var lines = text.split("\n");
    var start = -1;
    var found = null;
    lines.forEach(function (line, n) {
      var match = TYPE.exec(line);
      if (match) {
        start = n;
        found = match;
      }
    });
    if (start < 0) {
      return text.trim();
    }
    var message = [lines[start].slice(found.index + found[0].indexOf(found[1]))];
    for (var n = start + 1; n < lines.length; n++) {
      var line = lines[n];
      if (!line.trim() || line[0] === " " || line[0] === "\t" || TRACEBACK_LINE.test(line)) {
        break;
      }
      message.push(line);
    }
    return message.join("\n").trim();
  }

  function shape(dims) {
    return "shape:[" + (dims || "").replace(/\s+/g, "").replace(/,+$/, "") + "]";
  }

  function node(name) {
    return name.replace(NAMESPACE, "").replace(NODE, "$1");
  }

  function sorted(values) {
    return Array.from(new Set(values)).sort();
  }

  function normalise(text) {
    var message = errorMessage(text);
    var type = "";
    var found = TYPE_START.exec(message);
    if (found) {
      type = found[2];
      message = message.slice(found[0].length);
    }
    var details = [];
    message = message
      .replace(URL, " ")
      .replace(ADDRESS, " ")
      .replace(TENSOR, function (all, dims) {
        details.push(shape(dims));
        return " <tensor> ";
      })
      .replace(SIZE, function (all, dims) {
        details.push(shape(dims));
        return " <shape> ";
      })
      .replace(PATH, "$1 ")
      .replace(BARE_SHAPE, function (all, before, dims) {
        details.push(shape(dims));
        return before + " <shape> ";
      })
      .replace(QUOTED, function (all, before, name) {
        details.push("name:" + node(name).toLowerCase());
        return before + " <name> ";
      });
    message = node(message).replace(NUMBER, function (number) {
      details.push("n:" + number);
      return " <n> ";
    });
    var tokens = (message.toLowerCase().match(WORD) || []).filter(function (word) {
      return word.length > 1;
    });
    return { type: type, tokens: sorted(tokens), details: sorted(details) };
  }

  function weight(token, weights, unknown) {
    if (Object.prototype.hasOwnProperty.call(weights, token)) {
      return weights[token];
    }
    return token.indexOf(":") >= 0 ? unknown * DETAIL_WEIGHT : unknown;
  }

  function sum(tokens, weights, unknown) {
    var total = 0;
    tokens.forEach(function (token) {
      total += weight(token, weights, unknown);
    });
    return total;
  }

  function similarity(pasted, recorded, weights, unknown) {
    var mine = sorted(pasted.tokens.concat(pasted.details));
    var theirs = sorted(recorded.tokens.concat(recorded.details));
    var recall = RECALL_WEIGHT * RECALL_WEIGHT;
    var total = sum(mine, weights, unknown) + recall * sum(theirs, weights, unknown);
    if (!total) {
      return 0;
    }
    var theirSet = new Set(theirs);
    var common = mine.filter(function (token) {
      return theirSet.has(token);
    });
    if (
      common.every(function (token) {
        return token[0] === "<";
      })
    ) {
      return 0; // placeholders alone ("KeyError: '<name>'") say nothing of which message it is
    }
    var shared = sum(common, weights, unknown);
    var bonus = pasted.type && pasted.type === recorded.type ? TYPE_BONUS : 0;
    return ((1 + recall) * shared) / total + bonus;
  }

  // A page's match before any message is weighed.
  function newMatch(page, score) {
    return {
      doc: page.doc,
      uri: page.uri,
      title: page.title,
      score: score,
      cells: [],
      ties: 0,
      depth: 0,
      about: false,
      quote: "",
      text: "",
    };
  }

  // The first of `quotes` that `text` holds, spaces aside ("" if none).
  function quoted(quotes, text) {
    var spaced = text.split(/\s+/).filter(Boolean).join(" ");
    for (var i = 0; i < quotes.length; i += 1) {
      if (spaced.indexOf(quotes[i]) !== -1) {
        return quotes[i];
      }
    }
    return "";
  }

  // The pages that explain `text`, best first: {doc, uri, title, score, cells}.
  function rank(text, data) {
    var pasted = normalise(text);
    if (!pasted.tokens.length && !pasted.details.length) {
      return [];
    }
    var scores = data.messages.map(function (recorded) {
      return Math.round(similarity(pasted, recorded, data.weights, data.unknown) * 1e9) / 1e9;
    });
    var top = scores.reduce(function (a, b) {
      return Math.max(a, b);
    }, 0);
    var best = new Map();
    var near = new Map();
    var about = new Set();
    data.messages.forEach(function (recorded, number) {
      var score = scores[number];
      recorded.places.forEach(function (place) {
        var page = data.pages[place.page];
        var match = best.get(page.doc);
        if (match === undefined || score > match.score) {
          match = newMatch(page, score);
          match.text = recorded.text;
          best.set(page.doc, match);
        }
        if (score === match.score) {
          match.ties += 1;
          match.cells = sorted(match.cells.concat(place.cells)).sort(function (a, b) {
            return a - b;
          });
        }
        if (score >= top - SAME_MESSAGE) {
          var cells = near.get(page.doc) || new Set();
          place.cells.forEach(function (cell) {
            cells.add(cell);
          });
          near.set(page.doc, cells);
          if (place.about) {
            about.add(page.doc);
          }
        }
      });
    });
    near.forEach(function (cells, doc) {
      best.get(doc).depth = cells.size;
      best.get(doc).about = about.has(doc);
    });
    var said = errorMessage(text);
    data.pages.forEach(function (page) {
      var quote = quoted(page.quotes || [], said);
      if (quote) {
        var match = best.get(page.doc);
        if (match === undefined) {
          match = newMatch(page, 0);
          best.set(page.doc, match);
        }
        match.about = true;
        match.quote = quote;
      }
    });
    var found = Array.from(best.values()).sort(function (a, b) {
      return (
        Number(b.about) - Number(a.about) ||
        b.depth - a.depth ||
        b.score - a.score ||
        b.ties - a.ties ||
        (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : 0)
      );
    });
    var lowest = Math.max(MIN_SCORE, top * NEAR_BEST);
    found.forEach(function (match) {
      if (match.quote && match.score < lowest) {
        // listed for its quote alone: no message, no cell
        match.text = match.quote;
        match.cells = [];
      }
    });
    return found
      .filter(function (match) {
        return match.score >= lowest || match.quote;
      })
      .slice(0, MAX_PAGES);
  }

  window.AutogradNotesErrorSearch = { errorMessage: errorMessage, normalise: normalise, rank: rank };

  var data = window.AUTOGRAD_NOTES_ERRORS;
  if (!data) {
    return;
  }
  var root = document.documentElement.dataset.content_root || "";

  function link(href, text) {
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  // The recorded message a page matched, its words that the pasted message has too marked: a reader
  // judges a result by the message, not by a title. Recorded text is data: it is set as text only.
  function matched(recorded, words) {
    var line = document.createElement("p");
    line.className = "error-search-matched";
    var code = document.createElement("code");
    (recorded.match(/[A-Za-z0-9_]+|[^A-Za-z0-9_]+/g) || []).forEach(function (piece) {
      if (words.has(piece.toLowerCase())) {
        var mark = document.createElement("mark");
        mark.textContent = piece;
        code.appendChild(mark);
      } else {
        code.appendChild(document.createTextNode(piece));
      }
    });
    line.appendChild(code);
    return line;
  }

  function show(form, text) {
    var results = form.querySelector(".error-search-results");
    results.replaceChildren();
    if (!text.trim()) {
      return;
    }
    var matches = rank(text, data);
    var status = document.createElement("p");
    status.className = "error-search-status";
    status.textContent = matches.length ? form.dataset.found : form.dataset.none;
    results.appendChild(status);
    if (!matches.length) {
      // nothing weak in its place: where every documented message is listed
      var index = document.createElement("p");
      index.className = "error-search-index";
      index.appendChild(link(root + form.dataset.indexUri, form.dataset.index));
      results.appendChild(index);
      return;
    }
    var words = new Set(normalise(text).tokens); // the paste's words, marked in each result
    var list = document.createElement("ol");
    list.className = "error-search-list";
    matches.forEach(function (match) {
      var item = document.createElement("li");
      item.appendChild(link(root + match.uri, match.title));
      match.cells.forEach(function (cell, n) {
        item.appendChild(document.createTextNode(n ? ", " : " · "));
        var anchor = link(root + match.uri + "#cell-" + cell, form.dataset.cell.replace("{number}", cell));
        anchor.className = "error-search-cell";
        item.appendChild(anchor);
      });
      if (match.text) {
        item.appendChild(matched(match.text, words));
      }
      list.appendChild(item);
    });
    results.appendChild(list);
  }

  function setUpBoxes() {
    document.querySelectorAll("form.error-search").forEach(function (form) {
      var input = form.querySelector("textarea");
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        show(form, input.value);
      });
      input.addEventListener("input", function () {
        show(form, input.value);
      });
      input.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          show(form, input.value);
        }
      });
      form.hidden = false;
    });
  }

  function ready() {
    setUpBoxes();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
