// The felt fitted to the screen: seats drawn tighter, the roads and the pads' list stepping
// aside, amounts and names drawn smaller rather than cut or broken across lines.
import { MARKS_SHOWN, renderChecks } from "./payout.js";

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
export const overflows = (e) => e.scrollHeight > e.clientHeight + 1;

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

// A small screen whose seats hold more than their boxes, tightened to the last step: the
// roads step aside (the scoreboard's screen shows them; issue 48: between rounds the last
// coup's dues were cut off under them), then the pads' list of spots gives the seats its lines
// (its count stays, and each step's own mark).
export function fitLayout(v) {
  document.body.classList.remove("seats-first");
  renderChecks(v.verification);
  document.body.classList.toggle("seats-first", !fitSeats());
  for (let shown = MARKS_SHOWN; !fitSeats() && v.verification && shown > 0; shown -= 1) {
    renderChecks(v.verification, shown - 1);
  }
  shrinkToFit(".amount");
  shrinkToFit("#scoreboard figcaption");
}
