// The pit page: every table live from the floor's stream (/events), the floor's totals, the
// alerts a supervisor acknowledges, and a table's last rounds. Text from the tables is always
// set as text, never as markup, and each row is drawn on its own: a row that cannot be drawn
// says so in its place, and never empties the list. Names come in words from the floor
// (`phase_text`, `status_text`, `cards_text`, `settlements_text`: controller/game/names.py),
// never as the keys. The API's `drop` is the handle (the total wagered) and `hold_pct` the win as
// a percentage of the handle; amounts are in minor units.
import { $, ask, startLanguage, pageLanguage } from "./dom.js";
const STALE_MS = 3000;
const tables = new Map();
let currency = "USD";
let me = null;
let lastMessage = 0;
let health = null; // this floor process's parts, with every ping
let retrying = false; // a Retry of what is set aside is under way

const money = (minor) => new Intl.NumberFormat(I18N.tag, { style: "currency", currency }).format(minor / 100);
const pct = (value) => value === null || value === undefined ? "–"
  : new Intl.NumberFormat(I18N.tag, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value / 100);
const time = (iso) => iso ? new Date(iso).toLocaleTimeString(I18N.tag) : "";
const num = (text) => el("td", { class: "num" }, text);

const statusWord = (status) => ({ open: tp("table status", "open"), closed: tp("table status", "closed"),
  offline: tp("table status", "offline") })[status] || status;
const gameWord = (game) => ({ blackjack: t("blackjack"), baccarat: t("baccarat") })[game] || game;
// An alert's kind, as the floor files it (floor/payloads.py).
const kindWord = (kind) => ({ hold: tp("alert", "hold"), alert: tp("alert", "alert"), supervisor: tp("alert", "supervisor"),
  device: tp("alert", "device"), assessment: tp("alert", "assessment"), refused: tp("alert", "refused"),
  books: tp("alert", "books"), ctr: tp("alert", "ctr"), quarantine: tp("alert", "set aside") })[kind] || kind;
function linkText(tbl) {
  if (tbl.status === "offline") return tp("table status", "offline");
  const lag = tbl.lag_s === null ? "" : t("{seconds} s", { seconds: tbl.lag_s.toFixed(1) });
  return tbl.backlog ? t("{n} behind", { n: tbl.backlog }) + (lag ? " · " + lag : "") : (lag || "–");
}

// Draws one item, or a line saying it cannot (the others are drawn all the same).
function each(items, draw, broken) {
  return items.map((item) => {
    try { return draw(item); } catch (error) { return broken(item, error); }
  });
}
const list = (value) => Array.isArray(value) ? value : [];
const name = (tbl) => String(tbl && tbl.table);

// Each cell carries its column's heading: a narrow screen shows a table as a card of labelled
// cells (pit.css), the list fitting its panel in every language (issue 48).
const headings = () => [...$("tables").tHead.rows[0].cells].map((th) => th.textContent);
function tableRow(tbl) {
  const trouble = [tbl.hold ? t("ON HOLD: {reason}", { reason: tbl.hold }) : "",
    ...list(tbl.lost_devices).map((d) => t("{device} lost", { device: d }))].filter(Boolean).join(" · ");
  const cells = [el("td", {}, tbl.table), el("td", {}, gameWord(tbl.game)), el("td", { class: `status-${tbl.status}` }, statusWord(tbl.status)),
    num(tbl.round ?? ""), el("td", { class: "phase" }, tbl.phase_text ?? ""), el("td", { class: "hold" }, trouble),
    el("td", {}, linkText(tbl)), num(tbl.rounds), num(money(tbl.day.drop)), num(money(tbl.day.win)),
    num(pct(tbl.day.hold_pct)), num(tbl.shift.rounds_per_hour), num(money(tbl.shift.win)),
    num(tbl.open_alerts || ""), verificationCell(tbl)];
  headings().forEach((heading, i) => { cells[i].dataset.label = heading; });
  const row = el("tr", { "data-table": tbl.table }, ...cells);
  row.addEventListener("click", () => showRounds(tbl.table));
  return row;
}

// The version a table last answered with, its last seeded verification of its software
// (docs/floor.md, "Verifying a table"), and the button a logged-in supervisor asks for a new
// one with: one cell, so that the list still fits its panel from 1100 px.
const resultWord = (result) => ({ asked: t("asked, waiting for the table"), verified: t("verified"),
  mismatch: t("MISMATCH: not the certified release"), unknown_release: t("unknown release"),
  no_answer: t("no answer"), refused: t("the table cannot answer") })[result] || result;
