// The dealer display's page: its token (kept for the tab's life), its elements by id, the view
// last drawn, and when the controller was last heard: the page never shows stale data as
// current. The pages' words, `el()` and `t()` are i18n.js's (a classic script loaded first).
const STALE_MS = 3000;
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("tablectl-token") || "";
if (token) sessionStorage.setItem("tablectl-token", token);
export const withToken = (url) => token ? `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : url;
export const $ = (id) => document.getElementById(id);
pageTexts = findPageTexts();  // i18n.js's: before anything is drawn over the page's own words

// The view last drawn: null until the first snapshot.
export let view = null;
export function keep(v) { view = v; }

let lastMessage = 0;
export function heard() { lastMessage = Date.now(); }
export function isStale() { return Date.now() - lastMessage > STALE_MS; }
