// The London map as the board page draws it (stations, coloured connections, halos), shared by the
// simulated board's page (app.js) and Mister X's secret page (mrx.js). No game logic here.
"use strict";
(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const EDGE_STYLE = {
    taxi: { stroke: "#e0a800", width: 3 }, bus: { stroke: "#12a893", width: 5 },
    underground: { stroke: "#d62828", width: 7 }, ferry: { stroke: "#111", width: 4, dash: "10 7" },
  };
  const UNLIT = [207, 200, 184];
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }
  // draw the map into the <g> layers edges, halos, stations; returns {station: {g, halo, disc, text, x, y, key}}
  function draw(map, edges, halos, stations) {
    edges.textContent = ""; stations.textContent = ""; halos.textContent = "";
    const stationEls = {};
    const pairs = {};
    for (const [a, b, t] of map.edges) { const k = Math.min(a, b) + "-" + Math.max(a, b); (pairs[k] = pairs[k] || []).push(t); }
    const order = ["taxi", "bus", "underground", "ferry"];
    const byT = {};
    for (const t of order) byT[t] = el("g", { "data-transport": t, "stroke-linecap": "round" }, edges);
    for (const k in pairs) {
      const [a, b] = k.split("-").map(Number);
      const [x1, y1] = map.stations[a], [x2, y2] = map.stations[b];
      const ts = pairs[k].sort((p, q) => order.indexOf(p) - order.indexOf(q));
      const len = Math.hypot(x2 - x1, y2 - y1) || 1, nx = -(y2 - y1) / len, ny = (x2 - x1) / len;
      ts.forEach((t, i) => {
        const off = (i - (ts.length - 1) / 2) * 7, st = EDGE_STYLE[t];
        const a2 = { x1: x1 + nx * off, y1: y1 + ny * off, x2: x2 + nx * off, y2: y2 + ny * off,
                     stroke: st.stroke, "stroke-width": st.width };
        if (st.dash) a2["stroke-dasharray"] = st.dash;
        el("line", a2, byT[t]);
      });
    }
    for (const s in map.stations) {
      const [x, y] = map.stations[s];
      const g = el("g", { class: "st", "data-s": s, transform: `translate(${x},${y})` }, stations);
      const halo = el("circle", { class: "halo", r: 27, cx: x, cy: y, fill: "none", opacity: 0 }, halos);
      const disc = el("circle", { class: "disc", r: 16, fill: rgb(UNLIT) }, g);
      const text = el("text", { fill: "#222" }, g);
      text.textContent = s;
      stationEls[s] = { g, halo, disc, text, x, y, key: "" };
    }
    return stationEls;
  }
  // a station's centre in page (CSS) pixels, for tests and for hit-testing
  function stationXY(svg, e) {
    const p = svg.createSVGPoint(); p.x = e.x; p.y = e.y;
    const q = p.matrixTransform(svg.getScreenCTM());
    return { x: q.x, y: q.y, r: 16 * svg.getScreenCTM().a };
  }
  function toMap(svg, cx, cy) {
    const p = svg.createSVGPoint(); p.x = cx; p.y = cy;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }
  // the station nearest a click (within 30 map pixels), or null
  function stationAt(svg, stationEls, cx, cy) {
    const p = toMap(svg, cx, cy);
    let best = null, bd = 30 * 30;
    for (const s in stationEls) {
      const e = stationEls[s], d = (e.x - p.x) ** 2 + (e.y - p.y) ** 2;
      if (d < bd) { bd = d; best = +s; }
    }
    return best;
  }
  window.YardMap = { el, rgb, draw, stationXY, toMap, stationAt, UNLIT };
})();
