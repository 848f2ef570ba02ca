// yard map-editor: transcribe a board from a photo (host/europe/map_editor.py serves this page).
// The state holds board coordinates; the photo is shown through the fit (a homography from photo
// pixels to board coordinates, from 4 or more known points; none: the identity).
"use strict";

const EUROPE = { transports: ["car", "train", "plane"], colours: { car: "#d9a441", train: "#e01010", plane: "#1050ff" } };
const LONDON = { transports: ["taxi", "bus", "underground", "ferry"],
                 colours: { taxi: "#f0c000", bus: "#00b090", underground: "#e01010", ferry: "#111" } };
const LEVELS = ["green", "yellow", "orange"];
const LEVEL_COLOURS = { green: "#0a0", yellow: "#dc0", orange: "#f80" };
const KIND_COLOURS = { car: "#e8d2a0", train: "#f0a0a0", plane: "#7fa8ff" };
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const editor = {
  state: { format: "europe", cities: [], connections: [], rings: { green: [], yellow: [], orange: [] },
           destinations: {}, start_cards: [], fit: [], note: "" },
  undoStack: [],
  mode: "city",
  zoom: 1,
  H: null, Hinv: null, rms: 0,
  width: 0, height: 0,
  token: new URLSearchParams(location.hash.slice(1)).get("token") || "",
  selected: null,   // index of a city (connect: the first end; city: the one being edited)
  pendingFit: null, // photo point waiting for its board coordinates
  nextId: 1,
};
window.editor = editor;

// ---- geometry ---------------------------------------------------------------------------------
function solve(A, b) {  // Gaussian elimination with partial pivoting; A is n x n
  const n = b.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    if (Math.abs(A[p][c]) < 1e-12) return null;
    [A[c], A[p]] = [A[p], A[c]]; [b[c], b[p]] = [b[p], b[c]];
    for (let r = c + 1; r < n; r++) {
      const f = A[r][c] / A[c][c];
      for (let k = c; k < n; k++) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r];
    for (let k = r + 1; k < n; k++) s -= A[r][k] * x[k];
    x[r] = s / A[r][r];
  }
  return x;
}
function normaliser(pts) {  // Hartley: centre on the mean, scale to mean distance sqrt(2)
  const n = pts.length;
  const mx = pts.reduce((s, p) => s + p[0], 0) / n, my = pts.reduce((s, p) => s + p[1], 0) / n;
  const d = pts.reduce((s, p) => s + Math.hypot(p[0] - mx, p[1] - my), 0) / n || 1;
  const k = Math.SQRT2 / d;
  return [[k, 0, -k * mx], [0, k, -k * my], [0, 0, 1]];
}
function mul(A, B) {
  return A.map((row, i) => B[0].map((_, j) => row.reduce((s, _v, k) => s + A[i][k] * B[k][j], 0)));
}
function inverse(M) {
  const [a, b, c] = M[0], [d, e, f] = M[1], [g, h, i] = M[2];
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-15) return null;
  return [[A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
          [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
          [C / det, -(a * h - b * g) / det, (a * e - b * d) / det]];
}
function apply(M, x, y) {
  const w = M[2][0] * x + M[2][1] * y + M[2][2];
  return [(M[0][0] * x + M[0][1] * y + M[0][2]) / w, (M[1][0] * x + M[1][1] * y + M[1][2]) / w];
}
function fitHomography(pairs) {  // pairs: [[u, v], [x, y]] photo -> board; least squares (DLT, h33 = 1)
  const T1 = normaliser(pairs.map((p) => p[0])), T2 = normaliser(pairs.map((p) => p[1]));
  const A = [], b = [];
  for (const [[u0, v0], [x0, y0]] of pairs) {
    const [u, v] = apply(T1, u0, v0), [x, y] = apply(T2, x0, y0);
    A.push([u, v, 1, 0, 0, 0, -u * x, -v * x]); b.push(x);
    A.push([0, 0, 0, u, v, 1, -u * y, -v * y]); b.push(y);
  }
  const N = Array.from({ length: 8 }, () => new Array(8).fill(0)), r = new Array(8).fill(0);
  for (let k = 0; k < A.length; k++)
    for (let i = 0; i < 8; i++) { r[i] += A[k][i] * b[k]; for (let j = 0; j < 8; j++) N[i][j] += A[k][i] * A[k][j]; }
  const h = solve(N, r);
  if (!h) return null;
  const Hn = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1]];
  const H = mul(inverse(T2), mul(Hn, T1));
  return H.map((row) => row.map((v) => v / H[2][2]));
}
function refit() {
  const fit = editor.state.fit;
  editor.H = editor.Hinv = null; editor.rms = 0;
  if (fit.length >= 4) {
    const H = fitHomography(fit.map((p) => [[p.px, p.py], [p.x, p.y]]));
    if (H && inverse(H)) {
      editor.H = H; editor.Hinv = inverse(H);
      editor.rms = Math.sqrt(fit.reduce((s, p) => { const [x, y] = apply(H, p.px, p.py); return s + (x - p.x) ** 2 + (y - p.y) ** 2; }, 0) / fit.length);
    }
  }
}
function toBoard(px, py) { return editor.H ? apply(editor.H, px, py) : [px, py]; }
function toPhoto(x, y) { return editor.Hinv ? apply(editor.Hinv, x, y) : [x, y]; }
const round1 = (v) => Math.round(v * 10) / 10;

