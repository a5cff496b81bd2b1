// The dealer display: follows the controller's stream, never shows stale data as current.
"use strict";
const STALE_MS = 3000;
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("tablectl-token") || "";
if (token) sessionStorage.setItem("tablectl-token", token);
const withToken = (url) => token ? `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : url;
const $ = (id) => document.getElementById(id);
let view = null;
pageTexts = findPageTexts();  // before anything is drawn over the page's own words
let lastMessage = 0;
let shownRound = null;

function cardEl(card) {
  if (card.hidden) return el("div", { class: "card back", title: t("hole card") });
  return el("div", { class: `card${card.red ? " red" : ""}`, "data-card": card.text }, `${card.rank}${card.suit}`);
}
function totalText(hand) {
  if (hand.total == null || !hand.cards.length) return "";  // no card yet: no total of 0
  if (hand.blackjack) return t("Blackjack");
  if (hand.bust) return t("{total} bust", { total: hand.total });
  return hand.soft ? t("soft {total}", { total: hand.total }) : `${hand.total}`;
}
function chipsText(chips) {
  return chips.map((c) => c.change ? t("{amount} change", { amount: c.change }) : `${c.count} × ${c.chip}`).join(" + ");
}
const actionWord = (action) => ({ pay: t("PAY"), collect: t("COLLECT"), return: t("RETURN"), push: t("PUSH") })[action];

// A seat's box names every wager the table holds for it, each with its result once settled and
// its stake while open: a side bet that settles after the deal never hides the main wager.
function lineEl(line, current, seat) {
  if (line.state === "open") return el("li", { class: "open" }, el("span", {}, line.name), " ", el("b", { class: "amount" }, line.text));
  const here = current && current.seat === seat && current.wager === line.wager ? " current" : "";
  const sign = line.action === "push" ? t("push") : (line.action === "collect" ? "−" : "+") + line.amount_text;
  return el("li", { class: `${line.action}${here}`, title: line.text }, el("span", {}, line.name), " ", el("b", { class: "amount" }, sign));
}

function renderSeats(v) {
  const current = currentStep(v);
  $("seats").style.setProperty("--seats", v.seats.length);
  $("seats").classList.toggle("many", v.seats.length > 7);
  $("seats").replaceChildren(...v.seats.map((s) => {
    const hands = s.hands.map((h, i) => el("div", { class: `hand${h.active ? " active" : ""}`, "data-hand": i + 1 },
      el("div", { class: "cards" }, ...h.cards.map(cardEl)),
      el("div", { class: "total" }, `${totalText(h)}${h.doubled ? ` (${t("doubled")})` : ""}${h.result_text ? " · " + h.result_text : ""}`)));
    const lines = (s.lines || []).map((l) => lineEl(l, current, s.seat));
    const dues = [[s.collect_text, "collect", t("COLLECT")], [s.pay_text, "pay", t("PAY")]].filter(([text]) => text)
      .map(([text, kind, word]) => el("div", { class: `due ${kind}` }, el("small", {}, word), el("b", { class: "amount" }, text)));
    const net = s.net == null ? [] : [el("div", { class: "net" }, `${t("net")} ${s.net > 0 ? "+" : s.net < 0 ? "−" : ""}`,
      el("span", { class: "amount" }, s.net_text))];
    return el("div", { class: `seat${current && current.seat === s.seat ? " current" : ""}${s.wager_list.length || lines.length ? "" : " empty"}`,
      "data-seat": s.seat }, el("h3", {}, t("Seat {seat}", { seat: s.seat })), el("div", { class: "hands" }, ...hands),
    el("ul", { class: "wagers" }, ...lines), el("div", { class: "dues" }, ...dues, ...net));
  }));
}

// A seat with more than its box holds (a split, every side bet, insurance) is drawn tighter:
// smaller cards side by side and no net line first, then smaller dues, and only then smaller
// wager lines; never clipped.
const TIGHTER = ["tight", "tighter", "tightest", "crammed"];
function fitSeats() {
  let fits = true;
  for (const seat of document.querySelectorAll(".seat")) {
    seat.classList.remove(...TIGHTER);
    for (const step of TIGHTER) if (overflows(seat)) seat.classList.add(step);
    fits = fits && !overflows(seat);
  }
  return fits;
}
const overflows = (e) => e.scrollHeight > e.clientHeight + 1;

// No amount breaks across lines, and no road's name in a language that says it longer than
// its box is cut: one that does not fit its box is drawn smaller instead.
function shrinkToFit(selector) {
  for (const el of document.querySelectorAll(selector)) {
    el.style.fontSize = "";
    let size = parseFloat(getComputedStyle(el).fontSize);
    while (el.scrollWidth > el.clientWidth + 0.5 && size > 8) {
      size -= 1;
      el.style.fontSize = `${size}px`;
    }
  }
}

function renderDealer(v) {
  $("dealer").classList.toggle("hidden", !v.dealer);
  if (!v.dealer) return;
  $("dealer-cards").replaceChildren(...v.dealer.cards.map(cardEl));
  $("dealer-total").textContent = v.dealer.total == null ? "" :
    v.dealer.revealed ? (v.dealer.blackjack ? t("Blackjack") : (v.dealer.total > 21 ? t("{total} bust", { total: v.dealer.total }) : `${v.dealer.total}`))
      : t("showing {total}", { total: v.dealer.total });
}

function renderBaccarat(v) {
  $("baccarat").classList.toggle("hidden", !v.baccarat);
  if (!v.baccarat) return;
  for (const side of ["player", "banker"]) {
    const hand = v.baccarat[side] || { cards: [], points: null };
    const box = $(`bac-${side}`);
    box.querySelector(".cards").replaceChildren(...hand.cards.map(cardEl));
    box.querySelector(".total").textContent = hand.points == null ? "" : hand.points;
  }
  const b = v.baccarat;
  const won = { player: t("PLAYER WINS"), banker: t("BANKER WINS"), tie: t("TIE") };
  $("bac-result").textContent = b.winner ? won[b.winner]
    + (b.commission ? ` · ${t("commission {amount}", { amount: b.commission_text })}` : "") + (b.lucky8.length ? ` · ${b.lucky8.join(" · ")}` : "") : "";
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
    prompt = v.lock_refused ? t("Do not deal: {reason}", { reason: v.lock_refused }) : t("Place your bets");
    buttons.push(["lock_bets", t("No more bets (L)"), {}, !!v.lock_refused]);
  } else if (e && e.kind === "decision") {
    prompt = t("Seat {seat} hand {hand}", { seat: e.seat, hand: e.hand });
    for (const o of e.options) buttons.push([o, decisionWord(o), { seat: e.seat, hand: e.hand }]);
  } else if (e && e.kind === "insurance") {
    prompt = t("Seat {seat}: insurance?", { seat: e.seat });
    // "no even money" is the answer to an offer of even money only (a blackjack)
    const offered = e.options.filter((o) => o !== "no_even_money" || e.options.includes("even_money"));
    for (const o of offered) buttons.push([o, decisionWord(o), { seat: e.seat }]);
  } else if (e && e.kind === "card") {
    prompt = t("Deal to {place}", { place: e.to });
  }
  if (v.phase === "locked" && v.alerts.some((a) => a.blocking)) buttons.push(["clear_alerts", t("Clear alerts"), {}]);
  $("prompt").textContent = prompt;
  $("buttons").replaceChildren(...buttons.map(([a, label, f, off]) =>
    Object.assign(el("button", { type: "button", "data-action": a, "data-fields": JSON.stringify(f) }, label), { disabled: !!off })));
  const p = v.payout;
  const step = currentStep(v);
  const shown = [];
  if (p) {
    const n = Math.min(walk.index, p.steps.length - 1);
    const totals = () => [`${t("pay")} `, el("span", { class: "amount" }, p.pay_text), ` · ${t("collect")} `,
      el("span", { class: "amount" }, p.collect_text)];
    const checked = v.verification && v.verification.marks.find((m) => step && m.seat === step.seat && m.spot === step.wager);
    const walkButton = (by, label, off) => Object.assign(el("button", { type: "button", "data-walk": by, "aria-label": label },
      by < 0 ? "◀" : "▶"), { disabled: off });
    if (step) {
      shown.push(el("div", { class: `step ${step.action}` },
        el("small", {}, `${n + 1}/${p.steps.length} · ${step.moment} · `, ...totals()),
        el("strong", {}, `${t("Seat {seat}", { seat: step.seat })} · ${step.name}: ${actionWord(step.action)} `,
          el("span", { class: "tail" }, el("span", { class: "amount" }, step.amount_text),
            ...(checked ? [" ", markEl(checked.state)] : []))),
        ...(step.chips.length ? [el("span", { class: "chips" }, chipsText(step.chips))] : [])),
      walkButton(-1, t("Back"), n === 0), walkButton(1, t("Next"), n >= p.steps.length - 1));
    } else {
      shown.push(el("div", { class: "totals" }, ...(p.steps.length ? [...totals(), ` · ${p.status_text || ""}`] : [t("nothing to pay or collect")])));
    }
    if (p.status !== "confirmed" && !v.do_not_pay && !(v.verification && v.verification.held)) {
      shown.push(el("button", { type: "button", class: "primary", "data-action": "confirm_payout", "data-fields": "{}" }, t("Confirm payout (C)")));
    }
  }
  $("payout").replaceChildren(...shown);
  document.body.classList.toggle("paying", !!step);
  renderChecks(v.verification);
}

// The pads' check of the payout: how many spots read what is due, and every other spot in words
// the dealer acts on (set as text). Held: the chips are put right, or a supervisor overrides.
const markWord = (state) => ({ wrong: "✗", corrected: `✓ ${t("corrected")}`, overridden: t("overridden"), unverified: "?",
  verified: `✓ ${t("verified")}` })[state];
// A spot the pads have not read yet: a turning ring, never an "…" that reads as text cut off
// (issue 48), its words for a screen reader and under the finger; `said`, where the text beside
// it says them already.
function markEl(state, said = false) {
  if (state !== "pending") return el("span", { class: `mark ${state}` }, markWord(state));
  const ring = el("span", { class: "waiting", "aria-hidden": "true" });
  return said ? el("span", { class: "mark pending" }, ring)
    : el("span", { class: "mark pending", role: "img", "aria-label": t("waiting for the pads"), title: t("waiting for the pads") }, ring);
}
const decisionWord = (option) => ({ hit: t("Hit"), stand: t("Stand"), double: t("Double"), split: t("Split"), surrender: t("Surrender"),
  insurance: t("Insurance"), no_insurance: t("No insurance"), even_money: t("Even money"), no_even_money: t("No even money") })[option] || option;
const MARKS_SHOWN = 4;
function renderChecks(c, shown = MARKS_SHOWN) {
  $("checks").classList.toggle("hidden", !c);
  $("checks").classList.toggle("held", !!(c && c.held));
  if (!c) return;
  $("checks-head").textContent = c.held ? t("PAYOUT HELD: put the chips right, or a supervisor overrides")
    : c.overridden_by ? t("Payout overridden by {supervisor}: {reason}", { supervisor: c.overridden_by, reason: c.override_reason }) : "";
  $("checks-count").textContent = tn("pads: {verified} of {n} spot verified", "pads: {verified} of {n} spots verified", c.marks.length,
    { verified: c.verified });
  const open = c.marks.filter((m) => m.state !== "verified");
  const order = ["wrong", "pending", "unverified", "overridden", "corrected"];
  open.sort((a, b) => order.indexOf(a.state) - order.indexOf(b.state));
  const items = open.slice(0, shown).map((m) => {
    const li = document.createElement("li");
    li.className = `mark ${m.state}`;
    li.dataset.seat = m.seat;
    li.dataset.spot = m.spot;
    if (m.state === "pending") li.append(markEl(m.state, true), " ", m.text);
    else li.textContent = `${markWord(m.state)} ${m.text}`;
    return li;
  });
  if (open.length > shown) {
    const more = document.createElement("li");
    more.textContent = t("and {n} more", { n: open.length - shown });
    items.push(more);
  }
  $("checks-list").replaceChildren(...items);
}

// A card read at the dealer's reader waits for its seat: one button per seat seats that player.
// Who deals, and the player rated at each seat (anonymous: "rated"), set as text: ids come
// from card readers and supervisors, never markup.
function renderPeople(v) {
  $("dealer-on").textContent = v.dealer_on ? t("dealer {dealer}", { dealer: v.dealer_on }) : t("no dealer");
  $("dealer-on").classList.toggle("missing", !v.dealer_on);
  for (const r of v.rated || []) {
    const seat = document.querySelector(`.seat[data-seat="${Number(r.seat)}"] h3`);
    if (!seat) continue;
    const tag = document.createElement("span");
    tag.className = "player";
    tag.textContent = r.player === null ? t("rated") : r.player;
    seat.append(" ", tag);
  }
}

function renderPendingCard(v) {
  const card = v.pending_card;
  $("pending-card").classList.toggle("hidden", !card);
  $("pending-text").textContent = card ? card.text : "";
  $("pending-seats").replaceChildren(...(card ? (v.seats || []).map((s) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.action = "seat_card";  // the card shown goes with the tap: a newer one waits
    button.dataset.fields = JSON.stringify({ seat: Number(s.seat), card: card.number });
    button.textContent = t("Seat {seat}", { seat: Number(s.seat) });
    return button;
  }) : []));
}

function render(v) {
  view = v;
  $("table-name").textContent = v.table || "tablectl";
  $("round").textContent = v.round ? t("Round {round}", { round: v.round }) : t("waiting");
  $("phase").textContent = v.phase_text || "";
  $("shoe").textContent = v.shoe ? t("shoe {number}", { number: v.shoe.number }) + (v.shoe.cut_card ? ` · ${t("cut card")}` : "") : "";
  // As text: an alert may quote what a card reader typed or a dealer id from the console.
  $("alerts").replaceChildren(...[...(v.notices || []).map((text) => ({ message: text })),
    ...(v.alerts || []).filter((a) => a.code !== "hold")].map((a) => {
    const item = document.createElement("li");
    if (a.blocking) item.className = "blocking";
    item.textContent = a.message;
    return item;
  }));
  renderDealer(v); renderBaccarat(v); renderSeats(v); renderPeople(v); renderActions(v); renderPendingCard(v);
  renderBooks(v);
  $("recall-list").replaceChildren(...(v.recall || []).map((r) => el("li", {},
    `${t("Round {round}", { round: r.round })} ${r.status_text || ""}${r.hold ? ` · ${t("on hold")}` : ""}: `
    + Object.entries(r.nets_text).map(([s, n]) => t("seat {seat} {amount}", { seat: s, amount: n })).join(", "),
    el("br"), el("small", {}, r.cards.join(", ")))));
  if (v.payout && v.payout.status === "computed" && !v.do_not_pay && shownRound !== v.round) {
    shownRound = v.round;
    send({ action: "payout_shown" });
  }
  updateBanner();  // first: a banner takes its room before the seats are fitted
  fitLayout(v);
}

// A small screen whose seats hold more than their boxes, tightened to the last step: the
// roads step aside (the scoreboard's screen shows them; issue 48: between rounds the last
// coup's dues were cut off under them), then the pads' list of spots gives the seats its lines
// (its count stays, and each step's own mark).
function fitLayout(v) {
  document.body.classList.remove("seats-first");
  renderChecks(v.verification);
  document.body.classList.toggle("seats-first", !fitSeats());
  for (let shown = MARKS_SHOWN; !fitSeats() && v.verification && shown > 0; shown -= 1) {
    renderChecks(v.verification, shown - 1);
  }
  shrinkToFit(".amount");
  shrinkToFit("#scoreboard figcaption");
}

// Stale (the controller's stream gone quiet): nothing on the page may act on what it shows.
function updateBanner() {
  const stale = isStale();
  const reason = stale ? t("no live data from the controller") : (view && view.do_not_pay);
  document.body.classList.toggle("stale", stale);
  $("banner").classList.toggle("hidden", !reason);
  $("banner-reason").textContent = reason || "";
  const dealReason = !stale && view && view.do_not_deal;
  $("deal-banner").classList.toggle("hidden", !dealReason);
  $("deal-reason").textContent = dealReason || "";
  for (const b of document.querySelectorAll("button[data-action], button[data-walk], button[data-sup]")) {
    if (stale) b.disabled = true;
    else if (b.dataset.sup) b.disabled = false;
  }
  const was = wasStale;
  wasStale = stale;
  if (stale && !was && view) showFloor(null);
  if (!stale && was && view) {  // the controls come back as the view allows, the floor mark too
    render(view);
    if (floorHealth) showFloor(floorHealth);
  } else if (view && (reason || "") + (dealReason || "") !== bannersShown) {
    bannersShown = (reason || "") + (dealReason || "");
    fitLayout(view);  // a banner come or gone: the seats have another height
  } else if (view && [...document.querySelectorAll(".seat")].some(overflows)) {
    fitLayout(view);  // a font the system found after the seats were fitted: fitted again
  }
}
let wasStale = false;
let bannersShown = "";

function isStale() { return Date.now() - lastMessage > STALE_MS; }

async function send(action) {
  if (isStale()) return false;  // a dead controller: no action from what the page last knew
  const response = await fetch(withToken("api/action"), { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(action) });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    const refusal = body.error || t("refused ({status})", { status: response.status });
    // said where the dealer is looking: in the dialog if it is open, else in the action bar
    const where = $("supervisor").open ? ["sup-message"] : $("books").open ? ["books-message", "tray-message"] : ["prompt"];
    where.forEach((id) => { $(id).textContent = refusal; });
  }
  return response.ok;
}

// The view comes in the language of the dealer signed in (else the display's): the page's
// own words follow it, then the view is drawn again in them.
function show(v) {
  if (v.language && document.documentElement.dataset.language !== v.language) {
    useLanguage(v.language, withToken(`i18n/${v.language}.json`)).then((ok) => { if (ok && view) render(view); });
  }
  render(v);
}

function connect() {
  const source = new EventSource(withToken("events"));
  const seen = (ev) => {
    lastMessage = Date.now();
    const d = JSON.parse(ev.data);
    if (d.view) { show(d.view); document.body.dataset.version = d.version; } else updateBanner();
  };
  source.addEventListener("snapshot", seen);
  source.addEventListener("ping", seen);
  source.addEventListener("floor", (ev) => showFloor(JSON.parse(ev.data)));
  source.onerror = () => updateBanner();
}

let floorHealth = null;
// The floor link's health: a small mark in the top bar, never a banner. The floor being away
// is no reason to stop a table: the messages wait in the journal. Away or behind (the broker
// there, the floor silent), it counts what the floor has not said it has; connected, what the
// broker has not taken yet; and any message refused for good (only a stand-in reached it).
function showFloor(health) {
  const mark = $("floor-link");
  if (health) floorHealth = health;
  else if (!floorHealth) return;
  if (!health) {  // the controller is silent: what the link said last may no longer be true
    mark.className = "floor-unknown";
    mark.textContent = t("floor ?");
    mark.title = t("no live data from the controller");
    return;
  }
  const count = health.state === "connected" ? health.unsent : health.backlog;
  const waiting = count ? ` · ${t("{n} waiting", { n: count })}` : "";
  const refused = health.refused ? ` · ${t("{n} refused", { n: health.refused })}` : "";
  const state = { connecting: tp("floor link", "connecting"), away: tp("floor link", "away"), behind: tp("floor link", "behind"),
    refused: tp("floor link", "refused") }[health.state] || health.state;
  mark.className = `floor-${health.state}`;
  mark.textContent = `${health.state === "connected" ? t("floor ✓") : t("floor {state}", { state })}${waiting}${refused}`;
  mark.title = health.detail || (health.refused ? t("messages refused for good: see tablectl doctor") : t("the floor link"));
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
    if (s.dataset.sup === "void_round" || s.dataset.sup === "override_payout") action.reason = $("void-reason").value;
    if (s.dataset.sup === "seat_player" || s.dataset.sup === "unseat_player") action.seat = Number($("seat-no").value);
    if (s.dataset.sup === "seat_player") action.player = s.dataset.anonymous ? null : $("player-id").value;
    $("sup-message").textContent = "";
    send(action).then((ok) => { if (ok) { $("sup-pin").value = ""; $("supervisor").close(); } });
  }
});
$("supervisor-button").onclick = () => $("supervisor").showModal();

// The books (issue 38): a buy-in is two taps, a seat and then its amount (cash unless Marker
// is chosen); a tray count, a fill or a credit is each chip's count and two people's PINs. The
// table answers a refused PIN or a chip it does not have as a notice, shown here too.
let buySeat = null;
function renderBooks(v) {
  const b = v.books;
  if (!b) return;
  $("books-said").replaceChildren(...b.said.map((line) => Object.assign(document.createElement("li"), { textContent: line })));
  $("buy-limit").textContent = b.supervisor_over ? t("Over {limit}: a supervisor signs", { limit: b.supervisor_over.text }) : "";
  const seats = v.seats.map((s) => s.seat);
  if ($("buy-seats").childElementCount !== seats.length) {
    $("buy-seats").replaceChildren(...seats.map((n) => Object.assign(document.createElement("button"),
      { type: "button", textContent: t("Seat {seat}", { seat: n }), onclick: () => pickSeat(n) })));
    [...$("buy-seats").children].forEach((button, i) => button.setAttribute("data-buy-seat", seats[i]));
  }
  if ($("buy-amounts").childElementCount !== b.buy_ins.length) {
    $("buy-amounts").replaceChildren(...b.buy_ins.map((a) => Object.assign(document.createElement("button"),
      { type: "button", textContent: a.text, onclick: () => buyIn(a.minor) })));
  }
  if ($("tray-chips").childElementCount !== b.chips.length) {
    $("tray-chips").replaceChildren(...b.chips.map((c) => {
      const label = Object.assign(document.createElement("label"), { textContent: `${c.text} × ` });
      label.append(Object.assign(document.createElement("input"), { type: "number", min: 0, inputMode: "numeric",
        value: "", oninput: trayTotal }));
      label.dataset.minor = c.minor;
      return label;
    }));
  }
  // An RFID chip tray: its last count offered to fill the counts in, to be signed as read
  $("tray-rfid").classList.toggle("hidden", !b.tray);
  if (b.tray) {
    $("tray-read-text").textContent = !b.tray.connected ? t("the tray is away")
      : b.tray.chips ? t("read {total} at {time}", { total: b.tray.text, time: new Date(b.tray.utc).toLocaleTimeString(I18N.tag) }) : "";
    $("tray-use").disabled = !b.tray.chips;
  }
  const notice = (v.notices || []).at(-1);
  if ($("books").open && notice && notice !== lastBooksNotice) {
    $("books-message").textContent = $("tray-message").textContent = notice;
  }
  lastBooksNotice = notice;
}
let lastBooksNotice = null;
function pickSeat(n) {
  buySeat = n;
  [...$("buy-seats").children].forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.buySeat) === n)));
  $("books-message").textContent = t("Seat {seat}: now its amount", { seat: n });
  $("buy-amounts").scrollIntoView({ block: "nearest" });
}
const medium = () => document.querySelector("input[name=medium]:checked").value;
// "150.00" in minor units, never through a float; null if it is not an amount
function minorOf(text, digits) {
  const match = /^(\d+)(?:[.,](\d+))?$/.exec(text.trim());
  if (!match || (match[2] || "").length > digits) return null;
  return Number(match[1] + (match[2] || "").padEnd(digits, "0"));
}
const digitsOf = () => view.books.decimals;
// A supervisor's id and PIN for cash over the table's [books] supervisor_over: the fields
// sent with it, or null (said) when it needs them and they are not there
function cashSigner(minor) {
  const over = view.books.supervisor_over, supervisor = $("buy-sup-id").value, pin = $("buy-sup-pin").value;
  if (supervisor && pin) return { supervisor, pin };
  if (over && minor > over.minor) {
    $("books-message").textContent = t("Over {limit}: a supervisor signs with their id and PIN", { limit: over.text });
    return null;
  }
  return {};
}
function sendCash(action, sent) {
  const signer = cashSigner(action.amount);
  if (signer === null) return;
  send({ ...action, ...signer }).then((ok) => {
    if (!ok) return;
    $("buy-sup-pin").value = "";
    if (sent) $("books-message").textContent = sent;
  });
}
function buyIn(minor) {
  if (buySeat === null) { $("books-message").textContent = t("Tap the seat first"); return; }
  const seat = buySeat;
  const sent = medium() === "marker" ? t("Seat {seat}: marker buy-in sent", { seat }) : t("Seat {seat}: cash buy-in sent", { seat });
  sendCash({ action: "buy_in", seat, amount: minor, medium: medium() }, sent);
}
function otherAmount() {
  const minor = minorOf($("buy-other").value, digitsOf());
  if (minor === null || minor < 1) { $("books-message").textContent = t("Other amount: write it as {example}", { example: "150.00" }); return null; }
  return minor;
}
$("buy-in").onclick = () => { const minor = otherAmount(); if (minor !== null) buyIn(minor); };
for (const [id, how] of [["chips-walked", "walked"], ["chips-colored", "colored_up"]]) {
  $(id).onclick = () => {
    const minor = otherAmount();
    if (minor === null) return;
    if (buySeat === null) { $("books-message").textContent = t("Tap the seat first"); return; }
    sendCash({ action: "chips_out", seat: buySeat, amount: minor, how });
  };
}
const trayKind = () => document.querySelector("input[name=tray-kind]:checked").value;
const trayWord = (kind) => ({ opener: t("Opener"), shift: t("Shift change"), closer: t("Closer"), fill: t("Fill"), credit: t("Credit") })[kind];
function trayChips() {
  const chips = {};
  for (const label of $("tray-chips").children) {
    const count = label.querySelector("input").value;
    if (count !== "" && Number(count) > 0) chips[label.dataset.minor] = Number(count);
  }
  return chips;
}
function trayTotal() {
  const total = Object.entries(trayChips()).reduce((sum, [minor, count]) => sum + Number(minor) * count, 0);
  const digits = digitsOf();
  $("tray-total").textContent = t("Total {amount}", { amount: new Intl.NumberFormat(I18N.tag, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(total / 10 ** digits) });
}
document.querySelectorAll("input[name=tray-kind]").forEach((radio) => radio.addEventListener("change", () => {
  const count = ["opener", "shift", "closer"].includes(trayKind());
  $("signer-role").textContent = count ? t("Dealer") : t("Runner");
  $("signer-pin-role").textContent = count ? t("Dealer PIN") : t("Runner PIN");
  $("request-label").classList.toggle("hidden", count);
  $("tray-after-label").classList.toggle("hidden", count || !view.books.tray);
}));
$("tray-sign").onclick = () => {
  const kind = trayKind();
  const count = ["opener", "shift", "closer"].includes(kind);
  const action = count
    ? { action: "tray_count", count: kind, dealer: $("signer-id").value, dealer_pin: $("signer-pin").value }
    : { action: kind, runner: $("signer-id").value, runner_pin: $("signer-pin").value };
  if (!count && $("tray-request").value) action.request = Number($("tray-request").value);
  if (!count && $("tray-after").checked) {
    if (!(view.books.tray && view.books.tray.chips)) { $("tray-message").textContent = t("Read the tray first"); return; }
    action.tray = view.books.tray.chips;
  }
  Object.assign(action, { chips: trayChips(), supervisor: $("tray-sup-id").value, pin: $("tray-sup-pin").value });
  $("books-message").textContent = $("tray-message").textContent = "";
  send(action).then((ok) => {
    $("signer-pin").value = $("tray-sup-pin").value = "";
    if (ok) $("tray-message").textContent = t("sent for signing: {what}", { what: trayWord(kind) });
  });
};
$("tray-read").onclick = () => send({ action: "read_tray" });
$("tray-use").onclick = () => {
  const chips = view.books.tray && view.books.tray.chips;
  if (!chips) return;
  for (const label of $("tray-chips").children) label.querySelector("input").value = chips[label.dataset.minor] ?? "";
  trayTotal();
};
function openBooks(seat) {
  $("books-message").textContent = "";
  if (!$("books").open) $("books").showModal();
  if (seat) pickSeat(seat);
}
// A buy-in is two taps: the seat's box, then its amount. The tray, fills and credits need a
// supervisor: they open from the supervisor's dialog.
$("seats").addEventListener("click", (ev) => {
  const box = ev.target.closest("[data-seat]");
  if (box && !isStale()) openBooks(Number(box.dataset.seat));
});
$("sup-books").onclick = () => { $("supervisor").close(); openBooks(null); };
$("recall-button").onclick = () => $("recall").showModal();
$("dealer-button").onclick = () => $("dealer-dialog").showModal();
$("dealer-in").onclick = () => send({ action: "dealer_sign_in", dealer: $("dealer-id").value, pin: $("dealer-pin").value })
  .then((ok) => { $("dealer-pin").value = ""; if (ok) $("dealer-dialog").close(); });
$("dealer-out").onclick = () => send({ action: "dealer_sign_out", dealer: $("dealer-id").value, pin: $("dealer-pin").value })
  .then((ok) => { if (ok) $("dealer-dialog").close(); });

const KEYS = { h: "hit", s: "stand", d: "double", p: "split", r: "surrender", i: "insurance", n: "no_insurance", e: "even_money" };
document.addEventListener("keydown", (ev) => {
  if (!view || isStale() || ev.target.tagName === "INPUT" || document.querySelector("dialog[open]")) return;
  const key = ev.key.toLowerCase();
  const e = view.expected;
  if (key === "l") send({ action: "lock_bets" });
  else if ((key === "arrowright" || key === "arrowleft") && view.payout) {
    walk.index = Math.max(0, walk.index + (key === "arrowright" ? 1 : -1)); render(view);
  } else if (key === "c" && view.payout && !view.do_not_pay && !(view.verification && view.verification.held)) send({ action: "confirm_payout" });
  else if (KEYS[key] && e && e.options && e.options.includes(KEYS[key])) send({ action: KEYS[key], seat: e.seat, hand: e.hand || 1 });
});
setInterval(updateBanner, 500);
connect();
window.addEventListener("resize", () => { if (view) render(view); });
