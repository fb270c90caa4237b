// Ballast job page (docs/dashboard.md): polls api/job with the person's own Kubernetes token (session.js) and draws on
// canvases.
// No libraries: a heatmap is an ImageData of layers x experts, the charts are a few lines each.
"use strict";

const POLL_MS = 2000;
const $ = (id) => document.getElementById(id);
// window.ballastDashboard: render count and timings, read by the browser tests and handy in the console
const stats = (window.ballastDashboard = { renders: 0, lastRenderMillis: 0, firstRenderedAt: 0, viewer: "" });

// viridis, sampled at five stops and interpolated into a 256-entry lookup table
const LUT = (() => {
  const stops = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const lut = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (stops.length - 1), k = Math.min(Math.floor(x), stops.length - 2), f = x - k;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = stops[k][c] + (stops[k + 1][c] - stops[k][c]) * f;
  }
  return lut;
})();

function colourIndex(value, max) {
  return max > 0 ? Math.min(255, Math.round(Math.sqrt(value / max) * 255)) : 0;
}

function fmt(x, digits = 3) {
  return x === null || x === undefined || Number.isNaN(x) ? "–" : Number(x).toFixed(digits);
}

function drawHeatmap(h) {
  const canvas = $("heatmap");
  if (!h.values) { canvas.width = 1; canvas.height = 1; return; }
  if (canvas.width !== h.experts || canvas.height !== h.layers) { canvas.width = h.experts; canvas.height = h.layers; }
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(h.experts, h.layers);
  for (let i = 0; i < h.values.length; i++) {
    const c = colourIndex(h.values[i], h.max) * 3;
    img.data[i * 4] = LUT[c]; img.data[i * 4 + 1] = LUT[c + 1]; img.data[i * 4 + 2] = LUT[c + 2]; img.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  $("heatmap-max").textContent = h.max.toLocaleString();
  $("heatmap-layers").textContent = `0–${h.layers - 1}`;
  $("heatmap-experts").textContent = `0–${h.experts - 1}`;
}

function drawLegend() {
  const ctx = $("heatmap-legend").getContext("2d"), img = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) img.data.set([LUT[i * 3], LUT[i * 3 + 1], LUT[i * 3 + 2], 255], i * 4);
  ctx.putImageData(img, 0, 0);
}

/** A canvas sized to its CSS box (sharp on high-density screens), cleared, with its 2D context and size. */
function surface(id) {
  const canvas = $(id), ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * ratio)) { canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio); }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "#8b98a5";
  return { ctx, w, h };
}

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function drawGpus(gpus, gpusPerWorker) {
  const { ctx, w, h } = surface("gpu-chart");
  if (!gpus.before) { ctx.fillText("no step measured yet", 8, 16); return; }
  const n = gpus.before.length, max = Math.max(1, ...gpus.before, ...gpus.after);
  const left = 44, bottom = h - 18, slot = (w - left) / n, bar = Math.max(1, slot * 0.4);
  ctx.fillText(max.toLocaleString(), 2, 10);
  ctx.fillText("0", 2, bottom);
  const mean = gpus.after.reduce((a, b) => a + b, 0) / n;
  [[gpus.before, css("--before"), 0], [gpus.after, css("--after"), bar]].forEach(([values, colour, dx]) => {
    ctx.fillStyle = colour;
    values.forEach((v, g) => {
      const y = bottom - (v / max) * (bottom - 12);
      ctx.fillRect(left + g * slot + dx, y, bar, bottom - y);
    });
  });
  ctx.strokeStyle = "#e6edf3"; ctx.setLineDash([4, 4]);
  const my = bottom - (mean / max) * (bottom - 12);
  ctx.beginPath(); ctx.moveTo(left, my); ctx.lineTo(w, my); ctx.stroke(); ctx.setLineDash([]);
  ctx.fillStyle = "#8b98a5";
  const every = Math.max(1, Math.ceil(n / 16));
  for (let g = 0; g < n; g += every) ctx.fillText(gpusPerWorker ? `r${Math.floor(g / gpusPerWorker)}.${g % gpusPerWorker}` : `${g}`, left + g * slot, h - 4);
}