// ---- state changes (each one undoable) ------------------------------------------------------------
function change(fn) {
  editor.undoStack.push(JSON.stringify(editor.state));
  if (editor.undoStack.length > 500) editor.undoStack.shift();
  fn(editor.state);
  refit();
  render();
}
function undo() {
  const prev = editor.undoStack.pop();
  if (prev === undefined) return status(t("nothing to undo"));
  editor.state = JSON.parse(prev);
  editor.selected = null; editor.pendingFit = null;
  closeForms();
  refit();
  render();
  status(t("undone"));
}
function cityByNumber(n) { return editor.state.cities.find((c) => c.n === n); }
function numberUses(n) { return editor.state.cities.filter((c) => c.n === n).length; }

// ---- the page ----------------------------------------------------------------------------------
function status(text) { $("status").textContent = text; }
function closeForms() { $("fit-form").classList.remove("open"); $("city-form").classList.remove("open"); }
function setMode(mode) {
  editor.mode = mode; editor.selected = null; editor.pendingFit = null;
  closeForms();
  document.querySelectorAll("#toolbar button[data-mode]").forEach((b) => b.classList.toggle("on", b.dataset.mode === mode));
  const help = { fit: t("Click a point you know on the photo, type its board coordinates. Four or more make the fit."),
                 city: t("Click a city's centre, type its number (Enter). Click a city to renumber it."),
                 connect: t("Choose the transport, click one city, then the other."),
                 kind: t("Choose a kind, click cities."), ring: t("Choose a level, click its five ringed start cities."),
                 dest: t("Choose a level, click its destination."), start: t("Click the detectives' start cities."),
                 delete: t("Click a city or a line to delete it.") };
  $("help").textContent = help[mode] || "";
  render();
}
function setZoom(z) {
  const view = $("view");
  const cx = (view.scrollLeft + view.clientWidth / 2) / editor.zoom, cy = (view.scrollTop + view.clientHeight / 2) / editor.zoom;
  editor.zoom = Math.max(0.25, Math.min(8, z));
  $("zoom-label").textContent = Math.round(editor.zoom * 100) + "%";
  layout();
  view.scrollLeft = cx * editor.zoom - view.clientWidth / 2;
  view.scrollTop = cy * editor.zoom - view.clientHeight / 2;
}
function layout() {
  const w = editor.width * editor.zoom, h = editor.height * editor.zoom;
  const stage = $("stage"), img = $("photo"), svg = $("overlay");
  stage.style.width = w + "px"; stage.style.height = h + "px";
  img.style.width = w + "px"; img.style.height = h + "px";
  svg.setAttribute("width", w); svg.setAttribute("height", h);
  svg.setAttribute("viewBox", "0 0 " + editor.width + " " + editor.height);
  render();
}
// the photo point under a mouse event, and the client point of a photo point (scrolled into view)
function eventPhotoPoint(ev) {
  const r = $("stage").getBoundingClientRect();
  return [(ev.clientX - r.left) * editor.width / r.width, (ev.clientY - r.top) * editor.height / r.height];
}
editor.reveal = function (px, py) {
  const view = $("view"), z = editor.zoom;
  const inside = (v, lo, size) => v * z > lo + 20 && v * z < lo + size - 20;
  if (!inside(px, view.scrollLeft, view.clientWidth)) view.scrollLeft = px * z - view.clientWidth / 2;
  if (!inside(py, view.scrollTop, view.clientHeight)) view.scrollTop = py * z - view.clientHeight / 2;
  const r = $("stage").getBoundingClientRect();
  return [r.left + px * r.width / editor.width, r.top + py * r.height / editor.height];
};
editor.photoOf = function (x, y) { return toPhoto(x, y); };

