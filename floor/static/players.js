// The pit's players and dealers: who sits where now, the gaming day's ratings (CSV for the
// casino's player system), one player's sessions with their theo against the actual result,
// each dealer's figures, and a table's win and theo through the day. Amounts come in currency
// units (as `tablectl players report` gives them); the player's result is negative when the
// player lost, and the charts show the house's side: theo and the house's win. Text from the
// tables is set as text, never as markup; each row is drawn on its own.
import { $, ask, startLanguage } from "./dom.js";
let currency = "USD";
const money = (units) => units === null || units === undefined ? "…"
  : new Intl.NumberFormat(I18N.tag, { style: "currency", currency }).format(units);
const num = (text) => el("td", { class: "num" }, text);
const when = (iso) => iso ? new Date(iso).toLocaleString(I18N.tag) : "";
const sum = (values) => Object.values(values || {}).reduce((a, b) => a + b, 0);
const average = (r) => r.rounds ? money(sum(r.handle) / r.rounds) : "";
const minutes = (r) => r.end ? Math.round((new Date(r.end) - new Date(r.start)) / 60000) : "";
const failed = (r) => r.theo_total === null && r.theo_failed === true;
const theo = (r) => r.theo_total === null
  ? el("td", { class: failed(r) ? "num broken" : "num when", title: r.theo_pending || "" },
    failed(r) ? t("unavailable") : t("working out"))
  : num(money(r.theo_total));
const day = () => $("day").value;
const query = () => day() ? `?day=${encodeURIComponent(day())}` : "";

// Game protection (docs/protection.md): the skill cost, and each flag with its evidence (till the
// assessment comes, how far the table is with it). A round of the evidence is shown as the floor
// has it; the table's `tablectl recall --round N` gives its whole record.
function protection(r) {
  const p = r.protection;
  if (!p) return [el("td", { class: "num when" }, "–"), el("td", { class: r.assessing ? "when assessing" : "when" },
    r.end ? (r.assessing ? assessing(r.assessing) : t("not assessed")) : "")];
  const flags = p.flags.map((f) => el("details", { class: "flag" },
    el("summary", {}, `${String(f.kind).replaceAll("_", " ")} (p ${pValue(Number(f.p_value))})`),
    el("p", {}, f.detail), el("p", {}, `${t("rounds")} `, ...f.rounds.map((n) => roundButton(r.table, n))),
    el("div", { class: "evidence" })));
  return [num(money(p.skill_cost)), el("td", {}, ...(flags.length ? flags : [el("span", { class: "when" }, t("none"))]))];
}
// How far the table's worker is with a closed rating not yet assessed (its status says).
function assessing(a) {
  const n = { done: a.done, total: a.total };
  if (a.stage === "folding") return t("assessing: reading the journal");
  if (a.stage === "edges") return t("assessing: edges {done} of {total}", n);
  if (a.stage === "effects") return t("assessing: effects of removal {done} of {total}", n);
  if (a.stage === "decisions") return t("assessing: decisions {done} of {total}", n);
  return t("assessing: ratings {done} of {total}", n);
}
const pValue = (p) => p < 0.001 ? p.toExponential(1) : p.toPrecision(2);
function roundButton(table, n) {
  const button = el("button", { type: "button", title: `tablectl recall --round ${n} at ${table}` }, n);
  button.addEventListener("click", () => showRound(button, table, n).catch((error) => {
    button.closest("details").querySelector(".evidence").replaceChildren(el("span", { class: "broken" }, String(error)));
  }));
  return button;
}
async function showRound(button, table, n) {
  const [found] = await get(`api/tables/${encodeURIComponent(table)}/rounds?round=${n}`);
  button.closest("details").querySelector(".evidence").replaceChildren(found
    ? el("div", { class: "round" }, el("strong", {}, `${t("Round {round}", { round: n })} ${found.status_text}`),
      el("div", { class: "cards" }, found.cards_text.join(", ")))
    : el("span", { class: "when" }, t("round {round} is not on the floor", { round: n })));
}

