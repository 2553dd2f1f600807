// Autograd Notes: what the site's pages need beyond the theme.
//
// sphinx-copybutton speaks Russian and Chinese but not Portuguese: add
// Brazilian Portuguese to its messages. This file loads after copybutton.js
// and before the page is ready, when the buttons are made; `messages`,
// `locale` and the icons are that script's top-level bindings.
(function () {
  if (typeof messages === "undefined") {
    return;
  }
  messages["pt-BR"] = {
    copy: "Copiar",
    copy_to_clipboard: "Copiar para a área de transferência",
    copy_success: "Copiado!",
    copy_failure: "Falha ao copiar",
  };
  var lang = document.documentElement.lang;
  if (messages[lang] === undefined || locale === lang) {
    return;
  }
  locale = lang; // eslint-disable-line no-global-assign
  // The icons' titles were written when copybutton.js loaded, in English;
  // the buttons are made from them once the page is ready, after this runs.
  var title = /<title>[^<]*<\/title>/;
  if (typeof iconCopy === "string") {
    iconCopy = iconCopy.replace(title, "<title>" + messages[lang].copy_to_clipboard + "</title>");
  }
  try {
    iconCheck = iconCheck.replace(title, "<title>" + messages[lang].copy_success + "</title>");
  } catch (error) {
    // iconCheck is a constant in some versions of sphinx-copybutton: its title stays
  }
})();

// Sphinx's own Russian catalog leaves the search summary ("Search finished,
// found N pages ...") empty, so Russian readers saw no summary at all. Give it
// its Russian plural forms; in any other language, an empty translation
// falls back to English rather than to nothing.
(function () {
  if (typeof Documentation === "undefined" || !Documentation.TRANSLATIONS) {
    return;
  }
  var key = "Search finished, found one page matching the search query.";
  var forms = Documentation.TRANSLATIONS[key];
  if (!Array.isArray(forms) || forms.some(function (form) { return form; })) {
    return;
  }
  if (document.documentElement.lang === "ru") {
    Documentation.TRANSLATIONS[key] = [
      "Поиск завершён: найдена ${resultCount} страница.",
      "Поиск завершён: найдено ${resultCount} страницы.",
      "Поиск завершён: найдено ${resultCount} страниц.",
      "Поиск завершён: найдено ${resultCount} страницы.",
    ];
  } else {
    delete Documentation.TRANSLATIONS[key];
  }
})();

// A figure wider than the column: on a wide screen it is shown at the size it
// was drawn, in a box that scrolls sideways, so that its values stay legible;
// on a narrow one it is scaled to fit, and a line under it says so. Either way
// it is a link to its largest file (the srcset's 2x one), which opens full
// size on click.
(function () {
  function largest(img) {
    var candidates = (img.getAttribute("srcset") || "").split(",").map(function (c) {
      return c.trim().split(/\s+/)[0];
    }).filter(Boolean);
    return candidates.length ? candidates[candidates.length - 1] : img.getAttribute("src");
  }
  function link(img) {
    if (img.closest("a") || img.naturalWidth <= img.parentNode.clientWidth + 1) {
      return;
    }
    var a = document.createElement("a");
    a.href = largest(img);
    a.className = "figure-full-size";
    img.parentNode.insertBefore(a, img);
    a.appendChild(img);
    // its right edge fades while there is more to scroll to (autograd_notes.css)
    function edge() {
      a.classList.toggle("figure-at-end", a.scrollLeft + a.clientWidth >= a.scrollWidth - 1);
    }
    a.addEventListener("scroll", edge, { passive: true });
    window.addEventListener("resize", edge);
    edge();
  }
  function linkAll() {
    document.querySelectorAll("article img.sphx-glr-single-img, article img.sphx-glr-multi-img")
      .forEach(function (img) {
        if (img.complete) {
          link(img);
        } else {
          img.addEventListener("load", function () { link(img); }, { once: true });
        }
      });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", linkAll);
  } else {
    linkAll();
  }
})();

// A box that scrolls sideways must be reachable by keyboard, or its hidden
// part cannot be read without a mouse (WCAG 2.1.1; axe-core:
// scrollable-region-focusable). furo's stylesheet lets code blocks (Sphinx's
// Pygments <pre>) and its table wrappers scroll, and gives them no tab stop:
// a box that scrolls and holds nothing focusable gets one here (tabindex=0,
// its focus outlined by autograd_notes.css), again when the width changes.
// To report upstream, to furo: add the tab stop itself, as
// pydata-sphinx-theme does for its scrollable elements.
(function () {
  var BOXES = "article pre, article .table-wrapper, article .tl-scroll, article .highlight";
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  function scrolls(box) {
    var style = getComputedStyle(box);
    var sideways = /auto|scroll/.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1;
    var down = /auto|scroll/.test(style.overflowY) && box.scrollHeight > box.clientHeight + 1;
    return sideways || down;
  }
  function update() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      // a box with nothing to scroll draws no scroll shadow either (autograd_notes.css)
      box.classList.toggle("autograd-still", !scrolls(box));
      var added = box.hasAttribute("data-scroll-stop");
      if (!added && box.hasAttribute("tabindex")) {
        return; // focusable on its own
      }
      var needed = scrolls(box) && box.querySelector(FOCUSABLE) === null;
      if (needed && !added) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-stop", "");
      } else if (!needed && added) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-stop");
      }
    });
  }
  var pending = null;
  function later() {
    if (pending === null) {
      pending = requestAnimationFrame(function () {
        pending = null;
        update();
      });
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", update);
  } else {
    update();
  }
  window.addEventListener("load", update);
  window.addEventListener("resize", later);
})();