function drawHistory(points) {
  const { ctx, w, h } = surface("history-chart");
  if (points.length < 2) { ctx.fillText("collecting…", 8, 16); return; }
  const left = 36, bottom = h - 18, t0 = points[0].t, t1 = points[points.length - 1].t;
  const values = points.flatMap((p) => [p.measuredBefore, p.measuredAfter, p.predictedAfter]).filter((v) => v > 0);
  const lo = Math.min(1, ...values), hi = Math.max(lo + 0.01, ...values);
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (w - left - 4);
  const y = (v) => bottom - ((v - lo) / (hi - lo)) * (bottom - 8);
  ctx.fillText(fmt(hi, 2), 2, 10); ctx.fillText(fmt(lo, 2), 2, bottom);
  let lastPlan = points[0].plan;
  ctx.strokeStyle = "#263040";
  points.forEach((p) => {
    if (p.plan !== lastPlan && p.plan) {
      ctx.beginPath(); ctx.moveTo(x(p.t), 4); ctx.lineTo(x(p.t), bottom); ctx.stroke();
      ctx.fillText(p.plan, x(p.t) + 2, h - 4);
      lastPlan = p.plan;
    }
  });
  [["measuredBefore", css("--before"), []], ["measuredAfter", css("--after"), []], ["predictedAfter", css("--predicted"), [5, 4]]]
    .forEach(([key, colour, dash]) => {
      ctx.strokeStyle = colour; ctx.lineWidth = 2; ctx.setLineDash(dash); ctx.beginPath();
      let started = false;
      points.forEach((p) => {
        if (!(p[key] > 0)) return;
        if (started) ctx.lineTo(x(p.t), y(p[key])); else { ctx.moveTo(x(p.t), y(p[key])); started = true; }
      });
      ctx.stroke();
    });
  ctx.setLineDash([]); ctx.lineWidth = 1;
}

function drawWorld(world) {
  const body = $("world").tBodies[0];
  body.replaceChildren(...(world.workers || []).map((n) => {
    const row = document.createElement("tr");
    [n.index, n.nodeRank, n.pod, n.node, n.domain || "–", n.rack || "–"].forEach((v) => {
      const cell = document.createElement("td"); cell.textContent = v; row.appendChild(cell);
    });
    return row;
  }));
}

let latest = null;

function render(data) {
  const started = performance.now();
  latest = data;
  const world = data.world || {};
  $("job-title").textContent = `${data.namespace}/${data.job}`;
  document.title = `Ballast · ${data.job}`;
  $("world-generation").textContent = world.generation ?? "–";
  $("gpus").textContent = world.gpus ?? "–";
  $("sidecars").textContent = data.sidecars;
  $("plan-version").textContent = data.plan.version || "none yet";
  $("imbalance-before").textContent = fmt(data.plan.imbalanceBefore);
  $("imbalance-after").textContent = fmt(data.plan.imbalanceAfter);
  $("speedup").textContent = data.plan.predictedSpeedup ? `${fmt(data.plan.predictedSpeedup, 2)}×` : "–";
  $("newest-plan").textContent = data.newestPlan || "none";
  $("plans-published").textContent = data.plansPublished;
  $("heatmap-step").textContent = data.heatmap.step;
  $("config-error").hidden = !data.configError;
  $("config-error").textContent = data.configError || "";
  $("page").hidden = false;
  drawHeatmap(data.heatmap);
  drawGpus(data.gpus, world.gpusPerWorker);
  drawHistory(data.history);
  drawWorld(world);
  stats.renders++;
  stats.lastRenderMillis = performance.now() - started;
  if (!stats.firstRenderedAt) stats.firstRenderedAt = performance.now();
}

function heatmapTip(event) {
  const tip = $("heatmap-tip"), h = latest && latest.heatmap;
  if (!h || !h.values) { tip.hidden = true; return; }
  const box = event.target.getBoundingClientRect();
  const expert = Math.floor(((event.clientX - box.left) / box.width) * h.experts);
  const layer = Math.floor(((event.clientY - box.top) / box.height) * h.layers);
  if (expert < 0 || layer < 0 || expert >= h.experts || layer >= h.layers) { tip.hidden = true; return; }
  tip.textContent = `layer ${layer} · expert ${expert}: ${h.values[layer * h.experts + expert].toLocaleString()} tokens`;
  tip.style.left = `${event.clientX - box.left + 12}px`;
  tip.style.top = `${event.clientY - box.top + 12}px`;
  tip.hidden = false;
}

ballastSession({ path: "api/job", pollMs: POLL_MS, server: "balancer", stats, render });

document.addEventListener("DOMContentLoaded", () => {
  drawLegend();
  $("heatmap").addEventListener("mousemove", heatmapTip);
  $("heatmap").addEventListener("mouseleave", () => { $("heatmap-tip").hidden = true; });
});
