// Signing in, shared by a job's page and the operator's index (docs/dashboard.md): the person's own Kubernetes token
// stays in this tab (sessionStorage) and is sent as a header with every poll of `path`; `render(body)` on 200.
// Expects the elements sign-in, sign-in-form, token, sign-out, viewer, auth-message and page.
"use strict";

function ballastSession({ path, pollMs, server, stats, render }) {
  const TOKEN_KEY = "ballast.token";
  const byId = (id) => document.getElementById(id);
  let timer = 0;

  function showMessage(text, isError) {
    byId("auth-message").hidden = !text;
    byId("auth-message").textContent = text || "";
    byId("auth-message").className = isError ? "message error" : "message";
  }

  function signedOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    byId("page").hidden = true;
    byId("sign-in").hidden = false;
    byId("sign-out").hidden = true;
    byId("viewer").textContent = "";
    showMessage(message, Boolean(message));
  }

  async function poll() {
    clearTimeout(timer);
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) { signedOut(""); return; }
    let response;
    try {
      response = await fetch(path, { headers: { Authorization: `Bearer ${token}` }, cache: "no-store" });
    } catch (e) {
      showMessage(`cannot reach the ${server} (${e.message}); retrying`, true);
      timer = setTimeout(poll, pollMs);
      return;
    }
    const body = await response.json().catch(() => ({}));
    if (response.status === 401) { signedOut(body.error || "sign in again"); return; }
    if (response.status !== 200) {
      byId("page").hidden = true;
      showMessage(body.error || `the ${server} answered ${response.status}`, true);
      if (response.status !== 403) timer = setTimeout(poll, pollMs);
      return;
    }
    stats.viewer = response.headers.get("Ballast-Viewer") || "";
    byId("viewer").textContent = `signed in as ${stats.viewer}`;
    byId("sign-out").hidden = false;
    byId("sign-in").hidden = true;
    showMessage("", false);
    render(body);
    timer = setTimeout(poll, pollMs);
  }

  document.addEventListener("DOMContentLoaded", () => {
    byId("sign-in-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = byId("token").value.trim();
      if (!token) { showMessage("paste a token first", true); return; }
      sessionStorage.setItem(TOKEN_KEY, token);
      byId("token").value = "";
      poll();
    });
    byId("sign-out").addEventListener("click", () => signedOut("signed out"));
    poll();
  });
}
