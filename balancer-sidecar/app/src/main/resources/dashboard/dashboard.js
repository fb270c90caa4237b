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
  if (!gpus.before) { ctx.fillText("no step measured yet", 8, 16); stats.gpuChart = null; return; }
  const n = gpus.before.length, max = Math.max(1, ...gpus.before, ...gpus.after);
  stats.gpuChart = { bars: n, max };
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
  stats.historyChart = drawLines("history-chart", points, [["measuredBefore", css("--before"), []], ["measuredAfter", css("--after"), []],
    ["predictedAfter", css("--predicted"), [5, 4]]], { floor: 1, label: (v) => fmt(v, 2) });
  const last = points[points.length - 1];
  $("measured-now").textContent = last && last.measuredBefore > 0
    ? `${fmt(last.measuredBefore, 2)} static → ${last.measuredAfter > 0 ? fmt(last.measuredAfter, 2) : "–"} plan` : "–";
}

/** Lines over time of the keys given, each [key, colour, dash]; values <= 0 or missing leave a gap. */
function drawLines(id, points, series, { floor, label }) {
  const { ctx, w, h } = surface(id);
  const values = points.flatMap((p) => series.map(([key]) => p[key])).filter((v) => v > 0);
  if (points.length < 2 || values.length === 0) { ctx.fillText("collecting…", 8, 16); return null; }
  const left = 44, bottom = h - 18, t0 = points[0].t, t1 = points[points.length - 1].t;
  const lo = Math.min(floor, ...values), hi = Math.max(lo + 0.01, ...values) * (floor === 0 ? 1.1 : 1);
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (w - left - 4);
  const y = (v) => bottom - ((v - lo) / (hi - lo)) * (bottom - 8);
  ctx.fillText(label(hi), 2, 10); ctx.fillText(label(lo), 2, bottom);
  let lastPlan = points[0].plan;
  ctx.strokeStyle = "#263040";
  points.forEach((p) => {
    if (p.plan !== lastPlan && p.plan) {
      ctx.beginPath(); ctx.moveTo(x(p.t), 4); ctx.lineTo(x(p.t), bottom); ctx.stroke();
      ctx.fillText(p.plan, x(p.t) + 2, h - 4);
      lastPlan = p.plan;
    }
  });
  series.forEach(([key, colour, dash]) => {
    ctx.strokeStyle = colour; ctx.lineWidth = 2; ctx.setLineDash(dash); ctx.beginPath();
    let started = false;
    points.forEach((p) => {
      if (!(p[key] > 0)) { started = false; return; }
      if (started) ctx.lineTo(x(p.t), y(p[key])); else { ctx.moveTo(x(p.t), y(p[key])); started = true; }
    });
    ctx.stroke();
  });
  ctx.setLineDash([]); ctx.lineWidth = 1;
  return { lo, hi };
}

function drawSteps(points) {
  const ms = (s) => `${Math.round(s * 1000)} ms`;
  stats.stepChart = drawLines("step-chart", points, [["stepBefore", css("--before"), []], ["stepAfter", css("--after"), []],
    ["computeBefore", css("--before"), [5, 4]], ["computeAfter", css("--after"), [5, 4]]], { floor: 0, label: ms });
  const last = points[points.length - 1] || {};
  const [step, compute] = last.stepAfter > 0 ? [last.stepAfter, last.computeAfter] : [last.stepBefore, last.computeBefore];
  $("step-now").textContent = step > 0 ? `${ms(step)} step · ${compute > 0 ? ms(compute) : "–"} compute`
    + (last.stepAfter > 0 ? " (plans)" : " (static)") : "–";
}

let chosenLayer = -1; // -1: the page picks (the layer with the most copies beyond the homes)

/** GPU g's experts for layer entry `lp` of placement `p`: { home:[...], extra:[...] }, or null off the layer's stage. */
function gpuExperts(p, lp, g, experts) {
  const perStage = p.dp * p.ep, i = g - lp.stage * perStage;
  if (i < 0 || i >= perStage) return null;
  const c = Math.floor(i / p.ep), local = i % p.ep;
  const missing = new Set(lp.missing ? lp.missing[i] : []);
  const held = [];
  for (let e = p.homeFirst[local]; e < p.homeFirst[local + 1]; e++) if (!missing.has(e)) held.push(e);
  held.push(...(lp.extra ? lp.extra[i] : []));
  const isHome = lp.masters ? (e) => lp.masters[c * experts + e] === local
    : (e) => e >= p.homeFirst[local] && e < p.homeFirst[local + 1];
  return { home: held.filter(isHome).sort((a, b) => a - b), extra: held.filter((e) => !isHome(e)).sort((a, b) => a - b) };
}

