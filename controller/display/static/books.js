// The books (issue 38): a buy-in is two taps, a seat and then its amount (cash unless Marker
// is chosen); a tray count, a fill or a credit is each chip's count and two people's PINs. The
// table answers a refused PIN or a chip it does not have as a notice, shown here too. The
// dialog's controls are wired when the module loads.
import { $, isStale, view } from "./page.js";
import { send } from "./link.js";

let buySeat = null;
export function renderBooks(v) {
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