function playerLink(r) {
  if (r.player === null) return el("span", { class: "when" }, t("anonymous (seat {seat})", { seat: r.seat }));
  return el("a", { href: `players?player=${encodeURIComponent(r.player)}` }, r.player);
}
function rows(id, items, draw, columns) {
  const drawn = items.map((item) => {
    try { return draw(item); } catch (error) {
      return el("tr", { class: "broken" }, el("td", { colspan: columns }, t("cannot show this row: {error}", { error })));
    }
  });
  $(id).replaceChildren(...(drawn.length ? drawn : [el("tr", {}, el("td", { colspan: columns, class: "when" }, t("none")))]));
}
async function get(path) {
  const response = await ask(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

// A line chart of money: `xs` are times (ISO) when `time`, else session numbers 1, 2, ...
function chart(target, title, xs, series, time = true) {
  target.replaceChildren();
  const width = Math.max(target.clientWidth, 400);
  const options = {
    title, width, height: 220,
    scales: time ? { x: { time: true } } : { x: { time: false, range: (u, lo, hi) => [lo - 0.5, hi + 0.5] } },
    axes: [{ stroke: "#9aa39c", ...(time ? {} : { label: t("session"), incrs: [1, 2, 5, 10, 20, 50, 100] }) },
      { stroke: "#9aa39c", size: 90, values: (u, ticks) => ticks.map(money) }],
    series: [time ? {} : { label: t("session") }, ...series.map((s) => ({ label: s.label, stroke: s.colour, width: 2,
      points: { show: s.points || false, size: 8 }, value: (u, v) => money(v) }))],
  };
  const x = time ? xs.map((t) => new Date(t).getTime() / 1000) : xs.map((_, i) => i + 1);
  return new uPlot(options, [x, ...series.map((s) => s.values)], target);
}

async function seated() {
  rows("seated", await get("api/seats"), (r) => el("tr", {},
    el("td", {}, r.table), num(r.seat), el("td", {}, playerLink(r)), el("td", {}, when(r.start)),
    num(r.rounds), num(average(r)), num(money(sum(r.handle))), theo(r), num(money(r.actual))), 9);
}

async function ratings() {
  const items = await get(`api/ratings${query()}`);
  $("day-count").textContent = `(${items.length})`;
  const reasons = [...new Set(items.filter(failed).map((r) => r.theo_pending))];
  $("theo-note").textContent = reasons.length ? t("No theo: {reasons}", { reasons: reasons.join("; ") }) : "";
  rows("ratings", items, (r) => el("tr", {},
    el("td", {}, playerLink(r)), el("td", {}, r.table), num(r.seat), el("td", {}, when(r.start)),
    el("td", {}, r.end ? when(r.end) : t("playing")), num(r.rounds), num(average(r)),
    num(money(sum(r.handle))), theo(r), num(money(r.actual)), el("td", {}, r.dealer ?? ""),
    ...protection(r)), 13);
  const tables = [...new Set(items.map((r) => r.table))].sort();
  const pick = $("table-pick");
  const chosen = pick.value;
  pick.replaceChildren(...tables.map((t) => el("option", { value: t }, t)));
  if (tables.includes(chosen)) pick.value = chosen;
  await tableDay();
}

async function tableDay() {
  const table = $("table-pick").value;
  if (!table) { $("table-chart").replaceChildren(); $("table-note").textContent = t("no rated table this day"); return; }
  const series = await get(`api/tables/${encodeURIComponent(table)}/day${query()}`);
  $("table-note").textContent = tn("{n} round", "{n} rounds", series.times.length);
  chart($("table-chart"), t("{table}: the house's win and theo, cumulative", { table }), series.times, [
    { label: t("win"), colour: "#f2c14e", values: series.win },
    { label: t("theo"), colour: "#5cc27a", values: series.theo }]);
}

async function dealers() {
  rows("dealers", await get(`api/dealers${query()}`), (d) => el("tr", {},
    el("td", {}, d.dealer), el("td", {}, d.table), num(d.rounds), num(d.rounds_per_hour ?? "–"),
    el("td", {}, when(d.first)), el("td", {}, when(d.last)), num(d.holds), num(d.corrections),
    num(d.past_posting), num(d.payouts_checked), num(d.payout_errors),
    num(money(d.payout_error_amount)), num(d.payout_overrides),
    num(d.payout_errors_per_100_rounds ?? "–")), 14);
}

async function player(id) {
  $("player-panel").classList.remove("hidden");
  $("player-id").textContent = id;
  const found = await get(`api/players/${encodeURIComponent(id)}`);
  rows("sessions", found.ratings, (r) => el("tr", {},
    el("td", {}, r.table), num(r.seat), el("td", {}, when(r.start)),
    el("td", {}, r.end ? when(r.end) : t("playing")), num(minutes(r)), num(r.rounds), num(average(r)),
    num(money(sum(r.handle))), theo(r), num(money(r.actual)), el("td", {}, r.dealer ?? ""),
    ...protection(r)), 13);
  chart($("player-chart"), t("each session: theo against the house's actual win"), found.ratings.map((r) => r.start), [
    { label: t("theo"), colour: "#5cc27a", values: found.ratings.map((r) => r.theo_total), points: true },
    { label: t("actual (house)"), colour: "#f2c14e", values: found.ratings.map((r) => -r.actual), points: true }],
    false);
}

async function refresh() {
  $("csv").href = `api/ratings.csv${query()}`;
  const parts = [seated(), ratings(), dealers()];
  const id = new URLSearchParams(location.search).get("player");
  if (id) parts.push(player(id));
  const results = await Promise.allSettled(parts);
  const failed = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
  $("who").textContent = failed.length ? t("not shown: {reasons}", { reasons: failed.join("; ") }) : "";
}

(async () => {
  await startLanguage();
  try { currency = (await get("api/me")).currency || currency; } catch (error) { /* the default */ }
  $("day").addEventListener("change", refresh);
  $("table-pick").addEventListener("change", tableDay);
  await refresh();
  setInterval(refresh, 10000);
})();
