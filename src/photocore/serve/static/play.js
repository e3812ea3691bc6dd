// The page of `photocore serve`: plays through the JSON API (/api/, docs/play.md).
// Every clickable legal move carries its notation in data-move; the status line is
// [data-role="status"] (data-turn: person, agent or over; data-ply: the moves played;
// aria-busy="true" while a request is under way).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let info = null;        // GET /api/info
let game = null;        // the last state shown
let source = null;      // the tree chosen to plant from
let busy = false;       // a request that changes the game is under way
let following = false;  // waiting for the agents' moves

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error((data && data.error) || response.statusText);
  return data;
}

function gamePath(what) {
  return `/api/games/${encodeURIComponent(game.id)}${what || ""}`;
}

// ---- starting -------------------------------------------------------------------------

async function start() {
  info = await api("GET", "/api/info");
  buildForm();
  const id = new URLSearchParams(location.hash.slice(1)).get("game");
  if (id) {
    try {
      show(await api("GET", `/api/games/${encodeURIComponent(id)}?svg=true`));
      follow();
      return;
    } catch (error) {
      say(`${error.message}: a new game starts`, false);
    }
  }
  await newGame({});
}

async function newGame(body) {
  source = null;
  const state = await api("POST", "/api/games?svg=true", body);
  history.replaceState(null, "", `#game=${state.id}`);
  $("hints").replaceChildren();
  show(state);
  follow();
}

function buildForm() {
  const players = $("players");
  for (const n of info.players) players.append(new Option(String(n), String(n)));
  for (const [text, words] of Object.entries(info.options)) {
    $("options").append(new Option(text === "-" ? "standard" : words, text));
  }
  players.addEventListener("change", buildSeats);
  buildSeats();
  for (const column of info.columns) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.column = column;
    button.textContent = `Buy ${column}`;
    button.disabled = true;
    $("buy").append(button);
  }
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    const seats = [...$("seats").querySelectorAll("select")].map((s) => s.value);
    newGame({ players: Number(players.value), options: $("options").value, seats })
      .catch((error) => say(error.message, true));
  });
}

function buildSeats() {
  const n = Number($("players").value);
  const seats = $("seats");
  seats.replaceChildren();
  for (let p = 0; p < n; p++) {
    const label = document.createElement("label");
    label.append(`Player ${p} `);
    const select = document.createElement("select");
    select.name = `seat${p}`;
    for (const who of ["person", ...info.agents]) select.append(new Option(who, who));
    select.value = p === 0 || info.agents.length === 0 ? "person" : info.agents[0];
    label.append(select);
    seats.append(label);
  }
}

// ---- showing a state ------------------------------------------------------------------

function show(state) {
  game = state;
  const mine = state.to_move === "person" && !state.over;
  const status = $("status");
  status.textContent = state.status;
  status.dataset.turn = state.over ? "over" : state.to_move;
  status.dataset.ply = String(state.history.length);
  if (state.svg) $("board").innerHTML = state.svg;
  const legal = mine ? state.legal_moves.map((m) => m.move) : [];
  if (source && !legal.some((m) => m.startsWith(`plant ${source} `))) source = null;
  const svg = $("board").querySelector("svg");
  if (svg) overlay(svg, state, legal);
  for (const button of $("buy").querySelectorAll("button")) {
    setMove(button, legal.includes(`buy ${button.dataset.column}`) ? `buy ${button.dataset.column}` : null);
  }
  setMove($("end"), legal.includes("end") ? "end" : null);
  $("undo").disabled = !state.can_undo;
  $("hint").disabled = !mine;
  $("resign").disabled = state.over;
  $("stop").hidden = !state.thinking;
  $("resume").hidden = !state.stopped;
  showMoves(legal);
  showHistory(state);
  showReply(state);
  for (const [id, what] of [["record", "/record"], ["replay", "/replay"]]) {
    const link = $(id);
    link.hidden = !state.recordable;
    link.href = gamePath(what);
  }
  $("record").download = `photocore-${state.id}.jsonl`;
  if ($("hints").dataset.ply !== String(state.history.length)) $("hints").replaceChildren();
}

function setMove(button, move) {
  if (move) button.dataset.move = move;
  else delete button.dataset.move;
  button.disabled = !move;
}