function nearestCity(px, py) {
  let best = null, bestD = 14 / editor.zoom;
  editor.state.cities.forEach((c, i) => {
    const [cx, cy] = toPhoto(c.x, c.y);
    const d = Math.hypot(cx - px, cy - py);
    if (d <= bestD) { best = i; bestD = d; }
  });
  return best;
}
function nearestLine(px, py) {
  let best = null, bestD = 6 / editor.zoom;
  editor.state.connections.forEach((e, i) => {
    const a = cityByNumber(e[0]), b = cityByNumber(e[1]);
    if (!a || !b) return;
    const [ax, ay] = toPhoto(a.x, a.y), [bx, by] = toPhoto(b.x, b.y);
    const L = (bx - ax) ** 2 + (by - ay) ** 2 || 1;
    const t = Math.max(0, Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / L));
    const d = Math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay));
    if (d <= bestD) { best = i; bestD = d; }
  });
  return best;
}

function click(ev) {
  const [px, py] = eventPhotoPoint(ev);
  const S = editor.state, mode = editor.mode, hit = nearestCity(px, py);
  if (mode === "fit") {
    editor.pendingFit = [px, py];
    $("fit-form").classList.add("open");
    $("fit-x").value = ""; $("fit-y").value = "";
    $("fit-x").focus();
    render();
    return;
  }
  if (mode === "city") {
    if (hit !== null) {
      editor.selected = hit;
    } else {
      const [x, y] = toBoard(px, py);
      const kind = S.format === "europe" ? $("kind").value : null;
      change((s) => s.cities.push({ id: editor.nextId++, n: null, x: round1(x), y: round1(y), kind }));
      editor.selected = editor.state.cities.length - 1;
    }
    const c = editor.state.cities[editor.selected];
    $("city-form").classList.add("open");
    $("city-number").value = c.n === null ? "" : c.n;
    $("city-kind").value = c.kind || "car";
    $("city-number").focus();
    render();
    return;
  }
  if (hit === null) {
    if (mode === "delete") {
      const line = nearestLine(px, py);
      if (line !== null) change((s) => s.connections.splice(line, 1));
    }
    return;
  }
  const city = S.cities[hit];
  if (mode === "delete") {
    change((s) => {
      const n = s.cities[hit].n;
      s.cities.splice(hit, 1);
      if (n !== null && !s.cities.some((c) => c.n === n)) {
        s.connections = s.connections.filter((e) => e[0] !== n && e[1] !== n);
        for (const lv of LEVELS) if (s.rings[lv]) s.rings[lv] = s.rings[lv].filter((c) => c !== n);
        s.start_cards = s.start_cards.filter((c) => c !== n);
      }
    });
    return;
  }
  if (city.n === null) return status(t("give this city its number first (Cities)"));
  const n = city.n, level = $("level").value;
  if (mode === "connect") {
    if (editor.selected === null || editor.selected === hit) {
      editor.selected = editor.selected === hit ? null : hit;
      render();
      return;
    }
    const a = S.cities[editor.selected].n, tr = $("transport").value;
    editor.selected = null;
    const lo = Math.min(a, n), hi = Math.max(a, n);
    if (S.connections.some((e) => Math.min(e[0], e[1]) === lo && Math.max(e[0], e[1]) === hi && e[2] === tr)) {
      render();
      return status(t("%(a)s-%(b)s by %(transport)s is already drawn", { a: lo, b: hi, transport: t(tr) }));
    }
    change((s) => s.connections.push([lo, hi, tr]));
    status(t("connected %(a)s-%(b)s by %(transport)s", { a: lo, b: hi, transport: t(tr) }));
  } else if (mode === "kind") {
    change((s) => { s.cities[hit].kind = $("kind").value; });
  } else if (mode === "ring") {
    change((s) => {
      const r = s.rings[level] = s.rings[level] || [];
      const k = r.indexOf(n);
      if (k >= 0) r.splice(k, 1); else r.push(n);
    });
  } else if (mode === "dest") {
    change((s) => { s.destinations[level] = n; });
  } else if (mode === "start") {
    change((s) => { const k = s.start_cards.indexOf(n); if (k >= 0) s.start_cards.splice(k, 1); else s.start_cards.push(n); });
  }
}

