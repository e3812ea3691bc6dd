// The page of `photocore serve`: plays through the JSON API (/api/, docs/play.md) and hears
// each game's changes as Server-Sent Events (GET /api/games/ID/events).
// Every clickable legal move carries its notation in data-move; the status line is
// [data-role="status"] (data-turn: person when a seat this page plays is to move, other
// for another person's seat, agent, over, or none; data-ply: the moves played;
// aria-busy="true" while a request is under way or an agent thinks).
//
// The page's address holds its game and the tokens of the seats it plays:
// #game=ID&seat0=TOKEN&seat2=TOKEN. A token is in the fragment, which the browser sends
// to no server (not in requests, not in Referer): each request that acts for a seat
// carries it as Authorization: Bearer TOKEN. The address without tokens watches.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const GAMES = "photocore.games";   // localStorage: the games this browser holds links to
const $ = (id) => document.getElementById(id);
let info = null;          // GET /api/info
let gameId = null;        // the game this page shows
let tokens = new Map();   // seat -> token: the seats this page plays
let game = null;          // the last state shown
let events = null;        // the game's EventSource
let source = null;        // the tree chosen to plant from
let busy = false;         // a request that changes the game is under way
let saidOf = null;        // the state the message is about ("ID:VERSION"), or null

class Away extends Error {}     // the server did not answer at all

async function api(method, path, body, seat) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  if (seat !== undefined && tokens.has(seat)) {
    options.headers.Authorization = `Bearer ${tokens.get(seat)}`;
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    setConnection("away");
    throw new Away("The server is away: try again in a moment");
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.error) || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

// `call` again every second while the server is away; other failures are thrown
async function retrying(call) {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof Away)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function gamePath(what) {
  return `/api/games/${encodeURIComponent(gameId)}${what || ""}`;
}

// ---- the link: the game and the seats' tokens -----------------------------------------

function readLink() {
  const params = new URLSearchParams(location.hash.slice(1));
  const held = new Map();
  for (const [key, value] of params) {
    const seat = /^seat([0-9])$/.exec(key);
    if (seat && value) held.set(Number(seat[1]), value);
  }
  return { id: params.get("game"), held };
}

function linkOf(id, held) {
  const parts = [`game=${encodeURIComponent(id)}`];
  for (const [seat, token] of [...held].sort((a, b) => a[0] - b[0])) {
    parts.push(`seat${seat}=${encodeURIComponent(token)}`);
  }
  return `#${parts.join("&")}`;
}

function writeLink() {
  history.replaceState(null, "", linkOf(gameId, tokens));
  remember();
}

// the lobby (/games) lists what is kept here, in this browser only
function remember(status) {
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem(GAMES) || "{}") || {};
  } catch (error) {
    kept = {};
  }
  const old = kept[gameId] || {};
  kept[gameId] = { link: linkOf(gameId, tokens), seats: [...tokens.keys()],
                   opened: old.opened || Date.now(), seen: Date.now(),
                   status: status || old.status || "" };
  try {
    localStorage.setItem(GAMES, JSON.stringify(kept));
  } catch (error) {
    // storage full or off: the lobby just does not list it
  }
}

// ---- starting -------------------------------------------------------------------------

async function start() {
  info = await retrying(() => api("GET", "/api/info"));
  setConnection("live");
  buildForm();
  const link = readLink();
  if (!link.id) {
    await newGame({});
    return;
  }
  gameId = link.id;
  tokens = link.held;
  try {
    show(await retrying(() => api("GET", gamePath("?svg=true"))));
  } catch (error) {
    gone(error.message);
    return;
  }
  remember(game.status);
  listen();
}

// the game is not on this server: said, and nothing else started
function gone(why) {
  setConnection("gone");
  const status = $("status");
  status.textContent = `${why}: start a new game below`;
  status.dataset.turn = "none";
  say(why, true);
}

async function newGame(body) {
  source = null;
  const state = await api("POST", "/api/games?svg=true", body);
  gameId = state.id;
  tokens = new Map(state.invites.map((invite) => [invite.seat, invite.token]));
  writeLink();
  $("hints").replaceChildren();
  game = null;
  show(state);
  listen();
}

