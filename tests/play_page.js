// The logic of the served page (src/photocore/serve/static/play.js) without a browser: the
// script runs in node against stand-in elements (any property an element is asked for is
// another stand-in; what the script sets is kept), then the steps below. Prints, as JSON,
// the message after a click refused for another player's turn, after the same state shown
// again, after the next state, and the status then. tests/server/test_serve.py runs it.
"use strict";
const fs = require("fs");
const vm = require("vm");

function standIn() {
  const kept = {};
  return new Proxy(function () { return standIn(); }, {
    get(target, key) {
      if (key === Symbol.iterator) return function* () {};
      if (key === Symbol.toPrimitive) return () => "";
      if (key === "then") return undefined;           // not a promise
      if (!(key in kept)) kept[key] = key === "dataset" || key === "style" ? {} : standIn();
      return kept[key];
    },
    set(target, key, value) { kept[key] = value; return true; },
    deleteProperty(target, key) { delete kept[key]; return true; },
    apply() { return standIn(); },
  });
}

const elements = {};
const context = vm.createContext({
  document: { getElementById: (id) => (elements[id] ??= standIn()),
              createElement: () => standIn(), createElementNS: () => standIn(),
              addEventListener: () => {} },
  window: { addEventListener: () => {} }, location: { href: "http://127.0.0.1:8000/" },
  history: standIn(), localStorage: standIn(), fetch: () => new Promise(() => {}), URL,
});
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), context);
const state = (player, version) => JSON.stringify({
  id: "g1", version, over: false, to_move: "person", current_player: player,
  status: `player ${player} to move`, history: [], legal_moves: [], seats: ["person", "person"], names: ["person", "person"],
  can_undo: false, thinking: false, stopped: false, recordable: false,
});
const click = "{ target: { closest: () => ({ getAttribute: (name) => "
  + "(name === 'data-cell' ? 'a4' : null) }) } }";
console.log(JSON.stringify(vm.runInContext(`
  tokens = new Map([[0, "token"]]);     // this page plays seat 0
  show(${state(1, 3)});                 // player 1's turn
  clickBoard(${click});
  const refused = $("message").textContent;
  show(${state(1, 3)});                 // the same state again (an event that came late)
  const kept = $("message").textContent;
  show(${state(0, 4)});                 // player 1 moved: player 0, this page, to move
  [refused, kept, $("message").textContent, $("status").textContent];
`, context)));