function confirmCity() {
  const i = editor.selected;
  if (i === null || !editor.state.cities[i]) return;
  const text = $("city-number").value.trim(), kind = $("city-kind").value;
  const n = text === "" ? null : parseInt(text, 10);
  if (n !== null && !(n >= 1 && n <= 255)) return status(t("a city number is 1 to 255"));
  const old = editor.state.cities[i].n;
  change((s) => {
    s.cities[i].n = n;
    s.cities[i].kind = s.format === "europe" ? kind : null;
    if (old !== null && n !== null && old !== n && !s.cities.some((c, k) => k !== i && c.n === old)) {
      // renumbered: its lines, rings and cards follow it
      s.connections.forEach((e) => { if (e[0] === old) e[0] = n; if (e[1] === old) e[1] = n; });
      for (const lv of LEVELS) if (s.rings[lv]) s.rings[lv] = s.rings[lv].map((c) => (c === old ? n : c));
      for (const lv of Object.keys(s.destinations)) if (s.destinations[lv] === old) s.destinations[lv] = n;
      s.start_cards = s.start_cards.map((c) => (c === old ? n : c));
    }
  });
  editor.selected = null;
  closeForms();
  render();
}
function confirmFit() {
  const p = editor.pendingFit;
  const x = parseFloat($("fit-x").value), y = parseFloat($("fit-y").value);
  if (!p || !isFinite(x) || !isFinite(y)) return status(t("type the point's board x and y"));
  change((s) => s.fit.push({ px: round1(p[0]), py: round1(p[1]), x, y }));
  editor.pendingFit = null;
  closeForms();
  render();
}

// ---- what is still missing --------------------------------------------------------------------------
function missing() {
  const S = editor.state, out = [];
  const unnumbered = S.cities.filter((c) => c.n === null);
  for (const c of unnumbered) out.push(["unnumbered", t("a city at (%(x)s, %(y)s) has no number", { x: Math.round(c.x), y: Math.round(c.y) })]);
  const counts = {};
  for (const c of S.cities) if (c.n !== null) counts[c.n] = (counts[c.n] || 0) + 1;
  for (const n of Object.keys(counts)) if (counts[n] > 1) out.push(["twice", tn("number %(n)s is used %(count)s time", "number %(n)s is used %(count)s times", counts[n], { n, count: counts[n] })]);
  const numbers = Object.keys(counts).map(Number);
  const max = numbers.length ? Math.max(...numbers) : 0;
  const gaps = [];
  for (let n = 1; n <= max; n++) if (!counts[n]) gaps.push(n);
  if (gaps.length) out.push(["gap", t("numbers not yet placed: %s", [gaps.slice(0, 20).join(", ") + (gaps.length > 20 ? " …" : "")])]);
  const linked = new Set();
  for (const e of S.connections) { linked.add(e[0]); linked.add(e[1]); }
  for (const n of numbers.sort((a, b) => a - b)) if (!linked.has(n)) out.push(["lonely", t("city %s has no connection", [n])]);
  if (S.fit.length > 0 && S.fit.length < 4) out.push(["fit", t("fit: %s of at least 4 known points", [S.fit.length])]);
  if (S.format === "europe") {
    const rank = { car: 0, train: 1, plane: 2 };
    // a kind limits leaving a city only: a line may lead into a city it cannot leave (one way)
    for (const e of S.connections) {
      const closed = [e[0], e[1]].filter((n) => { const c = cityByNumber(n); return c && rank[e[2]] > rank[c.kind || "car"]; });
      const line = { a: e[0], b: e[1], transport: t(e[2]) };
      if (closed.length === 2) out.push(["kind", t("no one can leave %(a)s or %(b)s by %(transport)s: the %(transport)s line %(a)s-%(b)s cannot be travelled", line)]);
      else if (closed.length === 1) out.push(["oneway", t("warning: the %(transport)s line %(a)s-%(b)s leads into %(into)s one way (its kind cannot leave by %(transport)s)", Object.assign({ into: closed[0] }, line))]);
    }
    for (const lv of LEVELS) {
      const r = (S.rings[lv] || []).length;
      if (r !== 5) out.push(["rings", t("%(level)s: %(count)s of 5 ringed start cities", { level: t(lv), count: r })]);
      if (S.destinations[lv] === undefined) out.push(["dest", t("%(level)s: no destination", { level: t(lv) })]);
    }
    if (S.start_cards.length < 5) out.push(["cards", t("start cards: %s (at least 5)", [S.start_cards.length])]);
  }
  return out;
}

