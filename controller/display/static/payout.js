// The payout: walked one step at a time in procedure order, its totals, its confirmation, and
// the pads' check of it.
import { $ } from "./page.js";

// The page keeps the dealer's place in the walk (a tap is not journaled: the one confirmation
// of the whole payout is).
let walk = { round: null, index: 0 };
export function currentStep(v) {
  const steps = v.payout ? v.payout.steps : [];
  if (walk.round !== v.round) walk = { round: v.round, index: 0 };
  return steps.length && v.payout.status !== "confirmed" ? steps[Math.min(walk.index, steps.length - 1)] : null;
}
// A step back (-1) or on (1); the caller draws the view again.
export function stepWalk(by) { walk.index = Math.max(0, walk.index + by); }

function chipsText(chips) {
  return chips.map((c) => c.change ? t("{amount} change", { amount: c.change }) : `${c.count} × ${c.chip}`).join(" + ");
}
const actionWord = (action) => ({ pay: t("PAY"), collect: t("COLLECT"), return: t("RETURN"), push: t("PUSH") })[action];

export function renderPayout(v) {
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
export const MARKS_SHOWN = 4;
export function renderChecks(c, shown = MARKS_SHOWN) {
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
