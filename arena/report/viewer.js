// arena report: the game viewer. Reads the games embedded as JSON (#viewer-data), lists those
// of the chosen bot and role, and steps through one: the last move outlined, the opening's marks
// dimmed, and on the final board the winning five (or "full board") as in `arena replay`; with
// the game's time control in its header and, for each ply, the time the mover used and, under a
// clock, both clocks after it (as `arena replay` prints them). A "watch" link elsewhere on the
// page (data-view: a game's number) opens that game here.
// Every bot-controlled string reaches the page through textContent, never as markup.
(function () {
  "use strict";
  var LIST_MAX = 1000;
  var REASONS = {
    five: "five in a row",
    full: "full board",
    timeout: "timeout",
    illegal: "illegal move",
    malformed: "malformed reply",
    crash: "crash",
    startup: "no start-up"
  };
  var data = JSON.parse(document.getElementById("viewer-data").textContent);
  var names = data.names;
  // [number, order, chaos, winner, reason, opening, moves, win, detail, times, measure(, clock)]
  // clock (only under a game clock): [start, increment or null, clock after each bot move]
  var games = data.games;
  function $(id) { return document.getElementById(id); }
  var bot = $("v-bot"), role = $("v-role"), pick = $("v-game"), boardEl = $("v-board");
  var cells = [];
  var game = null;
  var ply = 0;

  function cellName(cell) { return "abcdef".charAt(cell % 6) + String(Math.floor(cell / 6) + 1); }
  function token(code) { return cellName(code >> 1) + ((code & 1) ? "O" : "X"); }

  function buildBoard() {
    var corner = document.createElement("div");
    corner.className = "coord";
    boardEl.appendChild(corner);
    for (var c = 0; c < 6; c++) {
      var head = document.createElement("div");
      head.className = "coord";
      head.textContent = "abcdef".charAt(c);
      boardEl.appendChild(head);
    }
    for (var r = 0; r < 6; r++) {
      var side = document.createElement("div");
      side.className = "coord";
      side.textContent = String(r + 1);
      boardEl.appendChild(side);
      for (var k = 0; k < 6; k++) {
        var cell = document.createElement("div");
        cell.className = "cell";
        cell.setAttribute("data-cell", cellName(6 * r + k));
        boardEl.appendChild(cell);
        cells.push(cell);
      }
    }
  }

  function matches(g) {
    if (bot.value === "") { return true; }
    var i = Number(bot.value);
    if (role.value === "order") { return g[1] === i; }
    if (role.value === "chaos") { return g[2] === i; }
    return g[1] === i || g[2] === i;
  }

  function timeControl(g) {
    var clock = g[11];
    if (!clock) { return "time per move (" + g[10] + ")"; }
    return "clock " + clock[0] + (clock[1] === null ? "" : "+" + clock[1]) + " ms (" + g[10] + ")";
  }

  // Clocks are whole ms in the data: shown to the ms, so that no second rounding moves them.
  function seconds(ms) { return (ms / 1000).toFixed(3) + " s"; }

  // Order's and Chaos's clocks after `ply` plies (a clock that has not run yet: its start).
  function clocksAfter(g, ply) {
    var clock = g[11];
    var clocks = [clock[0], clock[0]];
    var first = g[5] & 1; // 0: Order moved first
    var moved = Math.min(ply - g[5], clock[2].length);
    for (var i = 0; i < moved; i++) { clocks[(first + i) & 1] = clock[2][i]; }
    return clocks;
  }

  // What the last ply's mover used and, under a clock, both clocks after it.
  function timeText(g, ply) {
    var text = "";
    var k = ply - 1 - g[5]; // the last ply among the bots' own moves
    if (k >= 0 && k < g[9].length) {
      text = ((ply - 1) % 2 === 0 ? "Order" : "Chaos") + " used " + g[9][k].toFixed(1) + " ms";
      if (g[10] !== "wall") { text += " (" + g[10] + ")"; }
    }
    if (g[11]) {
      var clocks = clocksAfter(g, ply);
      text += (text ? "; clocks: " : "clocks: ") + "Order " + seconds(clocks[0]) + ", Chaos " +
        seconds(clocks[1]);
    }
    return text;
  }

  function describe(g) {
    return "#" + g[0] + " " + names[g[1]] + " (Order) vs " + names[g[2]] + " (Chaos): " +
      (g[3] === 0 ? "Order" : "Chaos") + " won, " + (REASONS[g[4]] || g[4]) + ", " +
      g[6].length + " plies";
  }

  function result(g) {
    var winner = g[3] === 0 ? "Order" : "Chaos";
    var text = winner + " (" + names[g[3] === 0 ? g[1] : g[2]] + ") won: " + (REASONS[g[4]] || g[4]);
    if (g[4] === "five" && g[7].length) {
      text += " (" + g[7].map(cellName).join(" ") + ")";
    } else if (g[4] !== "five" && g[4] !== "full") {
      var loser = g[3] === 0 ? "Chaos" : "Order";
      text += " by " + loser + " (" + names[g[3] === 0 ? g[2] : g[1]] + ")";
      if (g[8]) { text += ": " + g[8]; }
    }
    return text;
  }

  function draw() {
    var moves = game ? game[6] : [];
    var n = moves.length;
    var marks = {};
    for (var i = 0; i < ply; i++) { marks[moves[i] >> 1] = i; }
    var win = {};
    if (game && ply === n) { game[7].forEach(function (c) { win[c] = true; }); }
    var last = ply > 0 ? moves[ply - 1] >> 1 : -1;
    cells.forEach(function (el, c) {
      var at = marks[c];
      el.textContent = at === undefined ? "" : ((moves[at] & 1) ? "O" : "X");
      var cls = "cell";
      if (at !== undefined && at < game[5]) { cls += " opening"; }
      if (c === last) { cls += " last"; }
      if (win[c]) { cls += " win"; }
      el.className = cls;
    });
    $("v-ply").textContent = game ? "ply " + ply + " / " + n : "no game";
    $("v-first").disabled = $("v-prev").disabled = !game || ply === 0;
    $("v-next").disabled = $("v-last").disabled = !game || ply === n;
    var status = "";
    if (game) {
      if (ply > 0) {
        var who = ply - 1 < game[5] ? "opening" : (((ply - 1) % 2 === 0) ? "Order" : "Chaos");
        status = "last move: " + token(moves[ply - 1]) + " (" + who + "). ";
      }
      status += ply === n ? result(game) : ((ply % 2 === 0 ? "Order" : "Chaos") + " to move.");
    }
    $("v-status").textContent = status;
    $("v-status").className = game && ply === n ? "final" : "";
    $("v-time").textContent = game ? timeText(game, ply) : "";
  }

  function load(k) {
    game = games[k];
    ply = 0;
    $("v-head").textContent = describe(game) + "; " + timeControl(game);
    draw();
  }

  function fill() {
    pick.textContent = "";
    var count = 0;
    for (var k = 0; k < games.length; k++) {
      var g = games[k];
      if (!matches(g)) { continue; }
      count++;
      if (count > LIST_MAX) { continue; }
      var option = document.createElement("option");
      option.value = String(k);
      option.textContent = describe(g);
      pick.appendChild(option);
    }
    var note = count + " game" + (count === 1 ? "" : "s");
    if (count > LIST_MAX) { note += " (the first " + LIST_MAX + " listed: choose a bot)"; }
    $("v-count").textContent = note;
    if (count) {
      pick.selectedIndex = 0;
      load(Number(pick.value));
    } else {
      game = null;
      ply = 0;
      $("v-head").textContent = "";
      draw();
    }
  }

  function step(to) {
    if (!game) { return; }
    ply = Math.max(0, Math.min(game[6].length, to));
    draw();
  }

  // A game's "watch" link (the games table): its Order bot's games listed, the game loaded.
  function show(number) {
    for (var k = 0; k < games.length; k++) {
      if (games[k][0] !== number) { continue; }
      bot.value = String(games[k][1]);
      role.value = "order";
      fill();
      pick.value = String(k);
      load(k);
      return;
    }
  }

  names.forEach(function (name, i) {
    var option = document.createElement("option");
    option.value = String(i);
    option.textContent = name;
    bot.appendChild(option);
  });
  buildBoard();
  bot.addEventListener("change", fill);
  role.addEventListener("change", fill);
  pick.addEventListener("change", function () { load(Number(pick.value)); });
  $("v-first").addEventListener("click", function () { step(0); });
  $("v-prev").addEventListener("click", function () { step(ply - 1); });
  $("v-next").addEventListener("click", function () { step(ply + 1); });
  $("v-last").addEventListener("click", function () { step(game ? game[6].length : 0); });
  document.addEventListener("click", function (event) {
    var link = event.target.closest("[data-view]");
    if (link) { show(Number(link.getAttribute("data-view"))); }
  });
  document.addEventListener("keydown", function (event) {
    if (!game || event.target.tagName === "SELECT" || event.target.tagName === "INPUT") { return; }
    var moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: game[6].length };
    if (event.key in moves) {
      step(moves[event.key]);
      event.preventDefault();
    }
  });
  fill();
})();
