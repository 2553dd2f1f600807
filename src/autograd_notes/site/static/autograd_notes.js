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
// on a narrow one it is scaled to fit. Either way it is a link to its largest
// file (the srcset's 2x one), which opens full size on click.
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