function showMoves(legal) {
  $("count").textContent = String(legal.length);
  $("moves").replaceChildren(...legal.map((move) => moveButton(move, move)));
}

function moveButton(move, text) {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.move = move;
  button.textContent = text;
  return button;
}

function showHistory(state) {
  const replies = new Set(state.reply);
  $("history").replaceChildren(...state.history.map((item, ply) => {
    const li = document.createElement("li");
    li.textContent = `${item.move} (player ${item.player}${item.by === "agent" ? `, ${state.seats[item.player]}` : ""})`;
    li.className = item.by + (replies.has(ply) ? " reply" : "");
    return li;
  }));
  $("history").scrollTop = $("history").scrollHeight;
}

function showReply(state) {
  if (state.reply.length === 0) {
    $("reply").textContent = "";
    return;
  }
  const byPlayer = [];
  for (const ply of state.reply) {
    const item = state.history[ply];
    const last = byPlayer[byPlayer.length - 1];
    if (last && last.player === item.player) last.moves.push(item.move);
    else byPlayer.push({ player: item.player, moves: [item.move] });
  }
  $("reply").textContent = byPlayer.map((turn) =>
    `${state.seats[turn.player]} (player ${turn.player}) played ${turn.moves.join(", ")}`).join("; ");
}

// ---- the clickable layer over the board -----------------------------------------------

function cellsOf(move) {
  const [verb, a, b] = move.split(" ");
  if (verb === "buy" || verb === "end") return [];
  return verb === "plant" ? [a, b] : [a];
}

function overlay(svg, state, legal) {
  const direct = new Map();       // cell -> its place, grow or collect move
  const targets = new Map();      // plant source -> its target cells
  for (const move of legal) {
    const [verb, a, b] = move.split(" ");
    if (verb === "plant") {
      if (!targets.has(a)) targets.set(a, new Set());
      targets.get(a).add(b);
    } else if (a && verb !== "buy") {
      direct.set(a, move);
    }
  }
  const replyCells = new Set(state.reply.flatMap((ply) => cellsOf(state.history[ply].move)));
  const layer = document.createElementNS(SVG_NS, "g");
  layer.setAttribute("class", "hits");
  const badges = [];
  for (const cell of svg.querySelectorAll("polygon.cell[data-cell]")) {
    const name = cell.getAttribute("data-cell");
    const points = cell.getAttribute("points");
    if (replyCells.has(name)) layer.append(polygon(points, "reply"));
    const hit = polygon(points, "hit");
    hit.setAttribute("data-cell", name);
    if (source) {
      if (name === source) hit.classList.add("selected");
      else if (targets.get(source).has(name)) {
        hit.setAttribute("data-move", `plant ${source} ${name}`);
        hit.classList.add("target");
      }
    } else {
      if (direct.has(name)) hit.setAttribute("data-move", direct.get(name));
      if (targets.has(name)) {
        if (!direct.has(name)) hit.setAttribute("data-source", name);
        badges.push(badge(points, name));
      }
    }
    layer.append(hit);
  }
  layer.append(...badges);
  svg.querySelector("g.hits")?.remove();
  svg.append(layer);
}

function polygon(points, className) {
  const shape = document.createElementNS(SVG_NS, "polygon");
  shape.setAttribute("points", points);
  shape.setAttribute("class", className);
  return shape;
}

// a seed-shaped mark in the upper right of a tree that can plant: click it to plant
function badge(points, name) {
  const xy = points.trim().split(/\s+/).map((p) => p.split(",").map(Number));
  const x = xy.reduce((s, p) => s + p[0], 0) / xy.length;
  const y = xy.reduce((s, p) => s + p[1], 0) / xy.length;
  const radius = Math.max(...xy.map((p) => Math.hypot(p[0] - x, p[1] - y)));
  const mark = document.createElementNS(SVG_NS, "circle");
  mark.setAttribute("cx", (x + radius * 0.5).toFixed(1));
  mark.setAttribute("cy", (y - radius * 0.52).toFixed(1));
  mark.setAttribute("r", (radius * 0.2).toFixed(1));
  mark.setAttribute("class", "badge");
  mark.setAttribute("data-source", name);
  const title = document.createElementNS(SVG_NS, "title");
  title.textContent = `plant a seed from ${name}`;
  mark.append(title);
  return mark;
}

