// The live link to the controller: its stream (server-sent events) in, the dealer's actions out.
import { $, heard, isStale, withToken } from "./page.js";

export async function send(action) {
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

// Follows the stream: `snapshot(view, version)` for each view, `quiet()` for a ping without one
// and for a broken stream, `floor(health)` for the floor link's.
export function connect({ snapshot, quiet, floor }) {
  const source = new EventSource(withToken("events"));
  const seen = (ev) => {
    heard();
    const d = JSON.parse(ev.data);
    if (d.view) snapshot(d.view, d.version); else quiet();
  };
  source.addEventListener("snapshot", seen);
  source.addEventListener("ping", seen);
  source.addEventListener("floor", (ev) => floor(JSON.parse(ev.data)));
  source.onerror = () => quiet();
}