// ---- drawing ----------------------------------------------------------------------------------------
function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}
function octagon(x, y, r) {
  const pts = [];
  for (let k = 0; k < 8; k++) { const a = Math.PI / 8 + k * Math.PI / 4; pts.push((x + r * Math.cos(a)).toFixed(1) + "," + (y + r * Math.sin(a)).toFixed(1)); }
  return pts.join(" ");
}
function render() {
  const svg = $("overlay"), S = editor.state, z = editor.zoom;
  const game = S.format === "london" ? LONDON : EUROPE;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const lines = el("g", {}, svg), marks = el("g", {}, svg), dots = el("g", {}, svg);
  const offsets = {};
  for (const e of S.connections) {
    const a = cityByNumber(e[0]), b = cityByNumber(e[1]);
    if (!a || !b) continue;
    const key = Math.min(e[0], e[1]) + "-" + Math.max(e[0], e[1]);
    const k = offsets[key] = (offsets[key] || 0) + 1;
    const [ax, ay] = toPhoto(a.x, a.y), [bx, by] = toPhoto(b.x, b.y);
    const len = Math.hypot(bx - ax, by - ay) || 1, off = (k - 1) * 4 / z;  // parallel lines side by side
    const ox = -(by - ay) / len * off, oy = (bx - ax) / len * off;
    el("line", { x1: ax + ox, y1: ay + oy, x2: bx + ox, y2: by + oy, stroke: game.colours[e[2]] || "#888",
                 "stroke-width": 3 / z, "data-line": key + ":" + e[2] }, lines);
  }
  for (const lv of LEVELS) {
    for (const n of S.rings[lv] || []) {
      const c = cityByNumber(n); if (!c) continue;
      const [x, y] = toPhoto(c.x, c.y);
      el("circle", { cx: x, cy: y, r: 14 / z, fill: "none", stroke: LEVEL_COLOURS[lv], "stroke-width": 3 / z }, marks);
    }
    const d = cityByNumber(S.destinations[lv]);
    if (d) { const [x, y] = toPhoto(d.x, d.y); el("polygon", { points: octagon(x, y, 17 / z), fill: "none", stroke: LEVEL_COLOURS[lv], "stroke-width": 3 / z }, marks); }
  }
  for (const n of S.start_cards) {
    const c = cityByNumber(n); if (!c) continue;
    const [x, y] = toPhoto(c.x, c.y);
    el("rect", { x: x - 12 / z, y: y - 12 / z, width: 24 / z, height: 24 / z, fill: "none", stroke: "#222", "stroke-width": 1.5 / z, "stroke-dasharray": 3 / z, "data-start": n }, marks);
  }
  S.cities.forEach((c, i) => {
    const [x, y] = toPhoto(c.x, c.y);
    const sel = i === editor.selected;
    el("circle", { cx: x, cy: y, r: 8 / z, fill: S.format === "europe" ? KIND_COLOURS[c.kind || "car"] : "#fff",
                   stroke: sel ? "#f0f" : (c.n === null ? "#f00" : "#000"), "stroke-width": (sel ? 3 : 1.5) / z,
                   "data-city": c.n === null ? "?" : c.n }, dots);
    const t = el("text", { x: x + 9 / z, y: y - 9 / z, "font-size": 12 / z, fill: "#000", stroke: "#fff",
                           "stroke-width": 3 / z, "paint-order": "stroke" }, dots);
    t.textContent = c.n === null ? "?" : c.n;
  });
  for (const p of S.fit) {
    const s = 8 / z;
    el("path", { d: `M${p.px - s},${p.py}H${p.px + s}M${p.px},${p.py - s}V${p.py + s}`, stroke: "#0ff", "stroke-width": 2 / z }, marks);
  }
  if (editor.pendingFit) {
    const [px, py] = editor.pendingFit, s = 8 / z;
    el("path", { d: `M${px - s},${py - s}L${px + s},${py + s}M${px - s},${py + s}L${px + s},${py - s}`, stroke: "#ff0", "stroke-width": 2 / z }, marks);
  }
  const list = $("missing");
  list.innerHTML = "";
  const items = missing();
  for (const [kind, text] of items) { const li = document.createElement("li"); li.dataset.kind = kind; li.textContent = text; list.appendChild(li); }
  if (!items.length) { const li = document.createElement("li"); li.className = "done"; li.textContent = t("nothing: the map is complete"); list.appendChild(li); }
  $("fit-info").textContent = S.fit.length >= 4 && editor.H
    ? t("fit from %(count)s points, RMS residual %(rms)s", { count: S.fit.length, rms: editor.rms.toFixed(2) })
    : (S.fit.length ? tn("%s point: 4 or more make the fit", "%s points: 4 or more make the fit", S.fit.length)
                    : t("no fit: coordinates are pixels of the photo"));
}

