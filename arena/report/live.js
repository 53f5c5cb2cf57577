// arena live page: follows the server's pushed state (server-sent events on /events). The game
// count, the run's progress and the games in progress are drawn from its JSON, every
// bot-controlled string through textContent; the tables and charts are fetched as the server
// renders them (escaped there, as in the report) when they change.
(function () {
  "use strict";
  var STUCK_S = 10;
  var sectionsVersion = null;
  var latest = null;
  function $(id) { return document.getElementById(id); }
  function text(tag, content, cls) {
    var el = document.createElement(tag);
    el.textContent = content;
    if (cls) { el.className = cls; }
    return el;
  }

  function cellIndex(token) {
    return "abcdef".indexOf(token.charAt(0)) + 6 * (Number(token.slice(1, -1)) - 1);
  }

  function board(game) {
    var el = document.createElement("div");
    el.className = "board";
    el.appendChild(text("div", "", "coord"));
    for (var c = 0; c < 6; c++) { el.appendChild(text("div", "abcdef".charAt(c), "coord")); }
    var cells = [];
    for (var r = 0; r < 6; r++) {
      el.appendChild(text("div", String(r + 1), "coord"));
      for (var k = 0; k < 6; k++) {
        var cell = text("div", "", "cell");
        cell.setAttribute("data-cell", "abcdef".charAt(k) + String(r + 1));
        el.appendChild(cell);
        cells.push(cell);
      }
    }
    var marks = game.opening.concat(game.moves);
    marks.forEach(function (token, i) {
      var cell = cells[cellIndex(token)];
      if (!cell) { return; }
      cell.textContent = token.slice(-1);
      if (i < game.opening.length) { cell.classList.add("opening"); }
      if (i === marks.length - 1) { cell.classList.add("last"); }
    });
    return el;
  }

  function label(name, shown) { return shown && shown !== name ? name + " (" + shown + ")" : name; }

  function drawLive(games) {
    var box = $("live-games");
    while (box.firstChild) { box.removeChild(box.firstChild); }
    $("live-note").textContent = games.length ? "" : "None now.";
    var now = Date.now() / 1000;
    games.forEach(function (game) {
      var item = document.createElement("div");
      item.className = "live-game";
      item.appendChild(text("h3", label(game.order, game.order_display) + " (Order) vs " +
        label(game.chaos, game.chaos_display) + " (Chaos)"));
      item.appendChild(board(game));
      var idle = Math.max(0, now - game.moved_at);
      var plies = game.opening.length + game.moves.length;
      var status = text("p", "ply " + plies + " · " + Math.round(now - game.started_at) +
        " s in · last move " + idle.toFixed(1) + " s ago", "note");
      if (idle > STUCK_S) { status.classList.add("stuck"); }
      item.appendChild(status);
      box.appendChild(item);
    });
  }

  function drawProgress(state) {
    var p = state.progress;
    $("games").textContent = String(state.games);
    $("title").textContent = state.title;
    if (!p.running) {
      $("progress").textContent = "no run is playing into this store now";
      return;
    }
    var seconds = Math.max(1, p.updated_at - p.started_at);
    $("progress").textContent = "run: " + p.done + "/" + p.total + " games · " +
      (p.played / seconds).toFixed(1) + " games/s · faults " + p.faults;
  }

  function linkBots() {
    var rows = document.querySelectorAll("#standings-table tr[data-bot]");
    Array.prototype.forEach.call(rows, function (row) {
      var cell = row.querySelector("td.name");
      if (!cell) { return; }
      var link = cell.querySelector("a"); // the report's link to its own section of the bot
      if (!link) {
        link = text("a", cell.textContent);
        cell.textContent = "";
        cell.appendChild(link);
      }
      link.href = "/bot/" + encodeURIComponent(row.getAttribute("data-bot"));
    });
  }

  function fetchSections(version) {
    fetch("/sections.json").then(function (r) { return r.json(); }).then(function (sections) {
      sectionsVersion = version;
      Object.keys(sections).forEach(function (key) {
        var el = document.querySelector('[data-section="' + key + '"]');
        // Markup rendered (and escaped) by the server, as the report's; no script runs in it.
        if (el && key !== "version") { el.innerHTML = sections[key]; }
      });
      linkBots();
    });
  }

  function update(state) {
    latest = state;
    drawProgress(state);
    drawLive(state.live);
    if (state.sections_version !== sectionsVersion) { fetchSections(state.sections_version); }
  }

  linkBots();
  var events = new EventSource("/events");
  events.addEventListener("state", function (event) { update(JSON.parse(event.data)); });
  // The "last move ... ago" of a game in progress goes on counting between updates.
  setInterval(function () { if (latest) { drawLive(latest.live); } }, 1000);
})();
