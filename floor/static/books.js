// The pit's books (issue 38): each table's tray's win against its layout's for the gaming day,
// hold against theo through the day, the shifts, the transactions with their slips, the fills
// and credits requested here, the count room's drop imported, and the cash by patron across the
// floor. The books' amounts come in minor units (exact) and are shown in the floor's currency.
// Text from the tables is set as text, never as markup.
import { $, ask, startLanguage } from "./dom.js";
let currency = "USD";
let digits = 2;
const money = (minor) => minor === null || minor === undefined ? "–"
  : new Intl.NumberFormat(I18N.tag, { style: "currency", currency }).format(minor / 10 ** digits);
const signed = (minor) => minor === null || minor === undefined ? "–" : (minor > 0 ? "+" : "") + money(minor);
const num = (text, cls = "") => el("td", { class: `num ${cls}` }, text);
const when = (iso) => iso ? new Date(iso).toLocaleString(I18N.tag) : "";
const day = () => $("day").value;
const query = () => day() ? `?day=${encodeURIComponent(day())}` : "";
const percent = (x) => x === null || x === undefined ? "–"
  : new Intl.NumberFormat(I18N.tag, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x);
const kindWord = (kind) => ({ opener: t("tray counted at the open"), shift: t("tray counted at a shift change"),
  closer: t("tray counted at the close"), fill: t("fill"), credit: t("credit"), buy_in: t("buy-in"),
  chips_out: t("chips out"), cash_in: t("cash in"), marker: t("marker"), chips_out_walked: t("chips out: walked"),
  chips_out_colored_up: t("chips out: colored up") })[kind] || String(kind).replaceAll("_", " ");
const mediumWord = (medium) => ({ cash: t("cash"), marker: t("marker"), walked: t("walked"),
  colored_up: t("colored up") })[medium] || String(medium).replaceAll("_", " ");

async function get(path) {
  const response = await ask(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}
function rows(id, items, draw, columns) {
  $(id).replaceChildren(...(items.length ? items.map(draw)
    : [el("tr", {}, el("td", { colspan: columns, class: "when" }, t("none")))]));
}

let tables = [];
async function books() {
  const found = await get(`api/books${query()}`);
  tables = found.tables;
  $("tolerance").textContent = t("(gaming day {day}; an alert beyond {amount})", { day: found.gaming_day, amount: money(found.tolerance) });
  rows("books", tables, (b) => el("tr", { class: b.alert ? "hold" : "", "data-table": b.table },
    el("td", {}, b.table),
    num(b.opener ? money(b.opener.total) + (b.opener.carried ? ` (${t("carried")})` : "") : t("not counted")),
    num(money(b.fills.total)), num(money(b.credits.total)),
    num(b.closer ? money(b.closer.total) : t("not counted")), num(b.drop === null ? t("not imported") : money(b.drop)),
    num(signed(b.tray_win)), num(percent(b.hold)), num(signed(b.layout_win)),
    num(b.theo_pending ? t("working out") : signed(Math.round(b.theo * 10 ** digits))),  // theo: currency units
    num(signed(b.difference), b.alert ? "broken" : "")), 11);
  const pick = $("table-pick");
  const chosen = pick.value;
  pick.replaceChildren(...tables.map((b) => el("option", { value: b.table }, b.table)));
  if (tables.some((b) => b.table === chosen)) pick.value = chosen;
  await tableDay();
}

async function tableDay() {
  const table = $("table-pick").value;
  if (!table) { $("hold-chart").replaceChildren(); rows("shifts", [], null, 11); rows("transactions", [], null, 7); return; }
  const one = await get(`api/books/${encodeURIComponent(table)}${query()}`);
  if ($("table-pick").value !== table) return;  // another table was picked meanwhile
  const theo = (units) => one.theo_pending ? t("working out") : signed(Math.round(units * 10 ** digits));
  rows("shifts", one.shifts, (s) => el("tr", {},
    el("td", {}, `${when(s.start)} – ${when(s.end)}`), num(s.rounds), num(signed(s.layout_win)),
    num(theo(s.theo)), num(money(s.fills)), num(money(s.credits)),
    num(money(s.cash_in)), num(money(s.markers)),
    ...(s.tray ? [num(signed(s.tray.tray_win)), num(percent(s.tray.hold)),
      num(signed(s.tray.difference), s.tray.alert ? "broken" : "")]
      : [el("td", { class: "when", colspan: 3 }, t("not counted at this shift's change"))])), 11);
  rows("transactions", one.transactions, (x) => el("tr", {},
    el("td", {}, x.n), el("td", {}, when(x.utc)),
    el("td", {}, kindWord(x.kind) + (x.medium ? ` (${mediumWord(x.medium)})` : "")),
    num(money(x.amount)), el("td", {}, x.seat ?? ""), el("td", {}, x.player ?? (x.seat ? t("anonymous") : "")),
    el("td", {}, x.kind === "fill" || x.kind === "credit"
      ? el("a", { href: `slips/${encodeURIComponent(table)}/${x.n}`, target: "_blank" }, t("print")) : "")), 7);
  const target = $("hold-chart");
  target.replaceChildren();
  new uPlot({
    title: t("{table}: hold against theo through the day (% of the buy-ins so far)", { table }),
    width: Math.max(target.clientWidth, 400), height: 220, scales: { x: { time: true } },
    axes: [{ stroke: "#9aa39c" }, { stroke: "#9aa39c", values: (u, ticks) => ticks.map((v) => `${v}%`) }],
    series: [{}, { label: t("hold"), stroke: "#f2c14e", width: 2 }, { label: t("theo"), stroke: "#5cc27a", width: 2 }],
  }, [one.chart.times.map((t) => new Date(t).getTime() / 1000), one.chart.hold, one.chart.theo], target);
}

async function requests() {
  rows("requests", await get(`api/transfers${query()}`), (r) => el("tr", {},
    el("td", {}, r.id), el("td", {}, r.table), el("td", {}, kindWord(r.transfer)), num(money(r.total)),
    el("td", {}, r.requested_by), el("td", {}, when(r.requested)),
    el("td", {}, r.signed ? when(r.signed.utc) : el("span", { class: "when" }, t("not yet"))),
    el("td", {}, el("a", { href: `slips/request/${r.id}`, target: "_blank" }, t("print")))), 8);
}

// "25.00 x 40, 5 x 100" as {"2500": 40, "500": 100}: each denomination exact, never a float.
function chipsOf(text) {
  const chips = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\d+)(?:\.(\d+))?\s*[x×]\s*(\d+)$/.exec(part);
    if (!match || (match[2] || "").length > digits) throw new Error(t("\"{part}\": write a chip as {example}", { part, example: "25.00 x 40" }));
    const minor = match[1] + (match[2] || "").padEnd(digits, "0");
    chips[String(Number(minor))] = Number(match[3]);
  }
  if (!Object.keys(chips).length) throw new Error(t("no chips"));
  return chips;
}

