// Autograd Notes: what the site's pages need beyond the theme.
//
// sphinx-copybutton speaks Russian and Chinese but not Portuguese: add
// Brazilian Portuguese to its messages. This file loads after copybutton.js
// and before the page is ready, when the buttons are made; `messages` and
// `locale` are that script's top-level bindings.
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
  if (messages[lang] !== undefined) {
    locale = lang; // eslint-disable-line no-global-assign
  }
})();
