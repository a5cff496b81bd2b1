// The player-facing scoreboard (/scoreboard): the shoe's roads and counts, for a second screen.
// It follows the same stream as the dealer display, and blanks when the stream goes quiet.
import { drawRoads } from "./roads.js";

const STALE_MS = 3000;
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
let last = 0;
let shown = null;
pageTexts = findPageTexts();  // before anything is drawn over the page's own words
// The scoreboard speaks its own language (`scoreboard_language`), not the dealer's.
function show(v) {
  shown = v;
  const language = v.scoreboard_language;
  if (language && document.documentElement.dataset.language !== language) {
    const url = `i18n/${language}.json${token ? `?token=${encodeURIComponent(token)}` : ""}`;
    useLanguage(language, url).then((ok) => { if (ok && shown) render(shown); });
  }
  render(v);
}
function render(v) {
  document.getElementById("table-name").textContent = v.table || "tablectl";
  document.getElementById("shoe").textContent = v.shoe ? t("shoe {number}", { number: v.shoe.number }) : "";
  // Only a baccarat table has roads: any other says so rather than showing a blank page.
  const notice = document.getElementById("notice");
  notice.classList.toggle("hidden", !!v.baccarat);
  const name = v.table || t("This table");
  const game = { blackjack: t("blackjack"), baccarat: t("baccarat") }[v.game] || v.game;
  notice.textContent = v.game ? t("{table} deals {game}: no roads to show. The scoreboard is for mini-baccarat tables.",
    { table: name, game }) : t("{table} has no game configured yet.", { table: name });
  if (v.baccarat) drawRoads(document.getElementById("scoreboard"), v.baccarat.roads);
}
const source = new EventSource(token ? `events?token=${encodeURIComponent(token)}` : "events");
const seen = (ev) => { last = Date.now(); const d = JSON.parse(ev.data); if (d.view) show(d.view); };
source.addEventListener("snapshot", seen);
source.addEventListener("ping", seen);
setInterval(() => {
  const stale = Date.now() - last > STALE_MS;
  document.getElementById("banner").classList.toggle("hidden", !stale);
  document.body.classList.toggle("stale", stale);
}, 500);