// the game's events: its state at once, then at every change, the other people's moves
// as they are made; a dropped stream comes back by itself (the browser sends the last
// event's id, and the changes since come first)
function listen() {
  if (events) events.close();
  const stream = new EventSource(gamePath("/events?svg=true"));
  events = stream;
  stream.addEventListener("state", (event) => {
    setConnection("live");
    show(JSON.parse(event.data));
    if (game.over) stream.close();      // a finished game never changes
  });
  stream.addEventListener("error", () => {
    if (events !== stream) return;
    if (stream.readyState !== EventSource.CLOSED) {
      setConnection("away");            // the browser reconnects by itself
      return;
    }
    // refused (the server is starting, or the game is gone): ask, then listen again
    setConnection("away");
    retrying(() => api("GET", gamePath("?svg=true")))
      .then((state) => { show(state); listen(); })
      .catch((error) => gone(error.message));
  });
}

function setConnection(state) {
  const line = $("connection");
  if (!line || line.dataset.state === state) return;
  line.dataset.state = state;
  line.textContent = state === "away"
    ? "The server is away: reconnecting to this game\u2026"
    : state === "gone" ? "This game is not on the server" : "";
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

// the seat of the last move a person played (what undo takes back), or null
function lastPerson(state) {
  for (let ply = state.history.length - 1; ply >= 0; ply--) {
    if (state.history[ply].by === "person") return state.history[ply].player;
  }
  return null;
}

function show(state) {
  if (game && game.id === state.id && state.version < game.version) return;  // came late
  game = state;
  // a message is about the state it was said in ("Not your turn: player 1 ..."): gone
  // with it, not left beside a status that says otherwise
  if (saidOf !== null && saidOf !== `${state.id}:${state.version}`) say("", false);
  const mine = !state.over && state.to_move === "person" && tokens.has(state.current_player);
  const status = $("status");
  status.textContent = state.status;
  status.dataset.turn = state.over ? "over" : state.to_move === "agent" ? "agent"
    : mine ? "person" : "other";
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
  $("undo").disabled = !state.can_undo || !tokens.has(lastPerson(state));
  $("hint").disabled = !mine;
  $("resign").disabled = state.over || tokens.size === 0;
  $("stop").hidden = !state.thinking || tokens.size === 0;
  $("resume").hidden = !state.stopped || tokens.size === 0;
  showMoves(legal);
  showHistory(state);
  showReply(state);
  showSeats(state);
  for (const [id, what] of [["record", "/record"], ["replay", "/replay"]]) {
    const link = $(id);
    link.hidden = !state.recordable;
    link.href = gamePath(what);
  }
  $("record").download = `photocore-${state.id}.jsonl`;
  if ($("hints").dataset.ply !== String(state.history.length)) $("hints").replaceChildren();
  setBusy(busy);
}

// who plays here, the links to hand the other people's seats over, the watchers' link
function showSeats(state) {
  const people = state.seats.flatMap((who, seat) => (who === "person" ? [seat] : []));
  const own = people.find((seat) => tokens.has(seat));
  const here = people.filter((seat) => tokens.has(seat));
  $("seat").textContent = here.length === 0 ? "You are watching this game."
    : `You play ${here.map((seat) => `player ${seat}`).join(" and ")}.`;
  const invites = $("invites");
  invites.replaceChildren(...here.filter((seat) => seat !== own).map((seat) => {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = new URL(`/${linkOf(state.id, new Map([[seat, tokens.get(seat)]]))}`, location.href).href;
    link.textContent = `player ${seat}'s link`;
    link.dataset.role = "invite";
    link.dataset.seat = String(seat);
    link.target = "_blank";
    const give = document.createElement("button");
    give.type = "button";
    give.textContent = "Copy and hand over";
    give.dataset.role = "hand-over";
    give.dataset.seat = String(seat);
    give.addEventListener("click", () => handOver(seat, link.href));
    li.append(link, " ", give);
    return li;
  }));
  const watch = $("watch");
  watch.href = new URL(`/#game=${encodeURIComponent(state.id)}`, location.href).href;
  $("invite-help").hidden = invites.childElementCount === 0;
}

// the seat's link is copied, and this page no longer plays it: whoever opens it does
async function handOver(seat, link) {
  try {
    await navigator.clipboard.writeText(link);
    say(`Player ${seat}'s link is copied: send it to who plays that seat`, false);
  } catch (error) {
    say(`Copy player ${seat}'s link from the list (this browser did not let the page copy it)`, false);
  }
  tokens.delete(seat);
  writeLink();
  show(game);
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
  const replies = new Set(replyOf(state));
  $("history").replaceChildren(...state.history.map((item, ply) => {
    const li = document.createElement("li");
    li.textContent = `${item.move} (player ${item.player}${item.by === "agent" ? `, ${state.names[item.player]}` : ""})`;
    li.className = item.by + (replies.has(ply) ? " reply" : "");
    return li;
  }));
  $("history").scrollTop = $("history").scrollHeight;
}

// the plies the others played since this page's seats last moved: the agents' reply,
// and the other people's moves (a page that plays no seat: the agents' reply)
function replyOf(state) {
  if (tokens.size === 0) return state.reply;
  const plies = [];
  for (let ply = state.history.length - 1; ply >= 0; ply--) {
    const item = state.history[ply];
    if (tokens.has(item.player) || item.by === "given") break;
    plies.unshift(ply);
  }
  return plies;
}

function showReply(state) {
  const reply = replyOf(state);
  if (reply.length === 0) {
    $("reply").textContent = "";
    return;
  }
  const byPlayer = [];
  for (const ply of reply) {
    const item = state.history[ply];
    const last = byPlayer[byPlayer.length - 1];
    if (last && last.player === item.player) last.moves.push(item.move);
    else byPlayer.push({ player: item.player, moves: [item.move] });
  }
  $("reply").textContent = byPlayer.map((turn) => {
    const who = state.seats[turn.player] === "person" ? `player ${turn.player}`
      : `${state.names[turn.player]} (player ${turn.player})`;
    return `${who} played ${turn.moves.join(", ")}`;
  }).join("; ");
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
  const replyCells = new Set(replyOf(state).flatMap((ply) => cellsOf(state.history[ply].move)));
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
  saidOf = text && game ? `${game.id}:${game.version}` : null;
  message.classList.toggle("refused", refused);
  if (refused) {            // restart the shake
    message.style.animation = "none";
    void message.offsetWidth;
    message.style.animation = "";
  }
}

function setBusy(value) {
  busy = value;
  $("status").setAttribute("aria-busy", String(busy || Boolean(game && game.thinking)));
}

// a change for `seat` (its token goes with it); the agents' moves come as events
async function change(path, body, seat) {
  if (busy) return;
  setBusy(true);
  say("", false);
  try {
    show(await api("POST", gamePath(`${path}?svg=true`), body, seat));
  } catch (error) {
    say(error.message, true);
  } finally {
    setBusy(false);
  }
}

function play(move) {
  source = null;
  return change("/moves", { move, ply: game.history.length }, game.current_player);
}

// a seat this page plays: the one to move if it does, else its first
function anySeat() {
  return tokens.has(game.current_player) ? game.current_player : [...tokens.keys()][0];
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
  else if (game.to_move !== "person" || !tokens.has(game.current_player)) {
    say(`Not your turn: ${game.status}`, true);
  }
  else if (source && cell === source) choose(source);
  else if (source) say(`${cell}: not a cell to plant in from ${source}`, true);
  else say(`${cell}: no legal move there`, true);
}

async function hint() {
  if (busy) return;
  const ply = game.history.length;
  say("Thinking of a hint\u2026", false);
  try {
    const found = await api("POST", gamePath("/hint"), { top: 3 }, game.current_player);
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
  change("/resign", {}, anySeat());
}

document.addEventListener("DOMContentLoaded", () => {
  $("board").addEventListener("click", clickBoard);
  for (const id of ["actions", "moves", "hints"]) {
    $(id).addEventListener("click", (event) => {
      const button = event.target.closest("button[data-move]");
      if (button && !button.disabled) play(button.dataset.move);
    });
  }
  $("undo").addEventListener("click", () => change("/undo", undefined, lastPerson(game)));
  $("hint").addEventListener("click", hint);
  $("stop").addEventListener("click", () => change("/stop", undefined, anySeat()));
  $("resume").addEventListener("click", () => change("/resume", undefined, anySeat()));
  $("resign").addEventListener("click", resign);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && source) choose(source);
  });
  window.addEventListener("hashchange", () => location.reload());  // another game's link
  start().catch((error) => say(error.message, true));
});