function verificationCell(tbl) {
  const last = tbl.verification;
  const text = last ? resultWord(last.result) + (last.answered_utc ? " " + time(last.answered_utc) : "") : "–";
  const button = el("button", { type: "button", class: "verify" }, t("Verify"));
  button.disabled = !me || (last && last.result === "asked");
  button.title = (last ? "" : t("never verified") + " · ") + (me ? t("verify as {supervisor}", { supervisor: me }) : t("log in to verify a table"));
  button.addEventListener("click", (event) => { event.stopPropagation(); verifyTable(tbl.table, button); });
  return el("td", { class: `verification result-${last ? last.result : "none"}`, title: last && last.detail ? last.detail : "" },
    el("span", { class: "version" }, tbl.version ?? ""), tbl.version ? " " : "", el("span", { class: "result" }, text), " ", button);
}

async function verifyTable(table, button) {
  button.disabled = true;
  const response = await ask(`api/tables/${encodeURIComponent(table)}/verify`, { method: "POST",
    headers: { "Content-Type": "application/json" }, body: "{}" });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    button.textContent = body.error || t("refused ({status})", { status: response.status });
  }
}

function renderTables() {
  const sorted = [...tables.values()].sort((a, b) => name(a).localeCompare(name(b)));
  $("tables-body").replaceChildren(...each(sorted, tableRow, (tbl, error) =>
    el("tr", { "data-table": name(tbl), class: "broken" },
      el("td", {}, name(tbl)), el("td", { colspan: "14" }, t("cannot show this table: {error}", { error: error.message })))));
}

function renderTotals(floor) {
  const counts = Object.entries(floor.by_status).map(([k, v]) => `${v} ${statusWord(k)}`).join(" · ");
  $("counts").textContent = tn("{n} table", "{n} tables", floor.tables) + (counts ? ": " + counts : "");
  $("totals-body").replaceChildren(...["day", "shift"].map((period) => {
    const f = floor[period];
    const since = time(floor[`${period}_start`]);
    return el("tr", {}, el("th", {}, period === "day" ? t("gaming day since {time}", { time: since }) : t("shift since {time}", { time: since })),
      num(f.rounds), num(f.rounds_per_hour), num(money(f.drop)), num(money(f.win)), num(pct(f.hold_pct)));
  }));
}

function renderAlerts(alerts) {
  const open = list(alerts).filter((a) => !a.ack_by);
  const unreadable = (a, error) => el("li", { class: "broken" }, t("an alert that cannot be shown: {error}", { error: error.message }));
  $("open-count").textContent = open.length ? `(${open.length})` : t("(none)");
  $("alerts").replaceChildren(...each(open, (a) => {
    const button = el("button", { type: "button" }, t("Acknowledge"));
    button.disabled = !me;
    button.title = me ? t("acknowledge as {supervisor}", { supervisor: me }) : t("log in to acknowledge");
    button.addEventListener("click", () => acknowledge(a, button));
    return el("li", { "data-alert": `${a.table}/${a.n}/${a.kind}` }, el("span", { class: "when" }, time(a.received)),
      el("strong", {}, a.table), el("span", { class: "text" }, `${kindWord(a.kind)}: ${a.text}`), button);
  }, unreadable));
  $("acknowledged").replaceChildren(...each(list(alerts).filter((a) => a.ack_by), (a) =>
    el("li", {}, el("span", { class: "when" }, time(a.ack_utc)), el("strong", {}, a.table),
      el("span", { class: "text" }, `${kindWord(a.kind)}: ${a.text}`), el("span", {}, t("acknowledged by {supervisor}", { supervisor: a.ack_by }))), unreadable));
}

async function acknowledge(alert, button) {
  button.disabled = true;
  const response = await ask("api/alerts/ack", { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify({ table: alert.table, n: alert.n, kind: alert.kind }) });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    button.textContent = body.error || t("refused ({status})", { status: response.status });
  }
}

