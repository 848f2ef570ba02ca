// Mister X's secret page. It draws what his server sends (the game from his secret log) and turns a
// click into one of the console's commands; the console checks it against the rules, logs it,
// commits to it and tells the board, exactly as if he had typed it.
"use strict";
(function () {
  const svg = document.getElementById("board");
  const $ = (id) => document.getElementById(id);
  const el = YardMap.el;
  const TICKET_COLOUR = { taxi: "#f2b705", bus: "#14a88f", underground: "#d62828", black: "#111" };
  // the catalog's words (static/i18n.js): `t` names a ticket in this file
  const tr = window.t, trn = window.tn;
  const TICKET_LABEL = { taxi: tr("taxi"), bus: tr("bus"), underground: tr("underground"), black: tr("black") };
  const FULL = [-12, -12, 1663, 1252];
  const yard = window.yard = { state: null, map: null, sent: 0, replies: [] };
  let ws = null, nextId = 1, pending = {}, stationEls = {};
  let doubleMode = false, first = null, asked = null, zoomed = window.innerWidth < 820, fitted = "";

  // The key comes in the link's fragment, which the browser never sends to any server; the page's
  // address is replaced by the bare one at once, so the browser's history never holds the key. It
  // lives in this page's memory only, and goes to the server inside the websocket.
  const key = new URLSearchParams(location.hash.slice(1)).get("k") || "";
  if (location.hash) history.replaceState(null, "", location.pathname);
  function connect() {
    if (!key) { $("status").textContent = tr("open the link printed on Mister X's console (or scan its QR code) again"); return; }
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = () => ws.send(JSON.stringify({ t: "key", k: key }));
    ws.onmessage = (e) => handle(JSON.parse(e.data));
    ws.onclose = (e) => {
      if (e.code === 4403) {  // the server refused this link's key (an old link, a game resumed since): no retry
        $("status").textContent = tr("this link's key is refused: open the link printed on Mister X's console (or scan its QR code) again");
        return;
      }
      $("status").textContent = tr("connection lost, retrying…"); setTimeout(connect, 1000);
    };
  }
  function send(msg) {
    msg.id = nextId++; yard.sent++;
    ws.send(JSON.stringify(msg));
    return new Promise((resolve) => { pending[msg.id] = resolve; });
  }
  yard.send = send;
  function handle(m) {
    if (m.t === "hello") { yard.map = m.map; yard.colours = m.colours; stationEls = YardMap.draw(m.map, $("edges"), $("halos"), $("stations")); fitted = ""; if (yard.state) render(); }
    else if (m.t === "state") { yard.state = m; render(); }
    else if (m.t === "done") {
      yard.replies.push(m);
      if (!m.ok) showNotice(m.error, true);
      const r = pending[m.id]; delete pending[m.id]; if (r) r(m);
    }
  }
  yard.stationXY = (s) => YardMap.stationXY(svg, stationEls[s]);

  // --- what he may click now --------------------------------------------------------------------
  function myTurn() { const m = yard.state; return !!(m && m.game && m.game.phase === "mrx" && m.asking !== null); }
  function targets() {
    // {station: [tickets]} of the step he is choosing
    const g = yard.state.game, out = {};
    if (!myTurn()) return out;
    if (!doubleMode) return Object.assign(out, g.legal);
    for (const [t1, s1, t2, s2] of g.doubles) {
      if (!first) (out[s1] = out[s1] || []).includes(t1) || out[s1].push(t1);
      else if (first[0] === t1 && first[1] === s1) (out[s2] = out[s2] || []).includes(t2) || out[s2].push(t2);
    }
    return out;
  }
  yard.targets = () => (yard.state ? targets() : {});

  // --- drawing ----------------------------------------------------------------------------------
  function render() {
    const m = yard.state, g = m.game;
    if (!g || !yard.map) return;
    if (!myTurn()) { doubleMode = false; first = null; asked = null; }
    if (!g.doubles.length && doubleMode) { doubleMode = false; first = null; }
    const tg = targets();
    for (const s in stationEls) {
      const e = stationEls[s], ts = tg[s];
      const cls = ["st"];
      if (+s === g.mrx && !(first && doubleMode)) cls.push("here");
      if ((first && +s === first[1]) || +s === asked) cls.push("picked");
      if (ts) cls.push("legal", ts[0]);
      e.g.setAttribute("class", cls.join(" "));
      e.halo.setAttribute("fill", ts ? TICKET_COLOUR[ts[0]] : "none");
      e.halo.setAttribute("opacity", ts ? 0.45 : 0);
      e.g.querySelectorAll(".tkdots").forEach((d) => d.remove());
      if (ts && ts.length > 1) {
        const d = el("g", { class: "tkdots" }, e.g);
        ts.forEach((t, i) => el("circle", { cx: -14 + 9 * i, cy: 20, r: 5, fill: TICKET_COLOUR[t] }, d));
      }
    }
    pieces(g);
    maybe(g);
    status(g, m);
    moveBox(g, m, tg);
    travelLog(g);
    gameInfo(g);
    tickets(g);
    said(m.said || []);
    consent(m);
    fit(g, tg);
  }
  // a detective asks to take back a move the game has answered: only he may allow it (the console
  // asks the same at the terminal; either answer goes to the board through the console)
  function consent(m) {
    const q = m.question, box = $("consent");
    const open = !!(q && q.kind === "consent" && m.asking !== null);
    box.hidden = !open;
    if (!open) return;
    $("consentq").textContent = tr("%(piece)s asks to take back its move to %(station)s, a station you could have been on. " +
                                   "They already know you are not there. Allow it?", { piece: q.piece, station: q.station });
  }
  function answer(allow) { $("consent").hidden = true; send({ do: "consent", allow: allow }); }
  function pieces(g) {
    const layer = $("pieces"); layer.textContent = "";
    g.pieces.forEach((p, i) => {
      const e = stationEls[p.station]; if (!e) return;
      const pg = el("g", { class: "pc", "data-piece": p.name, transform: `translate(${e.x + 21},${e.y - 21})` }, layer);
      el("circle", { r: 17, fill: (yard.colours || {})[p.name] || "#557", stroke: "#fff", "stroke-width": 3 }, pg);
      el("text", {}, pg).textContent = p.name;
    });
    const at = doubleMode && first ? first[1] : g.mrx, e = stationEls[at];
    if (e) {
      const x = el("g", { class: "mx", "data-piece": "X", transform: `translate(${e.x - 21},${e.y - 21})` }, layer);
      el("circle", { r: 17 }, x); el("text", {}, x).textContent = "X";
    }
  }
  function maybe(g) {
    const layer = $("maybe"); layer.textContent = "";
    if (!$("maybebox").checked) return;
    for (const s of g.candidates || []) { const e = stationEls[s]; if (e) el("circle", { cx: e.x, cy: e.y, r: 23 }, layer); }
  }
  const WHY = { capture: tr("a detective caught you"), mrx_stuck: tr("you could not move"),
                detectives_stuck: tr("no detective could move") };
  function resultText(g) {
    if (g.result === "mrx") {
      return g.reason === "rounds_done" ? tr("You win: hidden for all %s rounds", [g.rounds]) : tr("You win: %s", [WHY[g.reason] || g.reason]);
    }
    return tr("The detectives win: %s", [WHY[g.reason] || g.reason]);
  }
  function status(g, m) {
    let t;
    if (g.phase === "over") t = resultText(g);
    else if (g.phase === "mrx") {
      t = (m.asking !== null ? tr("Your move") : tr("Your turn (the console is busy…)")) + " · " +
        tr("round %(round)s of %(rounds)s", { round: g.round + 1, rounds: g.rounds });
    } else {
      t = tr("Detectives' turn (round %(round)s): %(pieces)s to move",
             { round: g.round, pieces: g.pieces.filter((p) => p.to_move).map((p) => p.name).join(", ") });
    }
    if (g.phase !== "over") t += " · " + (g.next_reveal ? tr("you surface after move %s", [g.next_reveal]) : tr("no more surfacing"));
    $("status").textContent = t;
    $("banner").hidden = g.phase !== "over";
    if (g.phase === "over") $("banner").textContent = resultText(g);
  }
  function moveBox(g, m, tg) {
    const n = Object.keys(tg).length;
    let h;
    if (g.phase === "over") h = tr("The game is over.");
    else if (!myTurn()) h = tr("Wait for the detectives.");
    else if (doubleMode && !first) h = tr("Double move: tap your first station (%s lit).", [n]);
    else if (doubleMode) {
      h = tr("Double move: %(ticket)s to %(station)s, now tap your second station (%(lit)s lit).",
             { ticket: TICKET_LABEL[first[0]] || first[0], station: first[1], lit: n });
    } else {
      h = tr("You are on %(station)s. Tap a lit station to move (%(lit)s lit; the ring's colour and its dots name the ticket).",
             { station: "<b>" + g.mrx + "</b>", lit: n });
    }
    $("movehint").innerHTML = h;
    const dbl = $("double");
    dbl.hidden = !myTurn() || !g.doubles.length;
    dbl.textContent = tr("double move (%s left)", [g.tickets.double]);
    dbl.setAttribute("aria-pressed", doubleMode ? "true" : "false");
    $("cancel").hidden = !(first || asked);
    $("takeback").hidden = !(myTurn() && g.can_take_back);
    $("done").hidden = !(g.phase === "over" && m.asking !== null);
    if (asked && !(tg[asked] || []).length) asked = null;
    chooser(tg);
  }
  function chooser(tg) {
    const box = $("choose");
    box.hidden = !asked; box.textContent = "";
    if (!asked) return;
    const p = document.createElement("p"); p.textContent = tr("To %s by which ticket?", [asked]); box.appendChild(p);
    for (const t of tg[asked]) {
      const b = document.createElement("button");
      b.className = "tk " + t; b.dataset.ticket = t; b.textContent = TICKET_LABEL[t];
      b.addEventListener("click", () => pick(t, asked));
      box.appendChild(b);
    }
  }
  function travelLog(g) {
    const strip = $("logstrip"), log = g.log, n = Math.max(g.rounds, log.length);
    let html = "";
    for (let i = 0; i < n; i++) {
      const e = log[i], cls = ["cell"];
      if (g.reveals.includes(i + 1)) cls.push("reveal");
      if (e) cls.push(e.ticket, e.shown ? "shown" : "hidden");
      else if (i === log.length && g.phase !== "over") cls.push("next");
      const inner = e ? `<b>${e.station}</b>` + (e.double ? "·2×" : "") : "";
      const title = tr("move %s", [i + 1]) + (e ? ": " + tr("%(ticket)s to %(station)s", { ticket: TICKET_LABEL[e.ticket] || e.ticket, station: e.station }) +
        (e.shown ? " " + tr("(you surfaced)") : "") : (g.reveals.includes(i + 1) ? " " + tr("(you surface)") : ""));
      html += `<div class="${cls.join(" ")}" title="${title}"><span class="n">${i + 1}</span>${inner}</div>`;
    }
    strip.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
    strip.innerHTML = html;
  }
  function gameInfo(g) {
    const lastShown = [...g.log].reverse().find((e) => e.shown);
    const nxt = g.next_reveal ? tr("after move %(move)s (in %(left)s)", { move: g.next_reveal, left: g.next_reveal - g.moves }) : tr("none left");
    const over = g.phase === "over";
    const rows = [[tr("Your station"), g.mrx], [tr("Started on"), g.start],
      [tr("Moves made"), tr("%(moves)s of %(rounds)s", { moves: g.moves, rounds: g.rounds })],
      [tr("Next surfacing"), over ? "—" : nxt], [tr("Last seen by them"), lastShown ? lastShown.station : tr("never")],
      [tr("They think you may be on"), over ? "—" : trn("%s station", "%s stations", g.candidates.length)]];
    $("gameinfo").innerHTML = rows.map(([k, v]) => `<div><span>${k}</span><b>${v}</b></div>`).join("")
      + (g.candidates.length && g.candidates.length <= 30 ? `<div class="hint" id="maybelist">${g.candidates.join(" ")}</div>` : "");
  }
  function tickets(g) {
    const head = ["", tr("taxi"), tr("bus"), tr("ug"), tr("at")];
    let h = "<tr>" + head.map((k) => "<th>" + k + "</th>").join("") + "</tr>";
    const you = [tr("You"), tr("black"), tr("double")];
    h += `<tr class="you"><td>${you[0]}</td><td colspan="3">${you[1]} ${g.tickets.black} · ${you[2]} ${g.tickets.double}</td><td>${g.mrx}</td></tr>`;
    g.pieces.forEach((p, i) => {
      const dot = `<i class="dot" style="background:${(yard.colours || {})[p.name] || "#557"}"></i>`;
      const t = p.tickets ? `<td>${p.tickets.taxi}</td><td>${p.tickets.bus}</td><td>${p.tickets.underground}</td>`
                          : "<td colspan=\"3\">" + (p.bobby ? tr("Bobby") : tr("shares %s's tickets", [p.shares])) + "</td>";
      h += `<tr data-piece="${p.name}"><td>${dot}${p.name}</td>${t}<td>${p.station}</td></tr>`;
    });
    h += `<tr><td>supply</td><td>${g.supply.taxi}</td><td>${g.supply.bus}</td><td>${g.supply.underground}</td><td></td></tr>`;
    $("tickets").innerHTML = h;
  }
  let noticeShown = 0;
  function said(lines) {
    const ul = $("said"); ul.textContent = "";
    for (const l of lines.slice(-14)) {
      const li = document.createElement("li"); li.textContent = l.text;
      if (/^(\?|refused)/.test(l.text)) li.className = "bad";
      if (/taken back|withdrawn/.test(l.text)) li.className = "back";
      ul.appendChild(li);
    }
    ul.scrollTop = ul.scrollHeight;
    const back = [...lines].reverse().find((l) => /taken back|withdrawn/.test(l.text));
    if (back && back.n > noticeShown) { noticeShown = back.n; showNotice(tr("Take-back: %s", [back.text.trim()])); }
  }
  function showNotice(text, bad) {
    const n = $("notice"); n.hidden = false; n.textContent = text; n.className = bad ? "bad" : "";
    clearTimeout(showNotice.t); showNotice.t = setTimeout(() => { n.hidden = true; }, 12000);
  }
  // phones: the map around him (his station and where he may go), big enough to tap
  function fit(g, tg) {
    let box = FULL;
    if (zoomed) {
      const ss = Object.keys(tg).map(Number).concat([g.mrx]).concat(first ? [first[1]] : []);
      let x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
      for (const s of ss) { const e = stationEls[s]; if (!e) continue; x0 = Math.min(x0, e.x); y0 = Math.min(y0, e.y); x1 = Math.max(x1, e.x); y1 = Math.max(y1, e.y); }
      // the box takes the shape of the map's frame on the screen, and stays on the map
      const aspect = (svg.clientWidth || 1) / (svg.clientHeight || 1);
      let w = Math.max(x1 - x0 + 120, 420), h = Math.max(y1 - y0 + 120, 380);
      if (w / h < aspect) w = h * aspect; else h = w / aspect;
      w = Math.min(w, FULL[2]); h = Math.min(h, FULL[3]);
      const cx = Math.min(Math.max((x0 + x1) / 2, FULL[0] + w / 2), FULL[0] + FULL[2] - w / 2);
      const cy = Math.min(Math.max((y0 + y1) / 2, FULL[1] + h / 2), FULL[1] + FULL[3] - h / 2);
      box = [cx - w / 2, cy - h / 2, w, h];
    }
    const key = box.map(Math.round).join(" ");
    if (key !== fitted) { fitted = key; svg.setAttribute("viewBox", key); }
    $("zoom").textContent = zoomed ? "whole map" : "around me";
  }

  // --- moving -----------------------------------------------------------------------------------
  function pick(t, s) {
    asked = null;
    if (doubleMode && !first) { first = [t, s]; render(); return; }
    if (doubleMode) { const f = first; first = null; doubleMode = false; send({ do: "double", steps: [f, [t, s]] }); render(); return; }
    send({ do: "move", ticket: t, station: s }); render();
  }
  yard.pick = pick;
  svg.addEventListener("click", (ev) => {
    if (!yard.state || !myTurn()) return;
    const s = YardMap.stationAt(svg, stationEls, ev.clientX, ev.clientY);
    const ts = s && targets()[s];
    if (!ts) return;
    if (ts.length === 1) pick(ts[0], s); else { asked = s; render(); }
  });
  $("double").addEventListener("click", () => { doubleMode = !doubleMode; first = null; asked = null; render(); });
  $("cancel").addEventListener("click", () => { first = null; asked = null; render(); });
  $("takeback").addEventListener("click", () => send({ do: "undo" }));
  $("allow").addEventListener("click", () => answer(true));
  $("refuse").addEventListener("click", () => answer(false));
  $("done").addEventListener("click", () => send({ do: "done" }));
  $("zoom").addEventListener("click", () => { zoomed = !zoomed; render(); });
  $("maybebox").addEventListener("change", () => yard.state && render());
  connect();
})();
