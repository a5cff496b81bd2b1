// What the page says across its top: the banners (no live data, DO NOT PAY, DO NOT DEAL), the
// table's alerts and notices, and the floor link's mark.
import { $, isStale, view } from "./page.js";
import { overflows } from "./layout.js";

// As text: an alert may quote what a card reader typed or a dealer id from the console.
export function renderAlerts(v) {
  $("alerts").replaceChildren(...[...(v.notices || []).map((text) => ({ message: text })),
    ...(v.alerts || []).filter((a) => a.code !== "hold")].map((a) => {
    const item = document.createElement("li");
    if (a.blocking) item.className = "blocking";
    item.textContent = a.message;
    return item;
  }));
}

// Stale (the controller's stream gone quiet): nothing on the page may act on what it shows.
// Says what the page must do next: "back" (live again: drawn anew, then `redrawFloor`),
// "refit" (the seats have another height), or null.
export function updateBanner() {
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
  if (!stale && was && view) return "back";  // the controls come back as the view allows, the floor mark too
  if (view && (reason || "") + (dealReason || "") !== bannersShown) {
    bannersShown = (reason || "") + (dealReason || "");
    return "refit";  // a banner come or gone: the seats have another height
  }
  if (view && [...document.querySelectorAll(".seat")].some(overflows)) {
    return "refit";  // a font the system found after the seats were fitted: fitted again
  }
  return null;
}
let wasStale = false;
let bannersShown = "";

let floorHealth = null;
// The floor link's health: a small mark in the top bar, never a banner. The floor being away
// is no reason to stop a table: the messages wait in the journal. Away or behind (the broker
// there, the floor silent), it counts what the floor has not said it has; connected, what the
// broker has not taken yet; and any message refused for good (only a stand-in reached it).
export function showFloor(health) {
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
// The floor link's last word shown again (the controller heard once more).
export function redrawFloor() {
  if (floorHealth) showFloor(floorHealth);
}