// ---- saving -------------------------------------------------------------------------------------------
async function save() {
  const S = editor.state;
  S.note = $("note").value;
  const body = Object.assign({}, S, { fit_rms: editor.rms });
  const r = await fetch("api/save", { method: "POST", headers: { "Content-Type": "application/json", "X-Editor-Token": editor.token },
                                      body: JSON.stringify(body) });
  const answer = await r.json().catch(() => ({ ok: false, error: "HTTP " + r.status }));
  editor.lastSave = answer;
  if (!answer.ok) return status(t("not saved: %s", [answer.error]));
  status(t("saved %(files)s into %(folder)s", { files: answer.written.join(", "), folder: answer.out }) + "\n" +
         (answer.problems.length ? t("the checks say:") + "\n" + answer.problems.join("\n") : t("the checks pass")));
}

// ---- start ------------------------------------------------------------------------------------------
async function start() {
  const init = await (await fetch("api/init")).json();
  const img = $("photo");
  await (img.complete && img.naturalWidth ? Promise.resolve() : new Promise((ok) => { img.onload = ok; img.onerror = ok; }));
  editor.width = img.naturalWidth || (init.size && init.size[0]) || 1000;
  editor.height = img.naturalHeight || (init.size && init.size[1]) || 1000;
  if (init.map) {
    const m = init.map;
    editor.state = Object.assign(editor.state, m);
    editor.state.rings = Object.assign({ green: [], yellow: [], orange: [] }, m.rings || {});
    editor.state.cities.forEach((c) => { c.id = editor.nextId++; });
  }
  const game = editor.state.format === "london" ? LONDON : EUROPE;
  for (const tr of game.transports) { const o = document.createElement("option"); o.value = tr; o.textContent = t(tr); $("transport").appendChild(o); }
  document.querySelectorAll(".europe-only").forEach((e) => { e.style.display = editor.state.format === "europe" ? "" : "none"; });
  $("city-kind").style.display = editor.state.format === "europe" ? "" : "none";
  document.querySelectorAll("#toolbar button[data-mode]").forEach((b) => b.addEventListener("click", () => setMode(b.dataset.mode)));
  $("overlay").addEventListener("click", click);
  $("zoom-in").addEventListener("click", () => setZoom(editor.zoom * 2));
  $("zoom-out").addEventListener("click", () => setZoom(editor.zoom / 2));
  $("view").addEventListener("wheel", (ev) => { if (ev.ctrlKey) { ev.preventDefault(); setZoom(editor.zoom * (ev.deltaY < 0 ? 1.25 : 0.8)); } }, { passive: false });
  $("undo").addEventListener("click", undo);
  $("save").addEventListener("click", save);
  $("city-ok").addEventListener("click", confirmCity);
  $("fit-ok").addEventListener("click", confirmFit);
  $("city-number").addEventListener("keydown", (ev) => { if (ev.key === "Enter") confirmCity(); if (ev.key === "Escape") { editor.selected = null; closeForms(); render(); } });
  $("fit-y").addEventListener("keydown", (ev) => { if (ev.key === "Enter") confirmFit(); });
  document.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "z") { ev.preventDefault(); undo(); }
    else if (ev.target.tagName !== "INPUT" && ev.target.tagName !== "TEXTAREA") {
      if (ev.key === "+") setZoom(editor.zoom * 2);
      if (ev.key === "-") setZoom(editor.zoom / 2);
    }
  });
  refit();
  setMode(init.map ? "connect" : "fit");
  layout();
  status(t("photo %(photo)s (%(width)s × %(height)s px); saving into %(folder)s",
           { photo: init.photo, width: editor.width, height: editor.height, folder: init.out }));
  editor.ready = true;
}
start();