function drawPlacement(data) {
  const p = data.placement || {}, world = data.world || {}, h = data.heatmap, box = $("topology");
  const fssdp = world.mode === "fssdp";
  $("home-label").textContent = fssdp ? "its static block" : "home (weights of record)";
  $("extra-label").textContent = fssdp ? "materialized beyond its block" : "replica";
  $("placement-plan").textContent = p.plan === undefined ? "–" : p.plan || "static layout";
  const note = !p.ep ? "no world to place experts on yet"
    : !p.layers ? `every rank runs plan ${p.plan}, which this balancer does not hold (it restarted since); the next plan shows here` : "";
  $("placement-note").hidden = !note; $("placement-note").textContent = note;
  if (!p.layers || !world.workers) { box.replaceChildren(); $("placement-summary").textContent = ""; stats.placement = null; return; }
  const layers = p.layers.length, select = $("layer");
  if (select.options.length !== layers) {
    select.replaceChildren(...p.layers.map((_, l) => new Option(`${l}`, `${l}`)));
  }
  let layer = chosenLayer;
  if (layer < 0 || layer >= layers) { // the layer with the most extra copies
    layer = 0;
    let most = -1;
    p.layers.forEach((lp, l) => {
      const n = (lp.extra || []).reduce((a, list) => a + list.length, 0);
      if (n > most) { most = n; layer = l; }
    });
  }
  select.value = `${layer}`;
  const lp = p.layers[layer], experts = p.homeFirst[p.ep], gpw = world.gpusPerWorker;
  const load = h.values ? h.values.slice(layer * h.experts, (layer + 1) * h.experts) : new Array(experts).fill(0);
  const rowMax = Math.max(1, ...load);
  const hot = new Set(h.values ? [...load.keys()].filter((e) => load[e] > 0)
    .sort((a, b) => load[b] - load[a] || a - b).slice(0, 8) : []); // none before the first step
  const where = new Map(); // expert -> GPU names holding it
  const gpus = [];
  for (let g = 0; g < world.gpus; g++) {
    const held = gpuExperts(p, lp, g, experts);
    const name = `r${Math.floor(g / gpw)}.${g % gpw}`;
    gpus.push({ g, name, held });
    if (held) [...held.home, ...held.extra].forEach((e) => { if (!where.has(e)) where.set(e, []); where.get(e).push(name); });
  }
  const chip = (e, extra) => {
    const el = document.createElement("i"), c = colourIndex(load[e] || 0, rowMax) * 3;
    el.className = `chip${extra ? " extra" : ""}${hot.has(e) ? " hot" : ""}`;
    el.style.background = `rgb(${LUT[c]},${LUT[c + 1]},${LUT[c + 2]})`;
    el.title = `expert ${e} · ${(load[e] || 0).toLocaleString()} tokens/step · on ${(where.get(e) || []).join(", ")}`;
    el.dataset.expert = e;
    return el;
  };
  const tag = (html) => { const t = document.createElement("div"); t.className = "tag"; t.textContent = html; return t; };
  const racks = new Map(); // rack -> domain -> [worker]
  [...world.workers].sort((a, b) => a.nodeRank - b.nodeRank).forEach((n) => {
    const rack = n.rack || "", domain = n.domain || n.node;
    if (!racks.has(rack)) racks.set(rack, new Map());
    if (!racks.get(rack).has(domain)) racks.get(rack).set(domain, []);
    racks.get(rack).get(domain).push(n);
  });
  let extras = 0;
  const rackEls = [...racks].map(([rack, domains]) => {
    const r = document.createElement("div"); r.className = "rack";
    r.appendChild(tag(rack ? `rack ${rack}` : "rack not labelled"));
    domains.forEach((nodes, domain) => {
      const d = document.createElement("div"); d.className = "domain";
      const t = tag(""); const b = document.createElement("b"); b.textContent = `NVLink domain ${domain}`;
      const byNode = new Map(); // two pods may share a node
      nodes.forEach((n) => byNode.set(n.node, [...(byNode.get(n.node) || []), n.nodeRank]));
      t.append(b, ` · ${[...byNode].map(([node, ranks]) => `node ${node} (rank${ranks.length > 1 ? "s" : ""} ${ranks.join(", ")})`).join(" · ")}`);
      d.appendChild(t);
      nodes.forEach((n) => {
        for (let local = 0; local < gpw; local++) {
          const { name, held } = gpus[n.nodeRank * gpw + local];
          const row = document.createElement("div"); row.className = held ? "gpu" : "gpu idle";
          const label = document.createElement("span"); label.className = "name"; label.textContent = name;
          const chips = document.createElement("span"); chips.className = "chips";
          const count = document.createElement("span"); count.className = "count";
          if (held) {
            held.home.forEach((e) => chips.appendChild(chip(e, false)));
            if (held.extra.length) {
              const sep = document.createElement("i"); sep.className = "sep"; chips.appendChild(sep);
              held.extra.forEach((e) => chips.appendChild(chip(e, true)));
            }
            extras += held.extra.length;
            count.textContent = `${held.home.length} ${fssdp ? "block" : "home"} + ${held.extra.length}`;
          } else {
            chips.textContent = "runs other layers (another pipeline stage)";
          }
          row.append(label, chips, count);
          d.appendChild(row);
        }
      });
      r.appendChild(d);
    });
    return r;
  });
  box.replaceChildren(...rackEls);
  const hottest = [...hot][0];
  $("placement-summary").textContent = `layer ${layer}: ${extras} ${fssdp ? "materializations beyond the blocks" : "replicas"}`
    + (hottest !== undefined ? ` · hottest expert ${hottest} on ${(where.get(hottest) || []).length} GPU(s)` : "");
  stats.placement = { layer, extras, gpus: gpus.filter((x) => x.held).length, plan: p.plan };
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
  latest = stats.latest = data;
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
  drawSteps(data.history);
  drawPlacement(data);
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
  $("heatmap").addEventListener("click", (event) => { // a row's layer in the placement view
    const h = latest && latest.heatmap, box = event.target.getBoundingClientRect();
    if (!h || !h.values) return;
    chosenLayer = Math.min(h.layers - 1, Math.max(0, Math.floor(((event.clientY - box.top) / box.height) * h.layers)));
    drawPlacement(latest);
  });
  $("layer").addEventListener("change", (event) => { chosenLayer = Number(event.target.value); drawPlacement(latest); });
});
