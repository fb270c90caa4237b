// Ballast index of jobs (docs/dashboard.md): polls api/jobs with the person's own Kubernetes token and redraws the
// table in place.
"use strict";

const TOKEN_KEY = "ballast.token";
const POLL_MS = 3000;
const $ = (id) => document.getElementById(id);
// window.ballastIndex: render count and the jobs shown, read by the browser tests and handy in the console
const stats = (window.ballastIndex = { renders: 0, viewer: "", jobs: [] });

function fmt(x) {
  return typeof x === "number" ? x.toFixed(2) : "–";
}

function pair(before, after) {
  return before === undefined && after === undefined ? "–" : `${fmt(before)} → ${fmt(after)}`;
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function render(data) {
  const body = $("jobs").tBodies[0];
  body.replaceChildren();
  for (const j of data.jobs) {
    const row = body.insertRow();
    row.dataset.job = `${j.namespace}/${j.name}`;
    cell(row, `${j.namespace}/${j.name}`);
    cell(row, j.phase, `phase ${j.phase}`);
    cell(row, `${j.readyWorkers}/${j.desiredWorkers}`);
    cell(row, `${j.gpus} (${j.desiredWorkers} × ${j.gpusPerWorker})`);
    cell(row, pair(j.imbalance.measuredBefore, j.imbalance.measuredAfter));
    cell(row, pair(j.imbalance.predictedBefore, j.imbalance.predictedAfter));
    cell(row, j.planVersion || "–");
    cell(row, j.worldGeneration ? String(j.worldGeneration) : "–");
    cell(row, String(j.restarts));
    cell(row, j.waiting || "", "waiting");
    cell(row, j.open, "open").title = "run this, then open the address it prints";
  }
  $("job-count").textContent = `${data.jobs.length} job${data.jobs.length === 1 ? "" : "s"}`;
  $("empty").hidden = data.jobs.length > 0;
  stats.jobs = data.jobs.map((j) => `${j.namespace}/${j.name}`);
  stats.renders++;
}

function showMessage(text, isError) {
  $("auth-message").hidden = !text;
  $("auth-message").textContent = text || "";
  $("auth-message").className = isError ? "message error" : "message";
}

function signedOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  $("page").hidden = true;
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("viewer").textContent = "";
  showMessage(message, Boolean(message));
}

let timer = 0;

async function poll() {
  clearTimeout(timer);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) { signedOut(""); return; }
  let response;
  try {
    response = await fetch("api/jobs", { headers: { Authorization: `Bearer ${token}` }, cache: "no-store" });
  } catch (e) {
    showMessage(`cannot reach the operator (${e.message}); retrying`, true);
    timer = setTimeout(poll, POLL_MS);
    return;
  }
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) { signedOut(body.error || "sign in again"); return; }
  if (response.status !== 200) {
    showMessage(body.error || `the operator answered ${response.status}`, true);
    timer = setTimeout(poll, POLL_MS);
    return;
  }
  stats.viewer = response.headers.get("Ballast-Viewer") || "";
  $("viewer").textContent = `signed in as ${stats.viewer}`;
  $("sign-out").hidden = false;
  $("sign-in").hidden = true;
  $("page").hidden = false;
  showMessage("", false);
  render(body);
  timer = setTimeout(poll, POLL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("token").value.trim();
    if (!token) { showMessage("paste a token first", true); return; }
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token").value = "";
    poll();
  });
  $("sign-out").addEventListener("click", () => signedOut("signed out"));
  poll();
});