async function requestTransfer(event) {
  event.preventDefault();
  const message = $("request-message");
  message.textContent = "";
  try {
    const response = await ask("api/transfers", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ table: $("request-table").value, transfer: $("request-kind").value,
        chips: chipsOf($("request-chips").value) }) });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error);
    window.open(answer.slip, "_blank");
    await requests();
  } catch (error) { message.textContent = String(error.message || error); }
}

async function importDrop(event) {
  event.preventDefault();
  const file = $("drop-file").files[0];
  const list = $("drop-message");
  const response = await ask("api/drop", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ file: file.name, csv: await file.text() }) });
  const answer = await response.json();
  list.replaceChildren(...(response.ok
    ? [el("li", {}, tn("{n} drop imported from {file}", "{n} drops imported from {file}", answer.imported.length, { file: file.name }))]
    : (answer.errors || [answer.error]).map((e) => el("li", { class: "broken" }, e))));
  if (response.ok) await books();
}

async function cash() {
  const report = await get(`api/cash${query()}`);
  $("thresholds").textContent = t("(logged over {log}; a report is due over {report})", { log: money(report.log_over), report: money(report.report_over) });
  rows("patrons", report.patrons, (p) => el("tr", { class: p.report ? "hold" : "" },
    el("td", {}, el("a", { href: `players?player=${encodeURIComponent(p.player)}` }, p.player)),
    num(money(p.cash_in)), num(money(p.markers)), num(money(p.chips_out)), el("td", {}, p.tables.join(", ")),
    el("td", {}, p.report ? t("currency transaction report due") : "")), 6);
  rows("log", report.log, (x) => el("tr", {}, el("td", {}, when(x.utc)), el("td", {}, x.player ?? t("anonymous")),
    el("td", {}, x.table), el("td", {}, x.seat), num(money(x.amount))), 5);
  $("anonymous-note").textContent = report.anonymous_note;
  rows("anonymous", report.anonymous, (x) => el("tr", {}, el("td", {}, when(x.utc)), el("td", {}, x.table),
    el("td", {}, x.seat), el("td", {}, kindWord(x.type)), num(money(x.amount))), 5);
  $("cash-out-note").textContent = report.cash_out_note;
}

async function refresh() {
  $("cash-csv").href = `api/cash.csv${query()}`;
  const results = await Promise.allSettled([books(), requests(), cash()]);
  const failed = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
  $("who").textContent = failed.length ? t("not shown: {reasons}", { reasons: failed.join("; ") }) : "";
}

(async () => {
  await startLanguage();
  try { currency = (await get("api/me")).currency || currency; } catch (error) { /* the default */ }
  digits = new Intl.NumberFormat(I18N.tag, { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
  $("day").addEventListener("change", refresh);
  $("table-pick").addEventListener("change", tableDay);
  $("request-form").addEventListener("submit", requestTransfer);
  $("drop-form").addEventListener("submit", importDrop);
  await refresh();
  setInterval(refresh, 10000);
})();