function hintCells(move) {
  const svg = $("board").querySelector("svg g.hits");
  if (!svg) return;
  for (const old of svg.querySelectorAll(".hinted")) old.remove();
  for (const cell of cellsOf(move)) {
    const hex = $("board").querySelector(`polygon.cell[data-cell="${cell}"]`);
    if (hex) svg.prepend(polygon(hex.getAttribute("points"), "hinted"));
  }
}

// ---- acting ---------------------------------------------------------------------------

function say(text, refused) {
  const message = $("message");
  message.textContent = text;
  message.classList.toggle("refused", refused);
  if (refused) {            // restart the shake
    message.style.animation = "none";
    void message.offsetWidth;
    message.style.animation = "";
  }
}

function setBusy(value) {
  busy = value;
  $("status").setAttribute("aria-busy", String(busy || following));
}

async function change(path, body) {
  if (busy) return;
  setBusy(true);
  say("", false);
  try {
    show(await api("POST", gamePath(`${path}?svg=true`), body));
  } catch (error) {
    say(error.message, true);
  } finally {
    busy = false;
  }
  follow();               // busy until the agents have moved
}

function play(move) {
  source = null;
  return change("/moves", { move, ply: game.history.length });
}

async function follow() {
  if (following) {
    setBusy(busy);
    return;
  }
  following = true;
  setBusy(busy);
  try {
    while (game && game.thinking) {
      show(await api("GET", gamePath("?svg=true&wait=10")));
    }
  } catch (error) {
    say(error.message, true);
  } finally {
    following = false;
    setBusy(busy);
  }
}

function choose(name) {
  source = source === name ? null : name;
  say(source ? `Planting from ${source}: click a green cell (Esc cancels)` : "", false);
  show(game);
}

function clickBoard(event) {
  const target = event.target.closest("[data-move], [data-source], [data-cell]");
  if (!target || !game) return;
  const move = target.getAttribute("data-move");
  const from = target.getAttribute("data-source");
  const cell = target.getAttribute("data-cell");
  if (move) play(move);
  else if (from) choose(from);
  else if (game.over) say(`The game is over: ${game.status}`, true);
  else if (game.to_move !== "person") say(`Not your turn: ${game.status}`, true);
  else if (source && cell === source) choose(source);
  else if (source) say(`${cell}: not a cell to plant in from ${source}`, true);
  else say(`${cell}: no legal move there`, true);
}

async function hint() {
  if (busy) return;
  const ply = game.history.length;
  say("Thinking of a hint\u2026", false);
  try {
    const found = await api("POST", gamePath("/hint"), { top: 3 });
    if (game.history.length !== ply) return;
    $("hints").dataset.ply = String(ply);
    $("hints").replaceChildren(...found.moves.map((m, k) => {
      const li = document.createElement("li");
      li.append(moveButton(m.move, m.move),
                ` value ${m.value >= 0 ? "+" : ""}${m.value.toFixed(2)} (${m.playouts} playouts)`);
      if (k === 0) hintCells(m.move);
      return li;
    }));
    say(`Hint: ${found.by}; value is the mean result for you, -1 to +1`, false);
  } catch (error) {
    say(error.message, true);
  }
}

let resigning = 0;
function resign() {
  if (Date.now() - resigning > 3000) {      // a second click within 3 s resigns
    resigning = Date.now();
    say("Click Resign again to give the game up", false);
    return;
  }
  resigning = 0;
  change("/resign", {});
}

document.addEventListener("DOMContentLoaded", () => {
  $("board").addEventListener("click", clickBoard);
  for (const id of ["actions", "moves", "hints"]) {
    $(id).addEventListener("click", (event) => {
      const button = event.target.closest("button[data-move]");
      if (button && !button.disabled) play(button.dataset.move);
    });
  }
  $("undo").addEventListener("click", () => change("/undo"));
  $("hint").addEventListener("click", hint);
  $("stop").addEventListener("click", () => change("/stop"));
  $("resume").addEventListener("click", () => change("/resume"));
  $("resign").addEventListener("click", resign);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && source) choose(source);
  });
  start().catch((error) => say(error.message, true));
});
