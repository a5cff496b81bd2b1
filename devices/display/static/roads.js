// The baccarat roads as grids of six rows: shared by the dealer display and /scoreboard.
// The controller computes every road (devices/display/roads.py); this only lays them out,
// keeping the newest columns that fit the box.
"use strict";
const ROAD_COLOURS = { P: "player", B: "banker", T: "tie", R: "red", U: "blue" };

function drawRoad(box, cells, key) {
  const size = parseFloat(getComputedStyle(box).getPropertyValue("--cell")) || 16;
  const fit = Math.max(1, Math.floor(box.clientWidth / (size + 1)));
  const last = cells.reduce((m, c) => Math.max(m, c.col), -1);
  const first = Math.max(0, last - fit + 1);
  box.innerHTML = cells.filter((c) => c.col >= first).map((c) => {
    const value = c[key];
    const ties = c.ties ? `<i class="ties">${c.ties > 1 ? c.ties : ""}</i>` : "";
    const label = key === "result" && box.classList.contains("bead") ? value : "";
    return `<b class="${ROAD_COLOURS[value]}" style="grid-column:${c.col - first + 1};grid-row:${c.row + 1}">${label}${ties}</b>`;
  }).join("");
}

const SCOREBOARD = '<div class="counts"></div><div class="road bead"></div><div class="road big"></div>' +
  '<div class="derived"><div class="road big_eye_boy"></div><div class="road small_road"></div>' +
  '<div class="road cockroach_pig"></div></div>';

function drawRoads(root, roads) {
  if (!roads) return;
  if (!root.firstChild) root.innerHTML = SCOREBOARD;
  drawRoad(root.querySelector(".road.bead"), roads.bead_plate, "result");
  drawRoad(root.querySelector(".road.big"), roads.big_road, "result");
  for (const name of ["big_eye_boy", "small_road", "cockroach_pig"]) {
    drawRoad(root.querySelector(`.road.${name}`), roads[name], "mark");
  }
  const c = roads.counts;
  root.querySelector(".counts").innerHTML =
    `<span class="player">Player ${c.player}</span><span class="banker">Banker ${c.banker}</span>` +
    `<span class="tie">Tie ${c.tie}</span><span>Naturals ${c.naturals}</span><span>Lucky 8 ${c.lucky8}</span>`;
}
