// The pit page: every table live from the floor's stream (/events), the floor's totals, the
// alerts a supervisor acknowledges, and a table's last rounds. Text from the tables is always
// set as text, never as markup, and each row is drawn on its own: a row that cannot be drawn
// says so in its place, and never empties the list. Names come in words from the floor
// (`phase_text`, `status_text`, `cards_text`, `settlements_text`: controller/game/names.py),
// never as the keys. The API's `drop` is the handle (the total wagered) and `hold_pct` the win as
// a percentage of the handle; amounts are in minor units.
"use strict";
const STALE_MS = 3000;
const tables = new Map();
let currency = "USD";
let me = null;
let lastMessage = 0;
let health = null; // this floor process's parts, with every ping

const money = (minor) => new Intl.NumberFormat(undefined, { style: "currency", currency }).format(minor / 100);
const pct = (value) => value === null || value === undefined ? "–" : `${value.toFixed(2)} %`;
const time = (iso) => iso ? new Date(iso).toLocaleTimeString() : "";
const num = (text) => el("td", { class: "num" }, text);

function linkText(t) {
  if (t.status === "offline") return "offline";
  const lag = t.lag_s === null ? "" : `${t.lag_s.toFixed(1)} s`;
  return t.backlog ? `${t.backlog} behind${lag ? " · " + lag : ""}` : (lag || "–");
}

// Draws one item, or a line saying it cannot (the others are drawn all the same).
function each(items, draw, broken) {
  return items.map((item) => {
    try { return draw(item); } catch (error) { return broken(item, error); }
  });
}
const list = (value) => Array.isArray(value) ? value : [];
const name = (t) => String(t && t.table);

function tableRow(t) {
  const trouble = [t.hold ? `ON HOLD: ${t.hold}` : "", ...list(t.lost_devices).map((d) => `${d} lost`)].filter(Boolean).join(" · ");
  const row = el("tr", { "data-table": t.table },
    el("td", {}, t.table), el("td", {}, t.game), el("td", { class: `status-${t.status}` }, t.status),
    num(t.round ?? ""), el("td", {}, t.phase_text ?? ""), el("td", { class: "hold" }, trouble),
    el("td", {}, linkText(t)), num(t.rounds), num(money(t.day.drop)), num(money(t.day.win)),
    num(pct(t.day.hold_pct)), num(t.shift.rounds_per_hour), num(money(t.shift.win)),
    num(t.open_alerts || ""));
  row.addEventListener("click", () => showRounds(t.table));
  return row;
}

function renderTables() {
  const sorted = [...tables.values()].sort((a, b) => name(a).localeCompare(name(b)));
  $("tables-body").replaceChildren(...each(sorted, tableRow, (t, error) =>
    el("tr", { "data-table": name(t), class: "broken" },
      el("td", {}, name(t)), el("td", { colspan: "13" }, `cannot show this table: ${error.message}`))));
}

function renderTotals(floor) {
  const counts = Object.entries(floor.by_status).map(([k, v]) => `${v} ${k}`).join(" · ");
  $("counts").textContent = `${floor.tables} tables${counts ? ": " + counts : ""}`;
  $("totals-body").replaceChildren(...["day", "shift"].map((period) => {
    const f = floor[period];
    const since = time(floor[`${period}_start`]);
    return el("tr", {}, el("th", {}, `${period === "day" ? "gaming day" : "shift"} since ${since}`),
      num(f.rounds), num(f.rounds_per_hour), num(money(f.drop)), num(money(f.win)), num(pct(f.hold_pct)));
  }));
}

function renderAlerts(alerts) {
  const open = list(alerts).filter((a) => !a.ack_by);
  const unreadable = (a, error) => el("li", { class: "broken" }, `an alert that cannot be shown: ${error.message}`);
  $("open-count").textContent = open.length ? `(${open.length})` : "(none)";
  $("alerts").replaceChildren(...each(open, (a) => {
    const button = el("button", { type: "button" }, "Acknowledge");
    button.disabled = !me;
    button.title = me ? `acknowledge as ${me}` : "log in to acknowledge";
    button.addEventListener("click", () => acknowledge(a, button));
    return el("li", { "data-alert": `${a.table}/${a.n}` }, el("span", { class: "when" }, time(a.received)),
      el("strong", {}, a.table), el("span", { class: "text" }, `${a.kind}: ${a.text}`), button);
  }, unreadable));
  $("acknowledged").replaceChildren(...each(list(alerts).filter((a) => a.ack_by), (a) =>
    el("li", {}, el("span", { class: "when" }, time(a.ack_utc)), el("strong", {}, a.table),
      el("span", { class: "text" }, `${a.kind}: ${a.text}`), el("span", {}, `acknowledged by ${a.ack_by}`)), unreadable));
}

