// What the pit's pages share: an element by its id, the pages' language, a request in it.
// (An element made with its text as text, `el`, is i18n.js's: every page's.)
export const $ = (id) => document.getElementById(id);

// The pages' language (issue 39): the one chosen in the menu (kept in a cookie), else the
// first of ours the browser asks for. The floor's texts in our requests' answers and stream come
// in it too (the header, `lang`); numbers, money and times are written as it writes them.
export let pageLanguage = "en";
export async function startLanguage() {
  pageTexts = findPageTexts();  // before anything is drawn over the page's own words
  const chosen = await fetch("api/language").then((r) => r.json())
    .catch(() => ({ language: "en", languages: { en: "English" } }));
  pageLanguage = chosen.language;
  await useLanguage(pageLanguage, `i18n/${pageLanguage}.json`);
  const menu = $("language");
  if (!menu) return;
  menu.replaceChildren(...Object.entries(chosen.languages).map(([code, name]) => el("option", { value: code }, name)));
  menu.value = pageLanguage;
  menu.addEventListener("change", () => {
    document.cookie = `tablectl_language=${menu.value}; path=/; max-age=31536000; samesite=strict`;
    location.reload();
  });
}
export const ask = (path, options = {}) => fetch(path, { ...options,
  headers: { ...(options.headers || {}), "X-Tablectl-Language": pageLanguage } });
