// The pages' words in their reader's language (issue 39), shared by the dealer display, the
// scoreboard and the pit. A language's catalog comes from the server (`i18n/<language>.json`,
// controller/i18n/catalogs.py); t(), tn() and tp() say a message in it, and the page's own text
// (its HTML) is translated in place, as controller/i18n/extract.py reads it for the catalogs:
// whitespace run together, nothing under translate="no", nothing without a letter.
// What the pages draw goes in through el(): an element with its attributes and children, where
// a text is always set as text, never parsed as markup: an operator's translation, a name a
// supervisor typed or a reason is shown as written (issue 47).
"use strict";
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}
const I18N = { language: "en", tag: "en", messages: {}, plurals: new Intl.PluralRules("en") };
const I18N_ATTRIBUTES = ["placeholder", "title", "aria-label"];

function fill(text, parts) {
  return parts ? text.replace(/\{([A-Za-z_]\w*)\}/g, (whole, name) => (name in parts ? String(parts[name]) : whole)) : text;
}
function t(msgid, parts) {
  const found = I18N.messages[msgid];
  return fill(typeof found === "string" ? found : msgid, parts);
}
function tp(context, msgid, parts) {
  const found = I18N.messages[`${context}\u0004${msgid}`];
  return fill(typeof found === "string" ? found : msgid, parts);
}
function tn(singular, plural, n, parts) {
  const forms = I18N.messages[singular];
  const text = forms && typeof forms === "object" ? (forms[I18N.plurals.select(n)] ?? forms.other ?? singular)
    : (n === 1 ? singular : plural);
  return fill(text, { n, ...parts });
}

function pageWords(text) {
  const said = text.split(/\s+/).filter(Boolean).join(" ");
  return /\p{L}/u.test(said) ? said : null;
}

// The page's own words, each with its English, found once before anything is drawn on it.
let pageTexts = null;
function findPageTexts() {
  const found = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, [translate=no]")) continue;
    const english = pageWords(node.nodeValue);
    if (english) found.push({ node, english, lead: /^\s*/.exec(node.nodeValue)[0], trail: /\s*$/.exec(node.nodeValue)[0] });
  }
  for (const element of document.querySelectorAll(I18N_ATTRIBUTES.map((a) => `[${a}]`).join(","))) {
    if (element.closest("[translate=no]")) continue;
    for (const attribute of I18N_ATTRIBUTES) {
      const english = element.hasAttribute(attribute) && pageWords(element.getAttribute(attribute));
      if (english) found.push({ element, attribute, english });
    }
  }
  return found;
}

function translatePage() {
  pageTexts = pageTexts || findPageTexts();
  for (const each of pageTexts) {
    if (each.node) each.node.nodeValue = each.lead + t(each.english) + each.trail;
    else each.element.setAttribute(each.attribute, t(each.english));
  }
  document.documentElement.lang = I18N.tag;
  document.documentElement.dataset.language = I18N.language;
  document.documentElement.dataset.shown = "";
}
// A catalog that never comes leaves the page in English rather than blank.
setTimeout(() => { document.documentElement.dataset.shown = ""; }, 2000);

// Loads `language`'s catalog (`url` says where, with any token the page needs) and translates
// the page; true once it is in force. A catalog that cannot be had leaves the page as it is.
const catalogs = new Map();
let languageWanted = null;  // the last asked for: a catalog that arrives after another is asked for is kept, not used
async function useLanguage(language, url) {
  languageWanted = language;
  if (document.documentElement.dataset.language === language) return true;
  if (!catalogs.has(language)) {
    const response = await fetch(url).catch(() => null);
    if (!response || !response.ok) return false;
    catalogs.set(language, await response.json());
  }
  if (languageWanted !== language) return false;
  const catalog = catalogs.get(language);
  Object.assign(I18N, { language, tag: catalog.tag, messages: catalog.messages, plurals: new Intl.PluralRules(catalog.tag) });
  translatePage();
  return true;
}
