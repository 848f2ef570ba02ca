// The pages' words: the same gettext catalog as yard's (host/locale/<lang>/LC_MESSAGES/yard.po),
// served as JSON by /i18n.json in the language yard chose (--lang, LANG, else the browser's
// Accept-Language). No strings of its own here: t("English") looks the English up.
(function () {
  "use strict";
  var catalog = {lang: "en", plural: {one: 0, other: 1}, messages: {}};
  try {
    var req = new XMLHttpRequest();
    // synchronous on purpose: the catalog must be there before the page's own scripts draw text
    req.open("GET", "/i18n.json" + location.search, false);
    req.send(null);
    if (req.status === 200) catalog = JSON.parse(req.responseText);
  } catch (e) { /* English, the source language */ }

  function fill(text, values) {
    if (!values) return text;
    return text.replace(/%\(([a-z_]+)\)[sd]|%[sd]/g, function (m, name) {
      var v = name ? values[name] : values[0];
      return v === undefined ? m : String(v);
    });
  }
  var rules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(catalog.lang === "qps" ? "en" : catalog.lang) : null;

  window.t = function (msgid, values) {
    var s = catalog.messages[msgid];
    return fill(typeof s === "string" ? s : msgid, values);
  };
  window.tn = function (singular, plural, n, values) {
    var forms = catalog.messages[singular];
    var text;
    if (Array.isArray(forms)) {
      var index = rules ? catalog.plural[rules.select(n)] : (n === 1 ? 0 : 1);
      text = forms[index === undefined ? forms.length - 1 : index];
    } else {
      text = n === 1 ? singular : plural;
    }
    return fill(text, values || [n]);
  };
  window.I18N_LANG = catalog.lang;
  window.I18N_REFUSALS = catalog.refusals || {};
  window.I18N_REFUSAL_DETAILS = catalog.refusal_details || {};

  function translate(root) {
    root.querySelectorAll("[data-i18n]").forEach(function (el) {
      el.textContent = window.t(el.getAttribute("data-i18n") || el.textContent.trim());
    });
    ["title", "aria-label", "placeholder", "alt"].forEach(function (attr) {
      root.querySelectorAll("[data-i18n-" + attr + "]").forEach(function (el) {
        el.setAttribute(attr, window.t(el.getAttribute("data-i18n-" + attr)));
      });
    });
  }
  window.translatePage = translate;
  document.documentElement.lang = catalog.lang === "qps" ? "en" : catalog.lang;
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { translate(document); });
  } else {
    translate(document);
  }
})();
