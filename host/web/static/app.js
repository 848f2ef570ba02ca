// The simulated board's page. It draws what the server sends: LED colours from the firmware's
// frame, the public game from the board's journal. It never computes a colour or a rule itself:
// a click becomes a lift or a placement (reed changes), and the board answers with its LEDs.
"use strict";
(function () {
  const svg = document.getElementById("board");
  const $ = (id) => document.getElementById(id);
  const UNLIT = YardMap.UNLIT;
  const TICKET_CLASS = { taxi: "taxi", bus: "bus", underground: "underground", black: "black" };

  const yard = window.yard = {
    frames: 0, lastFrame: null, state: null, map: null, gain: 4, colours: {}, sent: 0,
    stationXY: null, colour: (s) => yard.colours[s],
  };
  let ws = null, nextId = 1, pending = {};
  let stationEls = {}, pieceLayer = $("pieces"), ghost = $("ghost");
  let selected = null;      // a piece in hand, ready to be placed by a station click
  let mode = null, modeFirst = null;  // armed fault
  let drag = null;
  let pressOnPiece = false; // the click that ends a press on a piece is not a station click
  window.addEventListener("pointerdown", () => { pressOnPiece = false; }, true);

  // --- connection -----------------------------------------------------------------------------
  // the server writes its token into the page; actions without it are refused (another site's page cannot read it)
  const tokenMeta = document.querySelector('meta[name="yard-token"]');
  const token = tokenMeta ? tokenMeta.content : "";
  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws?token="
                       + encodeURIComponent(token));
    ws.onmessage = (e) => handle(JSON.parse(e.data));
    ws.onclose = () => { $("status").textContent = t("connection lost, retrying…"); setTimeout(connect, 800); };
  }
  function send(msg) {
    msg.id = nextId++;
    yard.sent++;
    ws.send(JSON.stringify(msg));
    return new Promise((resolve) => { pending[msg.id] = resolve; });
  }
  yard.send = send;
  function handle(m) {
    if (m.t === "hello") {
      yard.map = m.map; yard.gain = m.gain; yard.patterns = !!m.patterns;
      $("gain").textContent = (+m.gain).toFixed(0);
      rhythmLegend(yard.patterns);
      drawMap(m.map);
    }
    else if (m.t === "frame") frame(m);
    else if (m.t === "state") state(m);
    else if (m.t === "done") {
      if (!m.ok) note({ note: "page", message: m.error }, true);
      const r = pending[m.id]; delete pending[m.id]; if (r) r(m);
    }
  }

  // the legend names the LEDs' rhythms only on a board that has them (board.json leds.patterns)
  function rhythmLegend(on) {
    for (const e of document.querySelectorAll("#legendbar [data-rhythms]")) e.hidden = (e.dataset.rhythms === "on") !== on;
  }

  // --- the map --------------------------------------------------------------------------------
  const el = YardMap.el, rgb = YardMap.rgb;
  function drawMap(map) {
    stationEls = YardMap.draw(map, $("edges"), $("halos"), $("stations"));
    if (yard.state) state(yard.state);
    if (yard.lastFrame) frame(yard.lastFrame);
  }
  yard.stationXY = (s) => YardMap.stationXY(svg, stationEls[s]);
  const toMap = (cx, cy) => YardMap.toMap(svg, cx, cy);
  const stationAt = (cx, cy) => YardMap.stationAt(svg, stationEls, cx, cy);

  // --- LEDs: the firmware's frame ---------------------------------------------------------------
  function frame(m) {
    yard.lastFrame = m; yard.frames++;
    yard.frameRecvAt = performance.now();
    const hex = m.leds, gain = yard.gain;
    for (let s = 1; s <= 199; s++) {
      const e = stationEls[s]; if (!e) continue;
      const k = 6 * (s - 1), key = hex.substr(k, 6);
      if (key === e.key) continue;
      e.key = key;
      const led = [0, 2, 4].map((i) => Math.min(255, Math.round(parseInt(key.substr(i, 2), 16) * gain)));
      const a = Math.min(1, Math.max(led[0], led[1], led[2]) / 160);
      // a dark LED shows the printed station; a lit one its own colour, full at full brightness
      const shown = led.map((v, i) => Math.min(255, Math.round(UNLIT[i] * (1 - a) + v)));
      yard.colours[s] = shown;
      e.disc.setAttribute("fill", rgb(shown));
      e.halo.setAttribute("fill", rgb(led));
      e.halo.setAttribute("opacity", (0.55 * a).toFixed(2));
      const lum = 0.3 * shown[0] + 0.59 * shown[1] + 0.11 * shown[2];
      e.text.setAttribute("fill", lum < 110 ? "#fff" : "#111");
    }
  }

  // --- the public game and the pieces ---------------------------------------------------------
  function state(m) {
    yard.state = m;
    const g = m.game || {};
    $("power").className = m.power ? "on" : "off";
    $("power").textContent = m.power ? t("board on") : t("board OFF");
    statusLine(g, m);
    gameInfo(g);
    travelLog(g);
    tickets(g);
    pieces(m);
    notes(m.notes || []);
    takeBacks(g);
    helpLayer(g);
    for (const s in stationEls) stationEls[s].g.classList.toggle("stuck", (m.stuck || {})[s] !== undefined);
    for (const s in stationEls) stationEls[s].g.classList.toggle("dead", (m.dead || []).includes(+s));
  }
  const PHASE = { mrx: t("Mister X's turn"), detectives: t("detectives' turn"), over: t("game over") };
  function statusLine(g, m) {
    let text;
    if (!m.power) text = t("Power cut: the board is off. Pieces moved now are checked when it restarts.");
    else if (g.stage === "idle" || !g.stage) text = t("No game on the board yet (Mister X's console sets one up).");
    else if (g.stage === "setup") text = t("Setup: put every piece on its start station.");
    else if (g.stage === "over") text = resultText(g);
    else {
      text = t("Round %(round)s of %(rounds)s · %(phase)s", { round: Math.max(g.round, 1), rounds: g.rounds, phase: PHASE[g.phase] });
      if (g.phase === "detectives") text += ": " + g.pieces.filter((p) => p.to_move).map((p) => p.name).join(", ");
      if (g.next_reveal) text += " · " + t("Mister X surfaces after move %(move)s", { move: g.next_reveal });
    }
    $("status").textContent = text;
    const b = $("banner");
    b.hidden = g.stage !== "over";
    if (g.stage === "over") b.textContent = resultText(g);
  }
  function resultText(g) {
    const why = { capture: t("Mister X caught"), mrx_stuck: t("Mister X cannot move"),
                  rounds_done: t("all %(rounds)s rounds played", { rounds: g.rounds }),
                  detectives_stuck: t("no detective can move") }[g.reason] || g.reason;
    let text = (g.result === "detectives" ? t("Detectives win: %s", [why]) : t("Mister X wins: %s", [why]));
    if (g.caught_at) text += " " + t("on station %s", [g.caught_at]);
    return text;
  }
  function gameInfo(g) {
    const box = $("gameinfo");
    if (!g.stage || g.stage === "idle") { box.innerHTML = "<div>" + t("no game") + "</div>"; return; }
    const rows = [[t("Round"), `${g.round} / ${g.rounds}`], [t("Turn"), PHASE[g.phase] || g.phase],
      [t("Mister X's moves"), g.moves],
      [t("Next surfacing"), g.next_reveal ? t("after move %s", [g.next_reveal]) : t("none left")],
      [t("Last seen"), lastSeen(g)],
      [t("Where he may be"), g.candidates ? tn("%s station", "%s stations", g.candidates.length) : "—"]];
    box.innerHTML = rows.map(([k, v]) => `<div><span>${k}</span><b>${v}</b></div>`).join("");
    if (g.stage === "over") {
      let r = resultText(g);
      if (g.verified) r += " · " + (g.verified.ok ? t("Mister X's log verified ✔") : t("log check FAILED: %s", [refusal(g.verified)]));
      box.insertAdjacentHTML("beforeend", `<span class="res" id="result">${r}</span>`);
    }
    if (g.problem) box.insertAdjacentHTML("beforeend", `<span class="res">${g.problem}</span>`);
  }
  function lastSeen(g) {
    for (let i = (g.log || []).length - 1; i >= 0; i--) {
      if (g.log[i].station) return t("station %(station)s (move %(move)s)", { station: g.log[i].station, move: i + 1 });
    }
    return t("not yet");
  }
  function travelLog(g) {
    const strip = $("logstrip"), log = g.log || [], reveals = g.reveals || [3, 8, 13, 18, 24];
    const n = Math.max(24, log.length);
    let html = "";
    for (let i = 0; i < n; i++) {
      const e = log[i], cls = ["cell"];
      if (reveals.includes(i + 1)) cls.push("reveal");
      if (e) cls.push(TICKET_CLASS[e.ticket]);
      else if (i === log.length && g.stage === "play") cls.push("next");
      const inner = e ? (e.station ? `<b>${e.station}</b>` : (e.ticket === "underground" ? "UG" : e.ticket)) + (e.double ? "·2×" : "") : "";
      html += `<div class="${cls.join(" ")}" title="move ${i + 1}${e ? ": " + e.ticket : ""}"><span class="n">${i + 1}</span>${inner}</div>`;
    }
    strip.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
    strip.innerHTML = html;
  }
  function tickets(g) {
    const table = $("tickets");
    if (!g.tickets) { table.innerHTML = ""; return; }
    const col = {}; for (const p of (yard.state.pieces || [])) col[p.name] = p.colour;
    let rows = g.tickets;
    if (g.shared_tickets) rows = [Object.assign({}, rows[0], { name: rows.map((r) => r.name).join("+") + " " + t("(shared)") })];
    const head = [t("detective"), t("taxi"), t("bus"), t("ug")];
    let h = "<tr>" + head.map((k) => "<th>" + k + "</th>").join("") + "</tr>";
    for (const r of rows) {
      const dot = col[r.name] ? `<i class="dot" style="background:${col[r.name]}"></i>` : "";
      h += `<tr><td>${dot}${r.name}</td><td>${r.taxi}</td><td>${r.bus}</td><td>${r.underground}</td></tr>`;
    }
    const mrx = [t("Mister X"), t("black"), t("double")];
    h += `<tr><td>${mrx[0]}</td><td colspan="3">${mrx[1]} ${g.mrx_tickets.black} · ${mrx[2]} ${g.mrx_tickets.double}</td></tr>`;
    table.innerHTML = h;
  }
  function helpLayer(g) {
    const layer = $("help"); layer.textContent = "";
    if (!$("helpbox").checked || !g.candidates || !yard.map) return;
    for (const s of g.candidates) { const [x, y] = yard.map.stations[s]; el("circle", { cx: x, cy: y, r: 22 }, layer); }
  }
  $("helpbox").addEventListener("change", () => yard.state && helpLayer(yard.state.game || {}));

  function pieces(m) {
    pieceLayer.textContent = "";
    const hand = $("hand"); hand.textContent = "";
    const game = m.game || {};
    let inHand = 0;
    for (const p of m.pieces || []) {
      if (p.station) {
        const e = stationEls[p.station]; if (!e) continue;
        const g = el("g", { class: "pc" + (selected === p.name ? " sel" : ""), "data-piece": p.name,
                            transform: `translate(${e.x + (e.x > 1590 ? -21 : 21)},${e.y + (e.y < 45 ? 21 : -21)})` }, pieceLayer);
        el("circle", { r: 17, fill: p.colour, stroke: "#fff", "stroke-width": 3 }, g);
        el("text", {}, g).textContent = p.name;
        g.addEventListener("pointerdown", (ev) => pieceDown(ev, p.name));
      } else {
        if (p.name === "X" && !game.surfaced && selected !== "X") continue;  // his piece is needed only when he surfaces
        inHand++;
        const t = document.createElement("div");
        t.className = "token" + (selected === p.name ? " sel" : "");
        t.style.background = p.colour; t.textContent = p.name; t.dataset.piece = p.name;
        t.title = p.name === "X" ? window.t("Mister X's piece: put it on his surfacing station") : window.t("click, then click a station (or drag)");
        t.addEventListener("pointerdown", (ev) => tokenDown(ev, p.name));
        hand.appendChild(t);
      }
    }
    if (!inHand) hand.innerHTML = '<span class="empty">' + t("every piece is on the board") + '</span>';
    $("setup-btn").hidden = !(game.stage === "setup" && inHand);
  }
  function notes(list) {
    const ul = $("notes"); ul.textContent = "";
    const all = list.concat(pageNotes).sort((a, b) => b.at - a.at || (b.n || 0) - (a.n || 0)).slice(0, 8);
    for (const n of all) {
      const li = document.createElement("li");
      li.textContent = noteText(n);
      if (n.note === "illegal" || n.note === "page") li.className = "bad";
      if (n.note === "choose") li.className = "ask";
      ul.appendChild(li);
    }
    const last = list[list.length - 1];
    const want = last && last.note === "choose" ? last.tickets : [];
    document.querySelectorAll(".tk").forEach((b) => b.classList.toggle("want", want.includes(b.dataset.button)));
  }
  // every take-back of the game, from the board's journal (public: the piece, where it had gone, and
  // whether Mister X had to consent), latest first: a take-back is never made unseen
  function takeBacks(g) {
    const ul = $("takebacks"); ul.textContent = "";
    for (const b of (g.take_backs || []).slice().reverse()) {
      const li = document.createElement("li");
      const values = { round: b.round, piece: b.piece, station: b.station };
      li.textContent = b.consent ? t("Round %(round)s: %(piece)s's move to %(station)s taken back, with Mister X's consent", values)
                                 : t("Round %(round)s: %(piece)s's move to %(station)s taken back", values);
      li.className = b.consent ? "back consent" : "back";
      ul.appendChild(li);
    }
  }
  let pageNotes = [];
  function note(n, mine) { n.at = Date.now() / 1000; pageNotes.push(n); pageNotes = pageNotes.slice(-4); if (yard.state) notes(yard.state.notes || []); }
  // the board's codes worded in the page's language (host/refusals.py): the detail's sentence, else
  // the code's, else (a newer board's code) the codes and values as they came
  function refusal(n) {
    const args = Array.isArray(n.args) ? n.args : [];
    const detail = (window.I18N_REFUSAL_DETAILS || {})[n.why];
    if (detail && detail[1].length === args.length) {
      const values = {};
      detail[1].forEach((name, i) => { values[name] = name === "ticket" ? t(String(args[i])) : args[i]; });
      return t(detail[0], values);
    }
    const msgid = (window.I18N_REFUSALS || {})[n.error];
    if (msgid) return t(msgid);
    if (n.message) return n.message;  // an older board's own sentence
    return t("the board refused (%(code)s)", { code: [n.error, n.why].filter(Boolean).join(" ") + (args.length ? ": " + args.join(", ") : "") });
  }
  function noteText(n) {
    switch (n.note) {
      case "lifted": return tn("%(piece)s lifted from %(station)s: %(count)s legal destination lit",
                               "%(piece)s lifted from %(station)s: %(count)s legal destinations lit", n.legal.length,
                               { piece: n.piece, station: n.station, count: n.legal.length }) +
        (n.confirm ? "; " + t("%(stations)s out of service: put it there, then press confirm", { stations: n.confirm.join(", ") }) : "");
      case "where": return t("%(piece)s went to %(stations)s (out of service)? Mister X's console asks",
                             { piece: n.piece, stations: n.stations.join(t(" or ")) });
      case "illegal": return t("%(piece)s on %(station)s: %(why)s", { piece: n.piece, station: n.station, why: refusal(n) });
      case "choose": return t("%(piece)s on %(station)s: which ticket? press %(buttons)s",
                              { piece: n.piece, station: n.station, buttons: n.tickets.map((k) => t(k)).join(t(" or ")) });
      case "mrx_turn": return t("Mister X's turn (round %s)", [n.round]);
      case "game_over": return t("game over: %(result)s (%(reason)s)", { result: n.result, reason: n.reason });
      case "restored": return t("pieces agree with the saved game again");
      case "back": return t("%(piece)s is back on %(station)s: its move is taken back", { piece: n.piece, station: n.station });
      case "refused": return t("refused: %s", [refusal(n)]);
      case "mrx_piece": return t("Mister X's piece on %s", [n.station]);
      case "page": return n.message;
      case "stopped": return t("the board stopped (Ctrl-C): its REPL is free");
      case "safe_mode": return t("the board started in safe mode: the game does not run, its REPL is free");
      case "config_error": return t("the board cannot use its board.json (%s): the game does not start", [n.key || "board.json"]);
      default: return JSON.stringify(n);
    }
  }

  // --- hands: lift, place, drag ---------------------------------------------------------------
  function pieceDown(ev, name) {
    ev.preventDefault(); ev.stopPropagation();
    pressOnPiece = true;
    if (mode) { faultOnPiece(name); return; }
    send({ do: "lift", piece: name });
    startDrag(ev, name);
  }
  function tokenDown(ev, name) {
    ev.preventDefault();
    if (mode) return;
    startDrag(ev, name);
  }
  function startDrag(ev, name) {
    drag = { name, x: ev.clientX, y: ev.clientY, moved: false };
    const p = (yard.state.pieces || []).find((q) => q.name === name);
    ghost.textContent = "";
    drag.el = el("circle", { r: 17, fill: p ? p.colour : "#888", stroke: "#ffcc00", "stroke-width": 3, opacity: 0, "pointer-events": "none" }, ghost);
  }
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 6) drag.moved = true;
    const p = toMap(ev.clientX, ev.clientY);
    drag.el.setAttribute("cx", p.x); drag.el.setAttribute("cy", p.y); drag.el.setAttribute("opacity", drag.moved ? 0.85 : 0);
  });
  window.addEventListener("pointerup", (ev) => {
    if (!drag) return;
    const d = drag; drag = null; ghost.textContent = "";
    const s = d.moved ? stationAt(ev.clientX, ev.clientY) : null;
    const inside = ev.target && svg.contains(ev.target);
    if (d.moved && s && inside) { selected = null; send({ do: "place", piece: d.name, station: s }); }
    else { selected = d.name; if (yard.state) pieces(yard.state); }
  });
  svg.addEventListener("click", (ev) => {
    if (pressOnPiece) { pressOnPiece = false; return; }
    const s = stationAt(ev.clientX, ev.clientY);
    if (!s) return;
    if (mode) { faultOnStation(s); return; }
    if (selected) { const n = selected; selected = null; send({ do: "place", piece: n, station: s }); return; }
    const on = (yard.state.pieces || []).find((p) => p.station === s);
    if (on) { send({ do: "lift", piece: on.name }); selected = on.name; }
  });
  yard.hands = () => ({ selected, mode, pressOnPiece });
  $("setup-btn").addEventListener("click", () => send({ do: "setup" }));
  document.querySelectorAll("[data-button]").forEach((b) => b.addEventListener("click", () => send({ do: "press", button: b.dataset.button })));
  document.getElementById("takeback").addEventListener("click", () => send({ do: "take_back" }));

  // --- faults ---------------------------------------------------------------------------------
  const FAULT_HINT = {
    chatter: t("Click a station: its reed chatters (bounces faster than the debounce time)."),
    knock: t("Click a piece on the map: it falls off the board."),
    two: t("Click two pieces: both leave the board in the same instant."),
    stuck: t("Click a station: its reed sticks closed (click a stuck one to free it)."),
    reed: t("Click a station: its reed goes out of service, the board works around it (click again: back in service)."),
  };
  function arm(m) {
    mode = mode === m ? null : m; modeFirst = null;
    document.querySelectorAll("[data-fault]").forEach((b) => b.classList.toggle("armed", b.dataset.fault === mode));
    document.body.classList.toggle("mode", !!mode);
    $("faulthint").textContent = mode ? FAULT_HINT[mode] + " " + t("(Esc cancels)") : "";
  }
  document.querySelectorAll("[data-fault]").forEach((b) => b.addEventListener("click", () => {
    const f = b.dataset.fault;
    if (f === "power") { send({ do: "power_cycle" }); return; }
    if (f === "off") { send({ do: "power", on: !(yard.state && yard.state.power) }); return; }
    arm(f);
  }));
  window.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { if (mode) arm(mode); selected = null; yard.state && pieces(yard.state); } });
  function faultOnPiece(name) {
    if (mode === "knock") { send({ do: "knock", piece: name }); arm(mode); }
    else if (mode === "two") {
      if (!modeFirst) { modeFirst = name; $("faulthint").textContent = t("%s chosen; click a second piece.", [name]); }
      else { send({ do: "lift_two", a: modeFirst, b: name }); arm(mode); }
    } else { const p = yard.state.pieces.find((q) => q.name === name); if (p) faultOnStation(p.station); }
  }
  function faultOnStation(s) {
    const on = (yard.state.pieces || []).find((p) => p.station === s);
    if (mode === "chatter") { send({ do: "chatter", station: s }); arm(mode); }
    else if (mode === "stuck") {
      const stuck = (yard.state.stuck || {})[s] !== undefined;
      send({ do: "stuck", station: s, closed: stuck ? null : true }); arm(mode);
    } else if (mode === "reed") {
      send({ do: "reed", station: s, out: !(yard.state.dead || []).includes(s) }); arm(mode);
    } else if (on) faultOnPiece(on.name);
  }

  connect();
})();
