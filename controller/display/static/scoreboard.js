// The player-facing scoreboard (/scoreboard): the shoe's roads and counts, for a second screen.
// It follows the same stream as the dealer display, and blanks when the stream goes quiet.
"use strict";
const STALE_MS = 3000;
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
let last = 0;
function render(v) {
  document.getElementById("table-name").textContent = v.table || "tablectl";
  document.getElementById("shoe").textContent = v.shoe ? `shoe ${v.shoe.number}` : "";
  // Only a baccarat table has roads: any other says so rather than showing a blank page.
  const notice = document.getElementById("notice");
  notice.classList.toggle("hidden", !!v.baccarat);
  const name = v.table || "This table";
  notice.textContent = v.game ? `${name} deals ${v.game}: no roads to show. The scoreboard is for ` +
    "mini-baccarat tables." : `${name} has no game configured yet.`;
  if (v.baccarat) drawRoads(document.getElementById("scoreboard"), v.baccarat.roads);
}
const source = new EventSource(token ? `events?token=${encodeURIComponent(token)}` : "events");
const seen = (ev) => { last = Date.now(); const d = JSON.parse(ev.data); if (d.view) render(d.view); };
source.addEventListener("snapshot", seen);
source.addEventListener("ping", seen);
setInterval(() => {
  const stale = Date.now() - last > STALE_MS;
  document.getElementById("banner").classList.toggle("hidden", !stale);
  document.body.classList.toggle("stale", stale);
}, 500);