async function showRounds(table) {
  const response = await ask(`api/tables/${encodeURIComponent(table)}/rounds?limit=10`);
  const rounds = response.ok ? await response.json() : [];
  $("rounds-table").textContent = table;
  $("rounds").replaceChildren(...each(list(rounds), (r) => el("div", { class: "round" },
    el("strong", {}, `${t("Round {round}", { round: r.round })} ${r.status_text}`),
    ` · ${t("{start} to {end}", { start: time(r.started), end: time(r.utc) })} · ${t("handle {amount}", { amount: money(r.drop) })} · ${t("win {amount}", { amount: money(r.win) })}`,
    r.clock_off ? el("span", { class: "clock" }, ` · ${t("the table's clock was off: counted at {time}", { time: time(r.received) })}`) : "",
    el("div", { class: "cards" }, r.cards_text.join(", ")),
    el("table", {}, el("tbody", {}, ...r.settlements.map(([seat, , , stake, net], i) => {
      const [wager, outcome, award] = r.settlements_text[i];
      return el("tr", {}, el("td", {}, t("seat {seat}", { seat })), el("td", {}, wager),
        num(money(stake)), el("td", {}, outcome), el("td", {}, award), num(money(net)));
    })))),
    (r, error) => el("div", { class: "round broken" }, t("a round that cannot be shown: {error}", { error: error.message }))));
  if (!rounds.length) $("rounds").textContent = t("no rounds received from this table");
  $("rounds-panel").classList.remove("hidden");
}

// What the floor set aside (a message or a books check it failed on): counted with every ping; a
// logged-in supervisor has it tried again, after an upgrade (docs/floor.md, "Set aside").
function renderSetAside() {
  const count = health && Number.isInteger(health.quarantined) ? health.quarantined : 0;
  $("set-aside").classList.toggle("hidden", count === 0 && !$("retried").textContent);
  $("set-aside-text").textContent = tn("{n} message or books check is set aside: the floor failed on it",
    "{n} messages or books checks are set aside: the floor failed on them", count);
  const button = $("retry");
  button.textContent = t("Retry");
  button.disabled = !me || retrying;
  button.title = me ? t("retry as {supervisor}", { supervisor: me }) : t("log in to retry what is set aside");
}

async function retrySetAside() {
  retrying = true;
  renderSetAside();
  const response = await ask("api/quarantine/retry", { method: "POST",
    headers: { "Content-Type": "application/json" }, body: "{}" });
  const body = await response.json().catch(() => ({}));
  retrying = false;
  const tried = list(body.retried);
  $("retried").textContent = response.ok
    ? t("{booked} of {tried} booked", { booked: tried.filter((o) => o.released).length, tried: tried.length })
    : body.error || t("refused ({status})", { status: response.status });
  renderSetAside();
}

// "live" only while the stream is fresh and the floor service's writer, database and broker are
// all up; otherwise what is down, and since when.
function updateLive() {
  const silent = Date.now() - lastMessage > STALE_MS;
  const down = health && !health.ok ? ["ingest", "database", "broker"].filter((part) => health[part] && !health[part].up) : [];
  const stale = silent || !health || down.length > 0;
  document.body.classList.toggle("stale", stale);
  $("live").classList.toggle("stale", stale);
  const partWord = (part) => ({ ingest: t("ingest"), database: t("database"), broker: t("broker") })[part];
  const downSince = (part) => t("{part} down since {time}", { part: partWord(part), time: time(health[part].since) })
    + (health[part].detail ? ` (${health[part].detail})` : "");
  $("live").textContent = silent ? t("NOT LIVE: no news from the floor service")
    : !health ? t("connecting…")
    : down.length ? t("NOT LIVE: {parts}", { parts: down.map(downSince).join("; ") })
    : t("live");
}

function connect() {
  const source = new EventSource(`events?lang=${encodeURIComponent(pageLanguage)}`);
  const seen = () => { lastMessage = Date.now(); updateLive(); };
  source.addEventListener("tables", (ev) => {
    seen();
    const data = JSON.parse(ev.data);
    if (data.all) tables.clear();
    for (const tbl of list(data.tables)) tables.set(name(tbl), tbl);
    renderTables();
  });
  source.addEventListener("floor", (ev) => { seen(); renderTotals(JSON.parse(ev.data)); });
  source.addEventListener("alerts", (ev) => { seen(); renderAlerts(JSON.parse(ev.data).alerts); });
  source.addEventListener("ping", (ev) => { health = JSON.parse(ev.data); seen(); renderSetAside(); });
  source.onerror = updateLive;
}

async function start() {
  await startLanguage();
  const who = await (await fetch("api/me")).json();
  me = who.name;
  currency = who.currency || "USD";
  $("who").textContent = me ? t("supervisor: {supervisor}", { supervisor: me }) : t("not logged in: reading only");
  $("login-link").classList.toggle("hidden", Boolean(me));
  $("logout").classList.toggle("hidden", !me);
  connect();
  setInterval(updateLive, 1000);
}

$("logout").addEventListener("click", async () => { await fetch("api/logout", { method: "POST",
  headers: { "Content-Type": "application/json" }, body: "{}" }); location.reload(); });
$("rounds-close").addEventListener("click", () => $("rounds-panel").classList.add("hidden"));
$("retry").addEventListener("click", retrySetAside);
start();
