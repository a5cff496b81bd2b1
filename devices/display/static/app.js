// The dealer display: follows the controller's stream, never shows stale data as current.
"use strict";
const STALE_MS = 3000;
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("tablectl-token") || "";
if (token) sessionStorage.setItem("tablectl-token", token);
const withToken = (url) => token ? `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : url;
const $ = (id) => document.getElementById(id);
let view = null;
let lastMessage = 0;
let shownRound = null;

function cardHtml(card) {
  if (card.hidden) return '<div class="card back" title="hole card"></div>';
  return `<div class="card${card.red ? " red" : ""}" data-card="${card.text}">${card.rank}${card.suit}</div>`;
}
function totalText(hand) {
  if (hand.total == null) return "";
  if (hand.blackjack) return "Blackjack";
  if (hand.bust) return `${hand.total} bust`;
  return hand.soft ? `soft ${hand.total}` : `${hand.total}`;
}
function chipsText(chips) {
  return chips.map((c) => c.change ? `${c.change} change` : `${c.count} × ${c.chip}`).join(" + ");
}
const ACTION_WORDS = { pay: "PAY", collect: "COLLECT", return: "RETURN", push: "PUSH" };

function renderSeats(v) {
  const current = currentStep(v);
  $("seats").style.setProperty("--seats", v.seats.length);
  $("seats").classList.toggle("many", v.seats.length > 7);
  $("seats").innerHTML = v.seats.map((s) => {
    const wagers = s.wager_list.map((w) => `<li><span>${w.name}</span> <b>${w.text}</b></li>`).join("");
    const hands = s.hands.map((h, i) => `<div class="hand${h.active ? " active" : ""}" data-hand="${i + 1}">
        <div class="cards">${h.cards.map(cardHtml).join("")}</div>
        <div class="total">${totalText(h)}${h.doubled ? " (doubled)" : ""}${h.result ? " · " + h.result : ""}</div></div>`).join("");
    const results = s.results.map((r) => `<li class="${r.action}${current && current.seat === s.seat && current.wager === r.wager ? " current" : ""}" title="${r.text}">` +
      `<span>${r.name}</span> <b>${r.action === "push" ? "push" : (r.action === "collect" ? "−" : "+") + r.amount_text}</b></li>`).join("");
    const due = (s.collect_text ? `<div class="due collect"><small>COLLECT</small>${s.collect_text}</div>` : "")
      + (s.pay_text ? `<div class="due pay"><small>PAY</small>${s.pay_text}</div>` : "");
    const net = s.net == null ? "" : `<div class="net">net ${s.net > 0 ? "+" : s.net < 0 ? "−" : ""}${s.net_text}</div>`;
    const body = s.results.length ? `<ul class="results">${results}</ul>` : `<ul class="wagers">${wagers}</ul>`;
    return `<div class="seat${current && current.seat === s.seat ? " current" : ""}${s.wager_list.length ? "" : " empty"}" data-seat="${s.seat}">
      <h3>Seat ${s.seat}</h3>${hands}${body}<div class="dues">${due}${net}</div></div>`;
  }).join("");
}

function renderDealer(v) {
  $("dealer").classList.toggle("hidden", !v.dealer);
  if (!v.dealer) return;
  $("dealer-cards").innerHTML = v.dealer.cards.map(cardHtml).join("");
  $("dealer-total").textContent = v.dealer.total == null ? "" :
    v.dealer.revealed ? (v.dealer.blackjack ? "Blackjack" : (v.dealer.total > 21 ? `${v.dealer.total} bust` : `${v.dealer.total}`)) : `showing ${v.dealer.total}`;
}

function renderBaccarat(v) {
  $("baccarat").classList.toggle("hidden", !v.baccarat);
  if (!v.baccarat) return;
  for (const side of ["player", "banker"]) {
    const hand = v.baccarat[side] || { cards: [], points: null };
    const box = $(`bac-${side}`);
    box.querySelector(".cards").innerHTML = hand.cards.map(cardHtml).join("");
    box.querySelector(".total").textContent = hand.points == null ? "" : hand.points;
  }
  const b = v.baccarat;
  $("bac-result").textContent = b.winner ? `${b.winner.toUpperCase()}${b.winner === "tie" ? "" : " WINS"}`
    + (b.commission ? ` · commission ${b.commission_text}` : "") + (b.lucky8.length ? ` · ${b.lucky8.join(" · ")}` : "") : "";
  drawRoads($("scoreboard"), b.roads);
}

// The payout walk: one step at a time in procedure order; the page keeps the dealer's place
// (a tap is not journaled: the one confirmation of the whole payout is).
let walk = { round: null, index: 0 };
function currentStep(v) {
  const steps = v.payout ? v.payout.steps : [];
  if (walk.round !== v.round) walk = { round: v.round, index: 0 };
  return steps.length && v.payout.status !== "confirmed" ? steps[Math.min(walk.index, steps.length - 1)] : null;
}

function renderActions(v) {
  const e = v.expected;
  const buttons = [];
  let prompt = "";
  if (v.phase === "betting" || v.phase === "waiting" || v.phase === "closed") {
    prompt = "Place your bets";
    buttons.push(["lock_bets", "No more bets (L)", {}]);
  } else if (e && e.kind === "decision") {
    prompt = `Seat ${e.seat} hand ${e.hand}`;
    for (const o of e.options) buttons.push([o, o[0].toUpperCase() + o.slice(1), { seat: e.seat, hand: e.hand }]);
  } else if (e && e.kind === "insurance") {
    prompt = `Seat ${e.seat}: insurance?`;
    for (const o of e.options) buttons.push([o, o.replace(/_/g, " "), { seat: e.seat }]);
  } else if (e && e.kind === "card") {
    prompt = `Deal to ${e.to}`;
  }
  if (v.phase === "locked" && v.alerts.some((a) => a.blocking)) buttons.push(["clear_alerts", "Clear alerts", {}]);
  $("prompt").textContent = prompt;
  $("buttons").innerHTML = buttons.map(([a, label, f]) =>
    `<button type="button" data-action="${a}" data-fields='${JSON.stringify(f)}'>${label}</button>`).join("");
  const p = v.payout;
  const step = currentStep(v);
  let html = "";
  if (p) {
    const n = Math.min(walk.index, p.steps.length - 1);
    const totals = `pay ${p.pay_text} · collect ${p.collect_text}`;
    html = (step ? `<div class="step ${step.action}"><small>${n + 1}/${p.steps.length} · ${step.moment} · ${totals}</small>
        <strong>Seat ${step.seat} · ${step.name}: ${ACTION_WORDS[step.action]} ${step.amount_text}</strong>
        ${step.chips.length ? `<span class="chips">${chipsText(step.chips)}</span>` : ""}</div>
        <button type="button" data-walk="-1" aria-label="Back"${n === 0 ? " disabled" : ""}>◀</button>
        <button type="button" data-walk="1" aria-label="Next"${n >= p.steps.length - 1 ? " disabled" : ""}>▶</button>`
      : `<div class="totals">${totals} · ${p.status}</div>`) +
      (p.status !== "confirmed" && !v.do_not_pay ? '<button type="button" class="primary" data-action="confirm_payout" data-fields="{}">Confirm payout (C)</button>' : "");
  }
  $("payout").innerHTML = html;
  document.body.classList.toggle("paying", !!step);
}

function render(v) {
  view = v;
  $("table-name").textContent = v.table || "tablectl";
  $("round").textContent = v.round ? `Round ${v.round}` : "waiting";
  $("phase").textContent = (v.phase || "").replace(/_/g, " ");
  $("shoe").textContent = v.shoe ? `shoe ${v.shoe.number}${v.shoe.cut_card ? " · cut card" : ""}` : "";
  $("alerts").innerHTML = (v.alerts || []).filter((a) => a.code !== "hold").map((a) =>
    `<li class="${a.blocking ? "blocking" : ""}">${a.message}</li>`).join("");
  renderDealer(v); renderBaccarat(v); renderSeats(v); renderActions(v);
  $("recall-list").innerHTML = (v.recall || []).map((r) => `<li>Round ${r.round} ${r.status}${r.hold ? " · on hold" : ""}: `
    + Object.entries(r.nets_text).map(([s, n]) => `seat ${s} ${n}`).join(", ") + `<br><small>${r.cards.join(", ")}</small></li>`).join("");
  if (v.payout && v.payout.status === "computed" && !v.do_not_pay && shownRound !== v.round) {
    shownRound = v.round;
    send({ action: "payout_shown" });
  }
  updateBanner();
}

function updateBanner() {
  const stale = Date.now() - lastMessage > STALE_MS;
  const reason = stale ? "no live data from the controller" : (view && view.do_not_pay);
  document.body.classList.toggle("stale", stale);
  $("banner").classList.toggle("hidden", !reason);
  $("banner-reason").textContent = reason || "";
  const dealReason = !stale && view && view.do_not_deal;
  $("deal-banner").classList.toggle("hidden", !dealReason);
  $("deal-reason").textContent = dealReason || "";
}

async function send(action) {
  const response = await fetch(withToken("api/action"), { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(action) });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    $("sup-message").textContent = body.error || `refused (${response.status})`;
  }
  return response.ok;
}

function connect() {
  const source = new EventSource(withToken("events"));
  const seen = (ev) => { lastMessage = Date.now(); const d = JSON.parse(ev.data); if (d.view) render(d.view); else updateBanner(); };
  source.addEventListener("snapshot", seen);
  source.addEventListener("ping", seen);
  source.addEventListener("floor", (ev) => showFloor(JSON.parse(ev.data)));
  source.onerror = () => updateBanner();
}

// The floor link's health: a small mark in the top bar, never a banner. The floor being away
// is no reason to stop a table: the messages wait in the journal. Away or behind (the broker
// there, the floor silent), it counts what the floor has not said it has; connected, what the
// broker has not taken yet; and any message refused for good (only a stand-in reached it).
function showFloor(health) {
  const mark = $("floor-link");
  const count = health.state === "connected" ? health.unsent : health.backlog;
  const waiting = count ? ` · ${count} waiting` : "";
  const refused = health.refused ? ` · ${health.refused} refused` : "";
  mark.className = `floor-${health.state}`;
  mark.textContent = `${health.state === "connected" ? "floor ✓" : `floor ${health.state}`}${waiting}${refused}`;
  mark.title = health.detail || (health.refused ? "messages refused for good: see tablectl doctor" : "the floor link");
}

document.addEventListener("click", (ev) => {
  const w = ev.target.closest("button[data-walk]");
  if (w && view) { walk.index = Math.max(0, walk.index + Number(w.dataset.walk)); render(view); }
  const b = ev.target.closest("button[data-action]");
  if (b) send({ action: b.dataset.action, ...JSON.parse(b.dataset.fields || "{}") });
  const s = ev.target.closest("button[data-sup]");
  if (s) {
    const action = { action: s.dataset.sup, supervisor: $("sup-id").value, pin: $("sup-pin").value };
    if (s.dataset.sup === "assign_card") { action.to = $("assign-to").value; if ($("assign-card").value) action.card = $("assign-card").value; }
    if (s.dataset.sup === "void_round") action.reason = $("void-reason").value;
    $("sup-message").textContent = "";
    send(action).then((ok) => { if (ok) { $("sup-pin").value = ""; $("supervisor").close(); } });
  }
});
$("supervisor-button").onclick = () => $("supervisor").showModal();
$("recall-button").onclick = () => $("recall").showModal();

const KEYS = { h: "hit", s: "stand", d: "double", p: "split", r: "surrender", i: "insurance", n: "no_insurance", e: "even_money" };
document.addEventListener("keydown", (ev) => {
  if (!view || ev.target.tagName === "INPUT" || document.querySelector("dialog[open]")) return;
  const key = ev.key.toLowerCase();
  const e = view.expected;
  if (key === "l") send({ action: "lock_bets" });
  else if ((key === "arrowright" || key === "arrowleft") && view.payout) {
    walk.index = Math.max(0, walk.index + (key === "arrowright" ? 1 : -1)); render(view);
  } else if (key === "c" && view.payout && !view.do_not_pay) send({ action: "confirm_payout" });
  else if (KEYS[key] && e && e.options && e.options.includes(KEYS[key])) send({ action: KEYS[key], seat: e.seat, hand: e.hand || 1 });
});
setInterval(updateBanner, 500);
connect();
window.addEventListener("resize", () => { if (view) render(view); });
