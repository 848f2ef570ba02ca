// The detectives' view of a Europe game (host/europe/view.py serves it with the page).
"use strict";
const NS = "http://www.w3.org/2000/svg", $ = (id) => document.getElementById(id);
const COLOURS = { car: "#c9a060", train: "#d02020", plane: "#2050e0" };
const PIECES = ["#0000ff", "#d2ff00", "#0096ff", "#ff9696", "#96ffff"];  // the board's LEDs (sy/europe/board.py)
// the view's words (host/europe/view.py sends the game's own: phases, transports, symbols, endings)
const PHASES = { "deal": t("dealing the tickets"), "Mister X": t("Mister X moves"), "Mister X refills": t("Mister X refills his hand"),
                 "detectives": t("the detectives move"), "detectives refill": t("the detectives refill their hands"),
                 "over": t("the game is over") };
const WORDS = { car: t("car"), train: t("train"), plane: t("plane"), covert: t("covert move"),
                footprints: t("footprints"), silhouettes: t("silhouettes"), magnifier: t("magnifier"), lamp: t("lamp") };
const REASONS = { capture: t("Mister X was caught"), mrx_stuck: t("Mister X cannot move"),
                  destination: t("Mister X reached his mission's destination") };
const LEVELS = { green: t("green"), yellow: t("yellow"), orange: t("orange") };
const word = (w) => WORDS[w] || w;
const ticketName = (name) => name.split("/").map(word).join("/");
let picture = null;
window.view = { state: null, polls: 0 };
function el(name, attrs, parent) { const e = document.createElementNS(NS, name); for (const k in attrs) e.setAttribute(k, attrs[k]); parent.appendChild(e); return e; }
function tickets(list) {
  return list.map((k) => '<span class="ticket ' + k.split("/")[0] + '" data-ticket="' + k + '">' + ticketName(k) + "</span>").join("");
}
function draw(s) {
  const svg = $("map");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const xs = Object.values(picture.cities).map((c) => c[0]), ys = Object.values(picture.cities).map((c) => c[1]);
  const pad = 40, x0 = Math.min(...xs) - pad, y0 = Math.min(...ys) - pad;
  svg.setAttribute("viewBox", [x0, y0, Math.max(...xs) - x0 + pad, Math.max(...ys) - y0 + pad].join(" "));
  for (const [a, b, t] of picture.connections) {
    const A = picture.cities[a], B = picture.cities[b];
    el("line", { x1: A[0], y1: A[1], x2: B[0], y2: B[1], stroke: COLOURS[t], "stroke-width": 3 }, svg);
  }
  const possible = new Set(s.possible || []), shown = new Set(s.shown || []);
  for (const [n, c] of Object.entries(picture.cities)) {
    const g = el("g", { "data-city": n }, svg);
    if (possible.has(+n)) el("circle", { cx: c[0], cy: c[1], r: 17, fill: "#c8a0ff", "data-possible": n }, g);
    if (shown.has(+n)) el("circle", { cx: c[0], cy: c[1], r: 15, fill: "none", stroke: "#ff5ab4", "stroke-width": 4 }, g);
    if (+n === s.destination) el("circle", { cx: c[0], cy: c[1], r: 19, fill: "none", stroke: "#000", "stroke-dasharray": "4 3" }, g);
    el("circle", { cx: c[0], cy: c[1], r: 10, fill: "#fff", stroke: "#000" }, g);
    const t = el("text", { x: c[0], y: c[1] + 4, "font-size": 11, "text-anchor": "middle" }, g);
    t.textContent = n;
  }
  (s.detectives || []).forEach((d, i) => {
    const c = picture.cities[d.city];
    const p = el("circle", { cx: c[0], cy: c[1], r: 12, fill: PIECES[i], "fill-opacity": 0.85, "data-piece": d.piece }, svg);
    const t = el("text", { x: c[0], y: c[1] + 4, "font-size": 10, fill: "#fff", "text-anchor": "middle" }, svg);
    t.textContent = d.piece;
  });
}
function side(s) {
  if (s.stage === "idle") { $("status").textContent = t("waiting for a game"); return; }
  $("status").textContent = t("Round %(round)s — %(phase)s. Mission %(level)s, destination %(destination)s.",
                              { round: s.round, phase: PHASES[s.phase] || s.phase, level: LEVELS[s.level] || s.level,
                                destination: s.destination }) + " " + tn("Bag: %s ticket.", "Bag: %s tickets.", s.bag);
  const why = REASONS[s.reason] || s.reason;
  $("result").textContent = s.result ? (s.result === "mrx" ? t("Mister X wins (%s)", [why]) : t("The detectives win (%s)", [why])) : "";
  $("log").innerHTML = s.mrx_log.map((m) => '<span class="ticket ' + m.transport + '" data-entry="' + m.entry + '">' + m.entry + " " + word(m.transport) + (m.shown ? " → " + m.shown : "") + "</span>").join("") || t("no moves yet");
  $("mrx-hand").textContent = tn("Mister X holds %s ticket (secret).", "Mister X holds %s tickets (secret).", s.mrx_hand);
  $("hands").innerHTML = Object.entries(s.hands).map(([p, h]) => '<div data-hand="' + p + '"><b>' + p + "</b> (" +
      s.detectives.filter((d) => d.player === p).map((d) => d.piece).join(", ") + "): " + tickets(h) + "</div>").join("");
  $("shown").textContent = (s.shown || []).join(", ") || t("none");
  $("possible").textContent = (s.possible || []).join(", ");
  $("spent").innerHTML = tickets(s.spent || []) || t("none");
}
async function poll() {
  try {
    if (!picture) picture = await (await fetch("api/map")).json();
    const s = await (await fetch("api/state")).json();
    window.view.state = s; window.view.polls++;
    if (s.stage !== "idle") draw(s);
    side(s);
  } catch (e) { $("status").textContent = t("the host is gone: %s", [String(e)]); }
  setTimeout(poll, 300);
}
poll();
