"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const frames = data.frames;
const last = frames.length - 1;
const board = document.getElementById("board");
const slider = document.getElementById("slider");
const moves = document.getElementById("moves");
let ply = 0;

function show(k) {
  ply = Math.max(0, Math.min(last, k));
  const frame = frames[ply];
  board.innerHTML = frame.board.map((i) => data.lines[i]).join("\n");
  board.dataset.ply = ply;
  slider.value = ply;
  document.getElementById("ply").textContent = frame.status;
  for (const item of moves.querySelectorAll("li.current")) item.classList.remove("current");
  const item = moves.querySelector('li[data-ply="' + ply + '"]');
  item.classList.add("current");
  const top = item.offsetTop - moves.offsetTop;
  if (top < moves.scrollTop || top + item.offsetHeight > moves.scrollTop + moves.clientHeight) {
    moves.scrollTop = top - moves.clientHeight / 2;
  }
  for (const row of document.querySelectorAll("#scores tr[data-player]")) {
    const p = Number(row.dataset.player);
    row.querySelector(".score").textContent = frame.scores[p];
    row.querySelector(".light").textContent = frame.light[p];
  }
  const verdict = document.getElementById("verdict");
  if (verdict) verdict.textContent = frame.note || "";
  for (const cursor of document.querySelectorAll("svg.chart line.cursor")) {
    const x = Number(cursor.dataset.x0) + Number(cursor.dataset.step) * ply;
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
}

slider.addEventListener("input", () => show(Number(slider.value)));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(ply - 1));
document.getElementById("next").addEventListener("click", () => show(ply + 1));
document.getElementById("last").addEventListener("click", () => show(last));
moves.addEventListener("click", (event) => {
  const item = event.target.closest("li[data-ply]");
  if (item) show(Number(item.dataset.ply));
});
const evaluation = document.getElementById("eval-chart");
if (evaluation) {
  evaluation.addEventListener("click", (event) => {
    const mark = event.target.closest("[data-ply]");
    if (mark) return show(Number(mark.dataset.ply));
    // the click's x in the chart's own units: the ply under it
    const cursor = evaluation.querySelector("line.cursor");
    const box = evaluation.getBoundingClientRect();
    const x = (event.clientX - box.left) * evaluation.viewBox.baseVal.width / box.width;
    show(Math.round((x - Number(cursor.dataset.x0)) / Number(cursor.dataset.step)));
  });
}
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  // handled here even on the focused slider, so one key press is always one move
  const step = {ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last}[event.key];
  if (step === undefined) return;
  event.preventDefault();
  show(step);
});
show(0);
