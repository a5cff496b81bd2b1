// What is on the felt: the seats with their hands, wagers and dues, the dealer's hand, the
// baccarat hands with their roads, who deals and who is rated, and a card waiting for its seat.
import { $ } from "./page.js";
import { currentStep } from "./payout.js";
import { drawRoads } from "./roads.js";

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

// A seat's box names every wager the table holds for it, each with its result once settled and
// its stake while open: a side bet that settles after the deal never hides the main wager.
function lineEl(line, current, seat) {
  if (line.state === "open") return el("li", { class: "open" }, el("span", {}, line.name), " ", el("b", { class: "amount" }, line.text));
  const here = current && current.seat === seat && current.wager === line.wager ? " current" : "";
  const sign = line.action === "push" ? t("push") : (line.action === "collect" ? "−" : "+") + line.amount_text;
  return el("li", { class: `${line.action}${here}`, title: line.text }, el("span", {}, line.name), " ", el("b", { class: "amount" }, sign));
}

export function renderSeats(v) {
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

export function renderDealer(v) {
  $("dealer").classList.toggle("hidden", !v.dealer);
  if (!v.dealer) return;
  $("dealer-cards").replaceChildren(...v.dealer.cards.map(cardEl));
  $("dealer-total").textContent = v.dealer.total == null ? "" :
    v.dealer.revealed ? (v.dealer.blackjack ? t("Blackjack") : (v.dealer.total > 21 ? t("{total} bust", { total: v.dealer.total }) : `${v.dealer.total}`))
      : t("showing {total}", { total: v.dealer.total });
}

export function renderBaccarat(v) {
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

// A card read at the dealer's reader waits for its seat: one button per seat seats that player.
// Who deals, and the player rated at each seat (anonymous: "rated"), set as text: ids come
// from card readers and supervisors, never markup.
export function renderPeople(v) {
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

export function renderPendingCard(v) {
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
