// The baccarat roads as grids of six rows: shared by the dealer display and /scoreboard.
// The controller computes every road (controller/display/roads.py); this only lays them out,
// keeping the newest columns that fit the box: cells keep their size on a small screen.
const ROAD_COLOURS = { P: "player", B: "banker", T: "tie", R: "red", U: "blue" };
// The roads' names, and the bead plate's letters: 庄 闲 和 where Chinese is read.
const roadNames = () => [["bead", t("Bead plate")], ["big", t("Big road")], ["big_eye_boy", t("Big eye boy")],
  ["small_road", t("Small road")], ["cockroach_pig", t("Cockroach pig")]];
const beadLetter = (result) => ({ P: tp("bead plate", "P"), B: tp("bead plate", "B"), T: tp("bead plate", "T") })[result] || result;

// Each road's last cells, laid out again whenever its box changes size: a window resized, or
// the roads shown again after stepping aside for the payout.
const roadCells = new WeakMap();
const resized = new ResizeObserver((entries) => entries.forEach((e) => layOut(e.target)));

function drawRoad(box, cells, key) {
  if (!roadCells.has(box)) resized.observe(box);
  roadCells.set(box, { cells, key });
  layOut(box);
}

function layOut(box) {
  const { cells, key } = roadCells.get(box);
  if (!box.clientWidth) {  // hidden: laid out when shown. Observed anew, as a box hidden and
    resized.unobserve(box);  // shown again within one frame reports no change of size
    resized.observe(box);
    return;
  }
  const size = parseFloat(getComputedStyle(box).gridTemplateRows);  // a row's height, in px
  const fit = Math.max(1, Math.floor((box.clientWidth - 1) / (size + 1)));  // 1px gaps and padding
  const last = cells.reduce((m, c) => Math.max(m, c.col), -1);
  const first = Math.max(0, last - fit + 1);
  box.replaceChildren(...cells.filter((c) => c.col >= first).map((c) => {
    const value = c[key];
    const marks = [...(c.ties ? [el("i", { class: "ties" }, ...(c.ties > 1 ? [c.ties] : []))] : []),
      ...(c.banker_pair ? [el("i", { class: "pair banker-pair" })] : []),
      ...(c.player_pair ? [el("i", { class: "pair player-pair" })] : [])];
    const label = key === "result" && box.classList.contains("bead") ? beadLetter(value) : "";
    // a big road cell of ties before the first win has no colour until that win
    return el("b", { class: ROAD_COLOURS[value] || "open", style: `grid-column:${c.col - first + 1};grid-row:${c.row + 1}` },
      ...(label ? [label] : []), ...marks);
  }));
}

const scoreboardParts = () => [el("div", { class: "counts" }), ...roadNames().map(([name, label]) =>
  el("figure", { class: `road-box ${name}` }, el("figcaption", {}, label), el("div", { class: `road ${name}` })))];

export function drawRoads(root, roads) {
  if (!roads) return;
  if (root.dataset.language !== I18N.language) {  // drawn anew in the page's language
    root.replaceChildren(...scoreboardParts());
    root.dataset.language = I18N.language;
  }
  const c = roads.counts;  // first: their width sets the roads'
  root.querySelector(".counts").replaceChildren(el("span", { class: "player" }, t("Player {n}", { n: c.player })),
    el("span", { class: "banker" }, t("Banker {n}", { n: c.banker })), el("span", { class: "tie" }, t("Tie {n}", { n: c.tie })),
    el("span", {}, t("Naturals {n}", { n: c.naturals })), el("span", {}, t("Lucky 8 {n}", { n: c.lucky8 })));
  drawRoad(root.querySelector(".road.bead"), roads.bead_plate, "result");
  drawRoad(root.querySelector(".road.big"), roads.big_road, "result");
  for (const name of ["big_eye_boy", "small_road", "cockroach_pig"]) {
    drawRoad(root.querySelector(`.road.${name}`), roads[name], "mark");
  }
}
