// The dealer display: follows the controller's stream, never shows stale data as current. This
// module draws the view from the others' parts and starts the page: the live link (link.js),
// the banners (banner.js), the felt (seats.js), the payout (payout.js), the dealer's actions
// (actions.js), the books (books.js) and the fit to the screen (layout.js).
import { $, keep, view, withToken } from "./page.js";
import { connect, send } from "./link.js";
import { redrawFloor, renderAlerts, showFloor, updateBanner } from "./banner.js";
import { renderBaccarat, renderDealer, renderPendingCard, renderPeople, renderSeats } from "./seats.js";
import { renderPayout } from "./payout.js";
import { renderActions, renderRecall, wireActions } from "./actions.js";
import { renderBooks } from "./books.js";
import { fitLayout } from "./layout.js";

let shownRound = null;

function render(v) {
  keep(v);
  $("table-name").textContent = v.table || "tablectl";
  $("round").textContent = v.round ? t("Round {round}", { round: v.round }) : t("waiting");
  $("phase").textContent = v.phase_text || "";
  $("shoe").textContent = v.shoe ? t("shoe {number}", { number: v.shoe.number }) + (v.shoe.cut_card ? ` · ${t("cut card")}` : "") : "";
  renderAlerts(v);
  renderDealer(v); renderBaccarat(v); renderSeats(v); renderPeople(v); renderActions(v); renderPayout(v); renderPendingCard(v);
  renderBooks(v);
  renderRecall(v);
  if (v.payout && v.payout.status === "computed" && !v.do_not_pay && shownRound !== v.round) {
    shownRound = v.round;
    send({ action: "payout_shown" });
  }
  refresh();  // first: a banner takes its room before the seats are fitted
  fitLayout(v);
}

// The banners brought up to date, and what follows from them: live again, the view drawn anew
// (its controls come back as it allows) and the floor's mark with it; a banner come or gone,
// the seats fitted again.
function refresh() {
  const next = updateBanner();
  if (next === "back") {
    render(view);
    redrawFloor();
  } else if (next === "refit") {
    fitLayout(view);
  }
}

// The view comes in the language of the dealer signed in (else the display's): the page's
// own words follow it, then the view is drawn again in them.
function show(v) {
  if (v.language && document.documentElement.dataset.language !== v.language) {
    useLanguage(v.language, withToken(`i18n/${v.language}.json`)).then((ok) => { if (ok && view) render(view); });
  }
  render(v);
}

wireActions(() => render(view));
setInterval(refresh, 500);
connect({
  snapshot: (v, version) => { show(v); document.body.dataset.version = version; },
  quiet: refresh,
  floor: showFloor,
});
window.addEventListener("resize", () => { if (view) render(view); });
