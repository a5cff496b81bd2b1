// What the dealer does: the prompt and its buttons, the keyboard's shortcuts, the supervisor's
// and the dealer's dialogs, and the recall of the last rounds.
import { $, isStale, view } from "./page.js";
import { send } from "./link.js";
import { stepWalk } from "./payout.js";

const decisionWord = (option) => ({ hit: t("Hit"), stand: t("Stand"), double: t("Double"), split: t("Split"), surrender: t("Surrender"),
  insurance: t("Insurance"), no_insurance: t("No insurance"), even_money: t("Even money"), no_even_money: t("No even money") })[option] || option;

export function renderActions(v) {
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
}

export function renderRecall(v) {
  $("recall-list").replaceChildren(...(v.recall || []).map((r) => el("li", {},
    `${t("Round {round}", { round: r.round })} ${r.status_text || ""}${r.hold ? ` · ${t("on hold")}` : ""}: `
    + Object.entries(r.nets_text).map(([s, n]) => t("seat {seat} {amount}", { seat: s, amount: n })).join(", "),
    el("br"), el("small", {}, r.cards.join(", ")))));
}

const KEYS = { h: "hit", s: "stand", d: "double", p: "split", r: "surrender", i: "insurance", n: "no_insurance", e: "even_money" };

// The taps, the dialogs and the keys; `redraw()` draws the view again after a step of the walk.
export function wireActions(redraw) {
  document.addEventListener("click", (ev) => {
    const w = ev.target.closest("button[data-walk]");
    if (w && view) { stepWalk(Number(w.dataset.walk)); redraw(); }
    const b = ev.target.closest("button[data-action]");
    if (b) send({ action: b.dataset.action, ...JSON.parse(b.dataset.fields || "{}") });
    const s = ev.target.closest("button[data-sup]");
    if (s) {
      const action = { action: s.dataset.sup, supervisor: $("sup-id").value, pin: $("sup-pin").value };
      if (s.dataset.sup === "assign_card") { action.to = $("assign-to").value; if ($("assign-card").value) action.card = $("assign-card").value; }
      if (["void_round", "override_payout", "clear_integrity"].includes(s.dataset.sup)) action.reason = $("void-reason").value;
      if (s.dataset.sup === "seat_player" || s.dataset.sup === "unseat_player") action.seat = Number($("seat-no").value);
      if (s.dataset.sup === "seat_player") action.player = s.dataset.anonymous ? null : $("player-id").value;
      $("sup-message").textContent = "";
      send(action).then((ok) => { if (ok) { $("sup-pin").value = ""; $("supervisor").close(); } });
    }
  });
  $("supervisor-button").onclick = () => $("supervisor").showModal();
  $("recall-button").onclick = () => $("recall").showModal();
  $("dealer-button").onclick = () => $("dealer-dialog").showModal();
  $("dealer-in").onclick = () => send({ action: "dealer_sign_in", dealer: $("dealer-id").value, pin: $("dealer-pin").value })
    .then((ok) => { $("dealer-pin").value = ""; if (ok) $("dealer-dialog").close(); });
  $("dealer-out").onclick = () => send({ action: "dealer_sign_out", dealer: $("dealer-id").value, pin: $("dealer-pin").value })
    .then((ok) => { if (ok) $("dealer-dialog").close(); });

  document.addEventListener("keydown", (ev) => {
    if (!view || isStale() || ev.target.tagName === "INPUT" || document.querySelector("dialog[open]")) return;
    const key = ev.key.toLowerCase();
    const e = view.expected;
    if (key === "l") send({ action: "lock_bets" });
    else if ((key === "arrowright" || key === "arrowleft") && view.payout) {
      stepWalk(key === "arrowright" ? 1 : -1); redraw();
    } else if (key === "c" && view.payout && !view.do_not_pay && !(view.verification && view.verification.held)) send({ action: "confirm_payout" });
    else if (KEYS[key] && e && e.options && e.options.includes(KEYS[key])) send({ action: KEYS[key], seat: e.seat, hand: e.hand || 1 });
  });
}