async function acknowledge(alert, button) {
  button.disabled = true;
  const response = await fetch("api/alerts/ack", { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify({ table: alert.table, n: alert.n }) });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    button.textContent = body.error || `refused (${response.status})`;
  }
}

async function showRounds(table) {
  const response = await fetch(`api/tables/${encodeURIComponent(table)}/rounds?limit=10`);
  const rounds = response.ok ? await response.json() : [];
  $("rounds-table").textContent = table;
  $("rounds").replaceChildren(...each(list(rounds), (r) => el("div", { class: "round" },
    el("strong", {}, `Round ${r.round} ${r.status_text}`), ` · ${time(r.started)} to ${time(r.utc)} · handle ${money(r.drop)} · win ${money(r.win)}`,
    r.clock_off ? el("span", { class: "clock" }, ` · the table's clock was off: counted at ${time(r.received)}`) : "",
    el("div", { class: "cards" }, r.cards_text.join(", ")),
    el("table", {}, el("tbody", {}, ...r.settlements.map(([seat, , , stake, net], i) => {
      const [wager, outcome, award] = r.settlements_text[i];
      return el("tr", {}, el("td", {}, `seat ${seat}`), el("td", {}, wager),
        num(money(stake)), el("td", {}, outcome), el("td", {}, award), num(money(net)));
    })))),
    (r, error) => el("div", { class: "round broken" }, `a round that cannot be shown: ${error.message}`)));
  if (!rounds.length) $("rounds").textContent = "no rounds received from this table";
  $("rounds-panel").classList.remove("hidden");
}

// "live" only while the stream is fresh and the floor service's writer, database and broker are
// all up; otherwise what is down, and since when.
function updateLive() {
  const silent = Date.now() - lastMessage > STALE_MS;
  const down = health && !health.ok ? ["ingest", "database", "broker"].filter((part) => health[part] && !health[part].up) : [];
  const stale = silent || !health || down.length > 0;
  document.body.classList.toggle("stale", stale);
  $("live").classList.toggle("stale", stale);
  $("live").textContent = silent ? "NOT LIVE: no news from the floor service"
    : !health ? "connecting…"
    : down.length ? `NOT LIVE: ${down.map((part) => `${part} down since ${time(health[part].since)}${health[part].detail ? ` (${health[part].detail})` : ""}`).join("; ")}`
    : "live";
}

function connect() {
  const source = new EventSource("events");
  const seen = () => { lastMessage = Date.now(); updateLive(); };
  source.addEventListener("tables", (ev) => {
    seen();
    const data = JSON.parse(ev.data);
    if (data.all) tables.clear();
    for (const t of list(data.tables)) tables.set(name(t), t);
    renderTables();
  });
  source.addEventListener("floor", (ev) => { seen(); renderTotals(JSON.parse(ev.data)); });
  source.addEventListener("alerts", (ev) => { seen(); renderAlerts(JSON.parse(ev.data).alerts); });
  source.addEventListener("ping", (ev) => { health = JSON.parse(ev.data); seen(); });
  source.onerror = updateLive;
}

async function start() {
  const who = await (await fetch("api/me")).json();
  me = who.name;
  currency = who.currency || "USD";
  $("who").textContent = me ? `supervisor: ${me}` : "not logged in: reading only";
  $("login-link").classList.toggle("hidden", Boolean(me));
  $("logout").classList.toggle("hidden", !me);
  connect();
  setInterval(updateLive, 1000);
}

$("logout").addEventListener("click", async () => { await fetch("api/logout", { method: "POST",
  headers: { "Content-Type": "application/json" }, body: "{}" }); location.reload(); });
$("rounds-close").addEventListener("click", () => $("rounds-panel").classList.add("hidden"));
start();
