/* openspore insight: the dashboard's single-page front end (no build step; echarts, cytoscape + dagre). */
"use strict";
(function () {
  const API = "/v1/mindinsight";
  const state = { config: { reload_interval: 3 }, timers: [], charts: [] };
  const insight = (window.insight = { state: state });

  // ---- the debugger token: passed once in the address (#token=...), kept for this tab only ----------------
  function takeToken() {
    const m = location.hash.match(/token=([A-Za-z0-9_\-]+)/);
    if (m) {
      sessionStorage.setItem("insight-token", m[1]);
      history.replaceState(null, "", location.pathname + "#/");
    }
  }
  takeToken();
  const token = () => sessionStorage.getItem("insight-token") || "";

  // ---- small helpers ------------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c.nodeType ? c : String(c));
    return node;
  }
  async function api(path, options) {
    const opts = Object.assign({ headers: {} }, options || {});
    if (path.startsWith("/debugger")) opts.headers["X-Insight-Token"] = token();
    if (opts.body && typeof opts.body !== "string") {
      opts.body = JSON.stringify(opts.body);
      opts.headers["Content-Type"] = "application/json";
    }
    const r = await fetch(API + path, opts);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error_msg || r.statusText);
    return body;
  }
  const q = (params) => Object.entries(params).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map(
    (x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`)).join("&");
  function route() {
    const hash = location.hash.replace(/^#/, "") || "/";
    const [path, query] = hash.split("?");
    return { path, params: new URLSearchParams(query || "") };
  }
  function status(text) { document.getElementById("status").textContent = text; }
  function every(seconds, fn) { if (seconds > 0) state.timers.push(setInterval(fn, seconds * 1000)); }
  function fmt(v) {
    if (typeof v !== "number") return String(v);
    if (v === 0) return "0";
    const a = Math.abs(v);
    return a >= 1e5 || a < 1e-3 ? v.toExponential(4) : Number(v.toPrecision(7)).toString();
  }
  function short(scope) { const parts = scope.split("/"); return parts[parts.length - 1]; }

  // ---- routing ------------------------------------------------------------------------------------------
  const pages = { "/": runsPage, "/dashboard": dashboardPage, "/graph": graphPage, "/lineage": lineagePage,
                  "/debugger": debuggerPage };
  async function render() {
    takeToken();  // also when the address with the token is opened in a tab already showing the dashboard
    state.timers.forEach(clearInterval); state.timers = [];
    state.charts.forEach((c) => c.dispose()); state.charts = [];
    const { path, params } = route();
    const page = pages[path] || runsPage;
    const name = Object.keys(pages).find((k) => pages[k] === page);
    document.querySelectorAll("header nav a").forEach((a) => {
      if (a.getAttribute("href").replace("#", "").split("?")[0] === name) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
    const main = document.getElementById("main");
    main.replaceChildren(el("p", { class: "muted", text: "Loading…" }));
    try { await page(main, params); } catch (e) { main.replaceChildren(el("p", { class: "error", text: e.message })); }
  }
  window.addEventListener("hashchange", render);
  window.addEventListener("resize", () => state.charts.forEach((c) => c.resize()));

  // ---- run list -----------------------------------------------------------------------------------------
  async function runsPage(main) {
    const jobs = (await api("/datavisual/train-jobs")).train_jobs;
    const compare = el("button", { class: "primary", text: "Compare selected runs", onclick: () => {
      const ids = [...main.querySelectorAll("input[name=run]:checked")].map((c) => c.value);
      location.hash = "#/dashboard?" + q({ train_id: ids.length ? ids : jobs.map((j) => j.train_id) });
    } });
    const rows = jobs.map((j) => el("tr", {},
      el("td", {}, el("input", { type: "checkbox", name: "run", value: j.train_id, "aria-label": `select ${j.train_id}` })),
      el("td", {}, el("a", { href: "#/dashboard?" + q({ train_id: j.train_id }) }, j.train_id),
        j.damaged_records.length ? el("span", { class: "error", title: j.damaged_records.join("\n"),
          text: ` ⚠ ${j.damaged_records.length} damaged record(s) skipped` }) : null),
      el("td", { text: j.update_time }),
      el("td", { class: "num", text: j.plugins.scalar.length }),
      el("td", { class: "num", text: j.plugins.histogram.length }),
      el("td", { class: "num", text: j.plugins.image.length }),
      el("td", {}, j.plugins.graph.length ? el("a", { href: "#/graph?" + q({ train_id: j.train_id }) }, "graph") : "—")));
    main.replaceChildren(el("h1", { text: "Summary runs" }),
      el("p", { class: "muted", text: `${jobs.length} run(s) with summary files under the base directory.` }),
      el("div", { class: "toolbar" }, compare),
      el("table", { "aria-label": "runs" },
        el("thead", {}, el("tr", {}, ["", "Run", "Updated", "Scalars", "Histograms", "Images", "Graph"].map(
          (h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows)));
    every(state.config.reload_interval, async () => {
      const now = (await api("/datavisual/train-jobs")).train_jobs;
      if (now.length !== jobs.length) render();
    });
  }

  // ---- training dashboard -------------------------------------------------------------------------------
  function smooth(values, weight) {
    let last = null;
    return values.map(([x, y]) => {
      last = last === null ? y : last * weight + (1 - weight) * y;
      return [x, last];
    });
  }
  async function dashboardPage(main, params) {
    let ids = params.getAll("train_id");
    const jobs = (await api("/datavisual/train-jobs")).train_jobs;
    if (!ids.length) ids = jobs.slice(0, 1).map((j) => j.train_id);
    const chosen = jobs.filter((j) => ids.includes(j.train_id));
    if (!chosen.length) {
      main.replaceChildren(el("h1", { text: "Training dashboard" }), el("p", { text: "No run selected: pick one on the Runs page." }));
      return;
    }
    const view = { smoothing: 0, log: false };
    const smoothing = el("input", { type: "range", min: 0, max: 0.99, step: 0.01, value: 0, id: "smoothing" });
    const smoothingText = el("output", { for: "smoothing", text: "0.00" });
    const logAxis = el("input", { type: "checkbox", id: "log-axis" });
    const scalarGrid = el("div", { class: "grid", id: "scalars" });
    const histGrid = el("div", { class: "grid", id: "histograms" });
    const imageGrid = el("div", { class: "grid images", id: "images" });
    main.replaceChildren(
      el("h1", { text: `Training dashboard — ${ids.join(", ")}` }),
      el("div", { class: "toolbar", role: "group", "aria-label": "chart settings" },
        el("label", { for: "smoothing" }, "Smoothing", smoothing, smoothingText),
        el("label", { for: "log-axis" }, logAxis, "Logarithmic value axis"),
        el("span", { class: "muted", text: "Drag on a chart or use the slider under it to zoom; new steps appear while training runs." })),
      el("h2", { text: "Scalars" }), scalarGrid, el("h2", { text: "Histograms" }), histGrid,
      el("h2", { text: "Images" }), imageGrid);
    const scalarCharts = {};
    let versions = {};

    async function loadScalars() {
      const tags = [...new Set(chosen.flatMap((j) => j.plugins.scalar))].sort((a, b) =>
        (/loss/i.test(b) - /loss/i.test(a)) || a.localeCompare(b));  // losses first: what people look at
      const data = tags.length ? (await api("/datavisual/scalars?" + q({ train_id: ids, tag: tags }))).scalars : [];
      for (const tag of tags) {
        const series = data.filter((s) => s.tag === tag);
        if (!scalarCharts[tag]) scalarCharts[tag] = scalarCard(scalarGrid, tag);
        scalarCharts[tag].update(series);
      }
      if (!tags.length) scalarGrid.replaceChildren(el("p", { class: "muted", text: "No scalars recorded." }));
    }
    function scalarCard(parent, tag) {
      const name = tag.replace(/\/scalar$/, "");
      const chartDiv = el("div", { class: "chart", role: "img", "aria-label": `line chart of ${name} by step` });
      const last = el("p", { class: "last" });
      const tbody = el("tbody");
      const card = el("section", { class: "card scalar", "data-tag": name, "aria-label": `scalar ${name}` },
        el("h3", { text: name }), last, chartDiv,
        el("details", {}, el("summary", { text: "Data table" }),
          el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "Run" }), el("th", { text: "Step" }), el("th", { text: "Value" }))), tbody)));
      parent.append(card);
      const chart = echarts.init(chartDiv);
      state.charts.push(chart);
      let current = [];
      function draw() {
        const series = current.map((s) => ({
          name: s.train_id, type: "line", showSymbol: s.values.length < 60, symbolSize: 5,
          data: smooth(s.values.map((v) => [v.step, v.value]), view.smoothing),
        }));
        // with smoothing, the raw values stay visible as a faint line
        if (view.smoothing > 0) current.forEach((s) => series.push({ name: s.train_id + " (raw)", type: "line", showSymbol: false,
          lineStyle: { opacity: 0.25 }, data: s.values.map((v) => [v.step, v.value]) }));
        chart.setOption({
          animation: false, grid: { left: 64, right: 20, top: 36, bottom: 64 },
          legend: { top: 0, type: "scroll" }, tooltip: { trigger: "axis", valueFormatter: fmt },
          xAxis: { type: "value", name: "step", nameLocation: "middle", nameGap: 26, minInterval: 1 },
          yAxis: { type: view.log ? "log" : "value", name, scale: true, axisLabel: { formatter: fmt } },
          dataZoom: [{ type: "inside" }, { type: "slider", height: 16, bottom: 6 }],
          series,
        }, { replaceMerge: ["series"] });
      }
      return {
        update(series) {
          current = series;
          draw();
          const parts = series.map((s) => {
            const v = s.values[s.values.length - 1];
            return v ? `${s.train_id}: step ${v.step}, value ${fmt(v.value)} (${s.values.length} points)` : `${s.train_id}: no points`;
          });
          last.textContent = "Last: " + parts.join("; ");
          tbody.replaceChildren(...series.flatMap((s) => s.values.map((v) => el("tr", {},
            el("td", { text: s.train_id }), el("td", { class: "num", text: v.step }), el("td", { class: "num", text: String(v.value) })))));
        },
        redraw: draw,
        chart,
      };
    }
    async function loadHistograms() {
      const job = chosen[0];
      const tags = job.plugins.histogram;
      histGrid.replaceChildren();
      if (!tags.length) histGrid.append(el("p", { class: "muted", text: "No histograms recorded." }));
      for (const tag of tags) {
        const name = tag.replace(/\/histogram$/, "");
        const h = await api("/datavisual/histograms?" + q({ train_id: job.train_id, tag }));
        const div = el("div", { class: "chart", role: "img", "aria-label": `histogram of ${name} over steps` });
        histGrid.append(el("section", { class: "card" }, el("h3", { text: `${name} (${job.train_id})` }), div));
        const chart = echarts.init(div);
        state.charts.push(chart);
        const steps = h.histograms.map((x) => x.step);
        chart.setOption({
          animation: false, grid: { left: 56, right: 64, top: 20, bottom: 40 },
          tooltip: { trigger: "item", formatter: (p) => `step ${p.seriesName}<br>[${fmt(p.value[0])}, ${fmt(p.value[0] + p.value[2])}): ${p.value[1]}` },
          xAxis: { type: "value", name: "value", nameLocation: "middle", nameGap: 24, scale: true, axisLabel: { formatter: fmt } },
          yAxis: { type: "value", name: "count" },
          visualMap: { type: "continuous", min: Math.min(...steps), max: Math.max(...steps), dimension: 3, right: 0, top: "middle",
            text: ["late step", "early"], calculable: false, inRange: { color: ["#c7d2fe", "#1e3a8a"] }, itemHeight: 120 },
          series: h.histograms.map((x) => ({ name: String(x.step), type: "line", showSymbol: false, smooth: false,
            data: x.buckets.map((b) => [b[0] + b[1] / 2, b[2], b[1], x.step]) })),
        });
      }
    }
    async function loadImages() {
      const job = chosen[0];
      imageGrid.replaceChildren();
      if (!job.plugins.image.length) imageGrid.append(el("p", { class: "muted", text: "No images recorded." }));
      for (const tag of job.plugins.image) {
        const name = tag.replace(/\/image$/, "");
        const meta = (await api("/datavisual/image/metadata?" + q({ train_id: job.train_id, tag }))).metadatas;
        if (!meta.length) continue;
        const img = el("img", { alt: `${name}, step ${meta[meta.length - 1].step}` });
        const caption = el("p", { class: "last" });
        const slider = el("input", { type: "range", min: 0, max: meta.length - 1, value: meta.length - 1, "aria-label": `step of ${name}` });
        const show = () => {
          const m = meta[Number(slider.value)];
          img.src = `${API}/datavisual/image/single-image?` + q({ train_id: job.train_id, tag, step: m.step });
          img.alt = `${name}, step ${m.step}`;
          caption.textContent = `step ${m.step} — ${m.width}×${m.height} px`;
        };
        slider.addEventListener("input", show);
        show();
        imageGrid.append(el("section", { class: "card" }, el("h3", { text: name }), img, caption, slider));
      }
    }
    smoothing.addEventListener("input", () => {
      view.smoothing = Number(smoothing.value);
      smoothingText.textContent = view.smoothing.toFixed(2);
      Object.values(scalarCharts).forEach((c) => c.redraw());
    });
    logAxis.addEventListener("change", () => { view.log = logAxis.checked; Object.values(scalarCharts).forEach((c) => c.redraw()); });
    await loadScalars();
    await loadHistograms();
    await loadImages();
    versions = Object.fromEntries(chosen.map((j) => [j.train_id, j.version]));
    insight.dashboard = { scalarCharts };
    every(state.config.reload_interval, async () => {
      const now = (await api("/datavisual/train-jobs")).train_jobs.filter((j) => ids.includes(j.train_id));
      const changed = now.some((j) => versions[j.train_id] !== j.version);
      if (!changed) return;
      chosen.splice(0, chosen.length, ...now);
      versions = Object.fromEntries(now.map((j) => [j.train_id, j.version]));
      await loadScalars();
      status(`updated ${new Date().toLocaleTimeString()}`);
    });
  }

  // ---- graph view ---------------------------------------------------------------------------------------
  function scopesOf(node) {
    const parts = node.scope ? node.scope.split("/") : [];
    return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  }
  async function graphPage(main, params) {
    const jobs = (await api("/datavisual/train-jobs")).train_jobs.filter((j) => j.plugins.graph.length);
    const trainId = params.get("train_id") || (jobs[0] && jobs[0].train_id);
    if (!trainId) { main.replaceChildren(el("h1", { text: "Graph" }), el("p", { text: "No run has a graph." })); return; }
    const graph = await api("/datavisual/graphs/nodes/all?" + q({ train_id: trainId }));
    const byName = Object.fromEntries(graph.nodes.map((n) => [n.name, n]));
    const allScopes = new Set(graph.nodes.flatMap(scopesOf));
    const expanded = new Set();
    // open scopes breadth-first while the picture stays readable
    const depthOf = (s) => s.split("/").length;
    for (const s of [...allScopes].sort((a, b) => depthOf(a) - depthOf(b))) {
      expanded.add(s);
      if (visibleCount() > 40) { expanded.delete(s); }
    }
    function visibleOf(node) {
      for (const s of scopesOf(node)) if (!expanded.has(s)) return s;
      return node.name;
    }
    function visibleCount() { return new Set(graph.nodes.map(visibleOf)).size; }

    const search = el("input", { type: "text", id: "graph-search", placeholder: "search node name or type", "aria-label": "search nodes" });
    const results = el("ul", { class: "results", "aria-label": "search results" });
    const tree = el("nav", { class: "tree", "aria-label": "graph scopes" });
    const details = el("section", { class: "card", id: "node-details", "aria-live": "polite" },
      el("p", { class: "muted", text: "Select a node to see its attributes, shapes and code stack." }));
    const cyDiv = el("div", { id: "cy", role: "img", "aria-label": `computational graph of ${trainId}` });
    main.replaceChildren(
      el("h1", { text: `Graph — ${trainId} (${graph.nodes.length} operators)` }),
      el("div", { class: "toolbar" },
        el("label", { for: "graph-run" }, "Run", el("select", { id: "graph-run", onchange: (e) => { location.hash = "#/graph?" + q({ train_id: e.target.value }); } },
          jobs.map((j) => el("option", { value: j.train_id, selected: j.train_id === trainId }, j.train_id)))),
        el("button", { text: "Expand all", onclick: () => { allScopes.forEach((s) => expanded.add(s)); draw(); } }),
        el("button", { text: "Collapse all", onclick: () => { expanded.clear(); draw(); } }),
        el("span", { class: "muted", text: "Click a scope box (or its name in the tree) to open or close it." })),
      el("div", { class: "graph-layout" },
        el("div", {}, el("label", { for: "graph-search" }, "Search"), search, results, el("h2", { text: "Scopes" }), tree),
        cyDiv, details));

    if (window.cytoscapeDagre && !cytoscape.__dagre) { cytoscape.use(window.cytoscapeDagre); cytoscape.__dagre = true; }
    const cy = cytoscape({
      container: cyDiv, minZoom: 0.05,
      style: [
        { selector: "node", style: { label: "data(label)", "font-size": 11, "text-valign": "center", "text-halign": "center",
          "background-color": "#e0e7ff", "border-color": "#6366f1", "border-width": 1, shape: "round-rectangle",
          width: (e) => 7 * String(e.data("label") || "").length + 14, height: 22 } },
        { selector: "node.scope", style: { "background-color": "#fef9c3", "border-color": "#ca8a04", "font-weight": "bold" } },
        { selector: "node.param", style: { "background-color": "#f1f5f9", "border-color": "#94a3b8", shape: "ellipse", "font-size": 9 } },
        { selector: ":parent", style: { "background-opacity": 0.06, "background-color": "#2563eb", "border-color": "#93c5fd",
          "text-valign": "top", "text-halign": "center", "font-size": 10, color: "#1e40af", padding: "14px" } },
        { selector: "node:selected", style: { "border-width": 3, "border-color": "#dc2626" } },
        { selector: "edge", style: { width: 1.2, "curve-style": "bezier", "target-arrow-shape": "triangle",
          "line-color": "#94a3b8", "target-arrow-color": "#94a3b8", "arrow-scale": 0.8 } },
      ],
    });
    insight.graph = { cy, expanded, graph, select: selectNode };

    function draw() {
      const elements = [];
      const shown = new Set();
      const parentOf = (scope) => {
        const parts = scope.split("/");
        return parts.length > 1 ? parts.slice(0, -1).join("/") : null;
      };
      for (const n of graph.nodes) {
        const v = visibleOf(n);
        if (shown.has(v)) continue;
        shown.add(v);
        if (v === n.name) {
          elements.push({ data: { id: v, label: n.op_type, parent: n.scope && expanded.has(n.scope) ? n.scope : undefined } });
        } else {
          const count = graph.nodes.filter((m) => scopesOf(m).includes(v)).length;
          const p = parentOf(v);
          elements.push({ data: { id: v, label: `${short(v)} (${count})`, parent: p && expanded.has(p) ? p : undefined }, classes: "scope" });
        }
      }
      for (const s of expanded) {
        if (!allScopes.has(s)) continue;
        // an expanded scope appears as a box only when all its ancestors are expanded too
        if (scopesOf({ scope: s }).every((a) => expanded.has(a))) {
          const p = parentOf(s);
          elements.push({ data: { id: s, label: short(s), parent: p && expanded.has(p) ? p : undefined } });
        }
      }
      const edges = new Set();
      for (const n of graph.nodes) {
        const t = visibleOf(n);
        for (const i of n.inputs) {
          if (!byName[i]) continue;
          const s = visibleOf(byName[i]);
          if (s !== t && !edges.has(s + "→" + t)) { edges.add(s + "→" + t); elements.push({ data: { id: "e" + edges.size, source: s, target: t } }); }
        }
      }
      cy.elements().remove();
      cy.add(elements);
      cy.layout({ name: window.cytoscapeDagre ? "dagre" : "breadthfirst", rankDir: "TB", nodeSep: 14, rankSep: 26, fit: true, padding: 12 }).run();
      drawTree();
    }
    function toggle(scope) {
      if (expanded.has(scope)) [...expanded].filter((s) => s === scope || s.startsWith(scope + "/")).forEach((s) => expanded.delete(s));
      else scopesOf({ scope }).forEach((s) => expanded.add(s));
      draw();
    }
    cy.on("tap", "node", (evt) => {
      const id = evt.target.id();
      if (byName[id]) selectNode(id);
      else toggle(id);
    });
    function drawTree() {
      const root = {};
      for (const n of graph.nodes) {
        let cur = root;
        for (const part of (n.scope ? n.scope.split("/") : [])) cur = (cur[part] = cur[part] || {});
        (cur.__ops = cur.__ops || []).push(n);
      }
      const build = (node, prefix) => el("ul", {}, Object.keys(node).filter((k) => k !== "__ops").map((k) => {
        const scope = prefix ? `${prefix}/${k}` : k;
        const open = expanded.has(scope);
        return el("li", { "data-scope": scope },
          el("button", { class: "scope", "aria-expanded": String(open), onclick: () => toggle(scope) }, `${open ? "▾" : "▸"} ${k}`),
          open ? build(node[k], scope) : null);
      }), (node.__ops || []).map((n) => el("li", { "data-node": n.name },
        el("button", { class: "op", "aria-pressed": "false", onclick: () => selectNode(n.name) }, `${n.op_type} ${short(n.name)}`))));
      tree.replaceChildren(build(root, ""));
    }
    function selectNode(name) {
      const n = byName[name];
      if (!n) return;
      scopesOf(n).forEach((s) => expanded.add(s));
      draw();
      cy.$(":selected").unselect();
      const target = cy.getElementById(name);
      target.select();
      cy.animate({ center: { eles: target }, zoom: Math.max(cy.zoom(), 0.9) }, { duration: 150 });
      tree.querySelectorAll("button.op").forEach((b) => b.setAttribute("aria-pressed", String(b.parentElement.dataset.node === name)));
      details.replaceChildren(el("h2", { text: n.op_type }),
        el("dl", { class: "kv" },
          el("dt", { text: "Name" }), el("dd", { text: n.name }),
          el("dt", { text: "Scope" }), el("dd", { text: n.scope }),
          el("dt", { text: "Output" }), el("dd", { text: n.output || "—" }),
          el("dt", { text: "Inputs" }), el("dd", {}, n.inputs.length ? el("ul", {}, n.inputs.map((i) => el("li", {},
            byName[i] ? el("button", { class: "op", onclick: () => selectNode(i) }, `${byName[i].op_type} ${short(i)}`) : i))) : "—"),
          el("dt", { text: "Attributes" }), el("dd", {}, Object.keys(n.attrs).length ? el("table", {}, el("tbody", {},
            Object.entries(n.attrs).map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: k }), el("td", { text: v }))))) : "—"),
          el("dt", { text: "Code stack" }), el("dd", {}, el("div", { class: "stack", id: "code-stack", text: n.stack.length ? n.stack.join("\n") : "(no user code recorded)" }))));
    }
    search.addEventListener("input", () => {
      const term = search.value.trim().toLowerCase();
      const hits = term ? graph.nodes.filter((n) => n.name.toLowerCase().includes(term) || n.op_type.toLowerCase() === term).slice(0, 50) : [];
      results.replaceChildren(...hits.map((n) => el("li", {}, el("button", { class: "op", onclick: () => selectNode(n.name) }, `${n.op_type} — ${n.name}`))));
    });
    draw();
  }

  // ---- lineage (run comparison) -------------------------------------------------------------------------
  async function lineagePage(main) {
    const lineage = await api("/lineagemgr/lineages", { method: "POST", body: {} });
    const rows = lineage.object;
    const userKeys = [...new Set(rows.flatMap((r) => Object.keys(r.user_defined)))].sort();
    const cols = [["Run", (r) => r.summary_dir], ["Network", (r) => r.model_lineage.network], ["Optimizer", (r) => r.model_lineage.optimizer],
      ["Learning rate", (r) => r.model_lineage.learning_rate], ["Batch size", (r) => r.model_lineage.batch_size],
      ["Epochs", (r) => r.model_lineage.epoch], ["Train samples", (r) => r.model_lineage.train_dataset_count],
      ["Loss function", (r) => r.model_lineage.loss_function], ["Final loss", (r) => r.model_lineage.loss],
      ["Eval metrics", (r) => r.model_lineage.metric ? Object.entries(r.model_lineage.metric).map(([k, v]) => `${k} ${fmt(v)}`).join(", ") : undefined],
      ...userKeys.map((k) => [k, (r) => r.user_defined[k]])];
    const table = el("table", { "aria-label": "run comparison" },
      el("thead", {}, el("tr", {}, cols.map(([h]) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", {}, cols.map(([, f]) => {
        const v = f(r);
        return el("td", { class: typeof v === "number" ? "num" : "", text: v === undefined || v === null || v === "" ? "—" : fmt(v) });
      })))));
    const chartDiv = el("div", { class: "chart", style: "height:340px", role: "img", "aria-label": "parallel coordinates of hyperparameters and final loss" });
    main.replaceChildren(el("h1", { text: "Compare runs (lineage)" }),
      el("p", { class: "muted", text: "Hyperparameters and results each run's SummaryCollector recorded." }),
      el("section", { class: "card" }, chartDiv), el("h2", { text: "Table" }), table);
    const numeric = cols.slice(1).filter(([, f]) => rows.some((r) => typeof f(r) === "number"));
    if (rows.length && numeric.length) {
      const chart = echarts.init(chartDiv);
      state.charts.push(chart);
      chart.setOption({
        animation: false,
        parallelAxis: numeric.map(([h], i) => ({ dim: i, name: h, nameLocation: "start" })),
        parallel: { left: 60, right: 80, top: 40, bottom: 40 },
        tooltip: {},
        // one line per run that recorded every plotted value (runs without lineage are in the table only)
        series: [{ type: "parallel", lineStyle: { width: 2, opacity: 0.8 },
          data: rows.map((r) => numeric.map(([, f]) => f(r))).filter((v) => v.every((x) => typeof x === "number")) }],
      });
    }
  }

  // ---- debugger -----------------------------------------------------------------------------------------
  async function debuggerPage(main, params) {
    if (!token()) {
      main.replaceChildren(el("h1", { text: "Debugger" }), el("p", {
        text: "The debugger needs the session token that 'openspore insight start' printed: open the address it printed (…/#token=…)." }));
      return;
    }
    const sessions = await api("/debugger/sessions");
    let sid = params.get("session");
    const dump = params.get("dump_dir");
    if (!sid && dump) sid = (await api("/debugger/sessions", { method: "POST", body: { session_type: "OFFLINE", dump_dir: dump } })).id;
    if (!sid) {
      const items = [];
      if (sessions.online) items.push(el("li", {}, el("a", { href: "#/debugger?session=online" }, "Online session (training connects over gRPC)")));
      sessions.dump_dirs.forEach((d) => items.push(el("li", {}, el("a", { href: "#/debugger?" + q({ dump_dir: d }) }, `Offline: dump directory ${d}`))));
      main.replaceChildren(el("h1", { text: "Debugger" }),
        items.length ? el("ul", { "aria-label": "debugger sessions" }, items) : el("p", { text: "No dump directory under the base directory, and the online debugger is off." }));
      return;
    }
    const S = `/debugger/sessions/${encodeURIComponent(sid)}`;
    const conditions = (await api("/debugger/conditions")).conditions;
    const nodes = (await api(S + "/graph")).nodes;
    const stateBox = el("p", { id: "debug-state" });
    const hitsBody = el("tbody", { id: "hits" });
    const wpList = el("ul", { id: "watchpoints" });
    const tensorBox = el("section", { class: "card", id: "tensor", "aria-live": "polite" }, el("p", { class: "muted", text: "Select a hit or a node to see its tensor." }));
    const relDiv = el("div", { class: "cy rel", role: "img", "aria-label": "tensor relationship graph" });
    const condSelect = el("select", { id: "condition", "aria-label": "condition" }, conditions.map((c) => el("option", { value: c.id }, `${c.id} (${c.target})`)));
    const paramsInput = el("input", { type: "text", id: "condition-params", placeholder: 'parameters, e.g. {"max_gt": 100}', "aria-label": "condition parameters (JSON)" });
    const searchInput = el("input", { type: "text", id: "debug-search", "aria-label": "search nodes" });
    const searchBy = el("select", { "aria-label": "search by" }, el("option", { value: "node_name" }, "node name"), el("option", { value: "code_stack" }, "code (file:line)"));
    const searchResults = el("ul", { id: "debug-search-results" });
    const online = sid === "online";
    const act = (label, fn, primary) => el("button", { class: primary ? "primary" : "", text: label, onclick: async () => {
      try { await fn(); await poll(); } catch (e) { status(e.message); }
    } });
    const controls = online
      ? [act("Continue", () => api(S + "/control", { method: "POST", body: { action: "continue" } }), true),
         act("Pause", () => api(S + "/control", { method: "POST", body: { action: "pause" } })),
         act("Step", () => api(S + "/control", { method: "POST", body: { action: "step", steps: 1 } })),
         act("Next node", () => api(S + "/control", { method: "POST", body: { action: "step_node" } })),
         act("Recheck", () => api(S + "/check", { method: "POST" })),
         act("Terminate", () => api(S + "/control", { method: "POST", body: { action: "terminate" } }))]
      : [act("Check watchpoints", () => api(S + "/check", { method: "POST" }), true)];
    main.replaceChildren(el("h1", { text: online ? "Debugger — online session" : `Debugger — offline, ${dump || sid}` }),
      stateBox, el("div", { class: "toolbar" }, controls),
      el("div", { class: "debug-layout" },
        el("div", {},
          el("section", { class: "card" }, el("h2", { text: "Watchpoints" }), wpList,
            el("label", { for: "condition" }, "Condition"), condSelect, paramsInput,
            el("div", { class: "toolbar" },
              act("Add watchpoint", async () => {
                const p = paramsInput.value.trim() ? JSON.parse(paramsInput.value) : {};
                await api(S + "/create-watchpoint", { method: "POST", body: { condition: condSelect.value, params: p } });
              }),
              act("Add recommended", () => api(S + "/recommend", { method: "POST" })))),
          el("section", { class: "card" }, el("h2", { text: "Code ↔ graph search" }), searchInput, searchBy,
            act("Search", async () => {
              const r = await api(S + "/search?" + q({ query: searchInput.value, by: searchBy.value }));
              searchResults.replaceChildren(...r.nodes.slice(0, 60).map((n) => el("li", {}, el("button", { class: "op", onclick: () => showTensor(n) }, n))));
            }), searchResults)),
        el("div", {},
          el("section", { class: "card" }, el("h2", { text: "Watchpoint hits" }),
            el("table", { "aria-label": "watchpoint hits" }, el("thead", {}, el("tr", {}, ["Iteration", "Node", "Condition", "Detail and tuning hints"].map((h) => el("th", { scope: "col", text: h })))), hitsBody)),
          tensorBox, el("section", { class: "card" }, el("h2", { text: "Tensor relationships" }), relDiv))));
    if (window.cytoscapeDagre && !cytoscape.__dagre) { cytoscape.use(window.cytoscapeDagre); cytoscape.__dagre = true; }
    const rel = cytoscape({ container: relDiv, style: [
      { selector: "node", style: { label: "data(label)", "font-size": 10, shape: "round-rectangle", width: (e) => 6.5 * String(e.data("label") || "").length + 12, height: 20, "background-color": "#e0e7ff" } },
      { selector: "node.center", style: { "background-color": "#fecaca", "border-width": 2, "border-color": "#b42318" } },
      { selector: "edge", style: { width: 1, "target-arrow-shape": "triangle", "curve-style": "bezier" } }] });
    insight.debugger = { rel, nodes };

    async function showTensor(name, iteration) {
      const t = await api(S + "/tensors?" + q({ name, slot: 0, iteration: iteration === undefined ? "" : iteration }));
      const st = t.statistics || {};
      tensorBox.replaceChildren(el("h2", { text: "Tensor" }),
        el("dl", { class: "kv" }, el("dt", { text: "Node" }), el("dd", { text: name }),
          el("dt", { text: "Iteration" }), el("dd", { text: t.iteration }),
          el("dt", { text: "Shape / dtype" }), el("dd", { text: t.shape ? `${JSON.stringify(t.shape)} ${t.dtype}` : "not dumped" })),
        el("table", { "aria-label": "tensor statistics" }, el("tbody", {}, Object.entries(st).map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: k }), el("td", { class: "num", text: fmt(v) }))))),
        t.values ? el("details", {}, el("summary", { text: `Values${t.truncated ? " (first 200)" : ""}` }), el("div", { class: "stack", text: t.values.map(fmt).join(", ") })) : null);
      const r = await api(S + "/tensor-graphs?" + q({ name }));
      rel.elements().remove();
      rel.add([{ data: { id: r.node.name, label: r.node.op_type }, classes: "center" },
        ...r.inputs.map((n) => ({ data: { id: "i:" + n.name, label: n.op_type } })),
        ...r.outputs.map((n) => ({ data: { id: "o:" + n.name, label: n.op_type } })),
        ...r.inputs.map((n) => ({ data: { source: "i:" + n.name, target: r.node.name } })),
        ...r.outputs.map((n) => ({ data: { source: r.node.name, target: "o:" + n.name } }))]);
      rel.layout({ name: window.cytoscapeDagre ? "dagre" : "breadthfirst", rankDir: "LR", fit: true, padding: 10 }).run();
    }
    async function poll() {
      const p = await api(S + "/poll-data");
      stateBox.replaceChildren("State ", el("span", { class: `pill ${p.state}`, text: p.state }),
        p.step !== undefined ? ` — step ${p.step}` : "",
        p.iterations ? ` — iterations ${p.iterations.join(", ")}` : "", ` — ${nodes.length} nodes`);
      wpList.replaceChildren(...(p.watchpoints.length ? p.watchpoints.map((w) => el("li", { text: `#${w.id} ${w.name} on ${w.node_count} node(s)` })) : [el("li", { class: "muted", text: "none yet" })]));
      const hits = p.hits || [];
      const shortName = (n) => n.split("/").slice(-2).join("/");
      hitsBody.replaceChildren(...(hits.length ? hits.map((h) => el("tr", { class: "hit-row" },
        el("td", { class: "num", text: h.iteration }),
        el("td", {}, el("button", { class: "op", title: h.node_name, "aria-label": `show tensor of ${h.node_name}`,
          onclick: () => showTensor(h.node_name, h.iteration) }, shortName(h.node_name))),
        el("td", { class: "hit", text: h.condition }),
        el("td", {}, (h.params || []).map((x) => `${x.name}: ${fmt(x.actual)} (threshold ${fmt(x.threshold)})`).join("; ") || (h.error_msg || []).join(" "),
          el("ul", { class: "hints", "aria-label": "tuning hints" }, (h.tuning_hints || []).map((t) => el("li", { text: t })))))) :
        [el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No hits." }))]));
    }
    await poll();
    if (online) every(1, poll);
  }

  // ---- start --------------------------------------------------------------------------------------------
  (async function start() {
    try {
      state.config = await api("/ui-config");
      document.getElementById("base-dir").textContent = `summary base: ${state.config.summary_base_dir}`;
    } catch (e) { status(e.message); }
    render();
  })();
})();
