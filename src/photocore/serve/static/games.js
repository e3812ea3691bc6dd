// The lobby of `photocore serve` (/games): the games this browser holds links to, as the
// play page keeps them in localStorage ("photocore.games": id -> {link, seats, opened,
// seen, status}); each row asks the server how its game stands now. Each row is
// [data-game="ID"], its link [data-role="open"], its state [data-role="now"].
"use strict";

const GAMES = "photocore.games";

function kept() {
  try {
    return JSON.parse(localStorage.getItem(GAMES) || "{}") || {};
  } catch (error) {
    return {};
  }
}

function forget(id) {
  const games = kept();
  delete games[id];
  localStorage.setItem(GAMES, JSON.stringify(games));
  list();
}

async function now(id, seats, cell) {
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(id)}`);
    const state = await response.json();
    if (!response.ok) {
      cell.textContent = state.error || response.statusText;
      cell.dataset.state = "gone";
      return;
    }
    const yours = !state.over && state.to_move === "person" && seats.includes(state.current_player);
    cell.textContent = yours ? `Your turn (player ${state.current_player})` : state.status;
    cell.dataset.state = state.over ? "over" : yours ? "yours" : "waiting";
  } catch (error) {
    cell.textContent = "The server is away";
    cell.dataset.state = "away";
  }
}

function list() {
  const games = Object.entries(kept()).sort((a, b) => (b[1].seen || 0) - (a[1].seen || 0));
  document.getElementById("none").hidden = games.length > 0;
  document.getElementById("games").replaceChildren(...games.map(([id, game]) => {
    const row = document.createElement("tr");
    row.dataset.game = id;
    const open = document.createElement("a");
    open.href = `/${game.link}`;
    open.textContent = id;
    open.dataset.role = "open";
    const seats = Array.isArray(game.seats) ? game.seats : [];
    const state = document.createElement("td");
    state.dataset.role = "now";
    state.textContent = "\u2026";
    const drop = document.createElement("button");
    drop.type = "button";
    drop.textContent = "Forget";
    drop.dataset.role = "forget";
    drop.addEventListener("click", () => forget(id));
    const cells = [open, seats.length ? seats.map((s) => `player ${s}`).join(", ") : "watching",
                   state, new Date(game.opened || 0).toLocaleString(), drop];
    row.append(...cells.map((content) => {
      if (content === state) return state;
      const cell = document.createElement("td");
      cell.append(content);
      return cell;
    }));
    now(id, seats, state);
    return row;
  }));
}

document.addEventListener("DOMContentLoaded", list);
