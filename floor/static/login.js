// The pit's login: a supervisor of the floor (`tablectl floor user add NAME`), not a table PIN.
import { ask, startLanguage } from "./dom.js";
startLanguage();
document.getElementById("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const response = await ask("api/login", { method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: document.getElementById("name").value,
                           password: document.getElementById("password").value }) });
  if (response.ok) { location.href = "./"; return; }
  const body = await response.json().catch(() => ({}));
  document.getElementById("message").textContent = body.error || t("refused ({status})", { status: response.status });
});