// A timeline table that fits its column needs no scrolling box of its own:
// its box then lets the page scroll it (class tl-fits), so that its header
// row, sticky, stays in view over a long table (the timeline page's 59 rows).
// A box that scrolls sideways keeps its header at its own top: a sticky
// element sticks to the nearest box that scrolls.
(function () {
  function update() {
    document.querySelectorAll("article .tl-scroll").forEach(function (box) {
      var table = box.querySelector("table");
      var fits = table !== null && table.getBoundingClientRect().width <= box.clientWidth + 1;
      box.classList.toggle("tl-fits", fits);
      // the line that says where the older releases are, only where they are out of view
      var hint = box.previousElementSibling;
      if (hint !== null && hint.classList.contains("tl-scroll-hint")) {
        hint.hidden = fits;
      }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", update);
  } else {
    update();
  }
  window.addEventListener("resize", update);
})();

// The runner popups (a mark's details on the runners page and on example
// pages, a section's examples in the runners matrix) open over the rows
// beside them. Escape closes the one that is open, from its mark or from
// inside it, and gives the focus back to its mark: a reader on a keyboard
// gets back the rows it covered, where they were.
(function () {
  var POPUPS = "details.runner-cell[open], details.runner-section-cell[open]";
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented) {
      return;
    }
    var from = document.activeElement;
    var popup = from && from.closest ? from.closest(POPUPS) : null;
    if (popup === null) {
      // the focus is elsewhere (or on the page): close the last popup opened, if one is
      var open = document.querySelectorAll(POPUPS);
      popup = open.length ? open[open.length - 1] : null;
      if (popup === null) {
        return;
      }
    }
    popup.open = false;
    var mark = popup.querySelector(":scope > summary");
    if (mark && popup.contains(from)) {
      mark.focus();
    }
    event.preventDefault();
  });
})();

// A table wider than its column (on a phone: the runners' facts, the sources' status) scrolls in
// furo's wrapper with its first column in view; a line above it says that it scrolls (the words
// come from the page's template, in its language: --autograd-swipe-hint).
(function () {
  function update() {
    document.querySelectorAll("article .table-wrapper").forEach(function (wrapper) {
      var table = wrapper.querySelector("table");
      var wide = table !== null && table.getBoundingClientRect().width > wrapper.clientWidth + 1;
      wrapper.classList.toggle("autograd-wide", wide);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", update);
  } else {
    update();
  }
  window.addEventListener("resize", update);
})();

// A name in code breaks at its parts, never inside one: a phone cannot fit
// ``torch.nn.utils.parametrizations.weight_norm`` or
// ``find_unused_parameters=True`` on one line of a heading, a table's cell or
// a list, and the browser would otherwise cut it anywhere (weig|ht_norm,
// enabled=Fal|se). A <wbr> after each dot,
// underscore, "=", "(" and ",", and inside CamelCase before a capital, is a
// break opportunity that copies as nothing and leaves the page's title, the
// table of contents and the search index as written.
(function () {
  var parts = /[^._=(,]*[._=(,]|[^._=(,]+$/g;
  var camel = /([a-z])(?=[A-Z])/g;
  function withBreaks(text) {
    var pieces = [];
    (text.match(parts) || []).forEach(function (part) {
      part.replace(camel, "$1\u0000").split("\u0000").forEach(function (piece) {
        pieces.push(piece);
      });
    });
    return pieces;
  }
  function breakNames() {
    // the text of every inline code: docutils' <span class="pre"> pieces, or a <code> of text alone
    var names = [];
    document.querySelectorAll("article code").forEach(function (code) {
      if (code.closest("pre")) {
        return;
      }
      var pieces = code.querySelectorAll("span.pre");
      if (pieces.length) {
        pieces.forEach(function (span) { names.push(span); });
      } else if (code.children.length === 0) {
        names.push(code);
      }
    });
    names.forEach(function (span) {
      var pieces = withBreaks(span.textContent);
      if (span.dataset.breaks || pieces.length < 2) {
        return;
      }
      span.dataset.breaks = "names";
      span.textContent = "";
      pieces.forEach(function (piece, index) {
        if (index > 0) {
          span.appendChild(document.createElement("wbr"));
        }
        span.appendChild(document.createTextNode(piece));
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", breakNames);
  } else {
    breakNames();
  }
})();
