// Ballast index of jobs (docs/dashboard.md): polls api/jobs with the person's own Kubernetes token (session.js) and
// redraws the table in place.
"use strict";

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
  $("page").hidden = false;
  stats.jobs = data.jobs.map((j) => `${j.namespace}/${j.name}`);
  stats.renders++;
}

ballastSession({ path: "api/jobs", pollMs: POLL_MS, server: "operator", stats, render });
