// kabe explorer: the board, its editor and the API's answers. No framework: the page is
// one board, a few lists and the URL (?variant=&fen=&rules=&counters=) as the state.
"use strict";

// A starting position per variant; others get two kings against one (defaultFen).
const DEFAULT_FEN = { international: "W:WK46,K47,K48:BK5", russian: "W:WKa1,Kc1:BKh8", turkish: "W:Wd5,Ka1:Bh8" };
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  variants: [],
  variant: "international",
  rules: "",
  fen: "",
  counters: "",
  flipped: false,
  editing: false,
  tool: "wm",
  board: null, // { geo, kind, notation, turn, pieces: Map(kabe square -> {color, king}) }
  answer: null,
};

// ---- geometry: the server lists every playable square with the cell it is drawn in
// (row 0 at the top, Black's side; White at the bottom), its number and its name, so one
// page draws diagonal, orthogonal (Turkish) and mirrored (Italian) boards alike.

/** "1 ply", "7 plies". */
function plies(n) {
  return n === 1 ? "1 ply" : `${n} plies`;
}

function geometry(board) {
  const bySquare = new Map();
  const byName = new Map();
  const byCell = new Map();
  for (const c of board.cells) {
    bySquare.set(c.square, c);
    byName.set(c.name.toLowerCase(), c.square);
    byName.set(String(c.number), c.square); // numbers are read on every board
    byCell.set(`${c.row},${c.col}`, c);
  }
  return {
    width: board.width,
    cells: board.cells,
    cell: (square) => bySquare.get(square),
    at: (row, col) => byCell.get(`${row},${col}`),
    name: (square) => bySquare.get(square).name,
    square: (name) => byName.get(name.toLowerCase()) ?? null,
  };
}

function variantInfo(name) {
  return state.variants.find((v) => v.name === name) || { name, board: { width: 10, kind: "diagonal", notation: "numeric", cells: [] } };
}

// Two kings against one in the corners, where no default is written for the variant.
function defaultFen(name) {
  if (DEFAULT_FEN[name]) return DEFAULT_FEN[name];
  const cells = [...variantInfo(name).board.cells].sort((a, b) => b.row - a.row || a.col - b.col);
  if (cells.length < 3) return DEFAULT_FEN.international;
  return `W:WK${cells[0].name},K${cells[1].name}:BK${cells[cells.length - 1].name}`;
}

// ---- FEN: "W:W31,K33:B1-3" or "B:Wa1,Kc3:Bh8"

function parseFen(fen, info) {
  const geo = geometry(info.board);
  const pieces = new Map();
  const parts = fen.trim().replace(/\.$/, "").split(":");
  const turn = (parts[0] || "W").toUpperCase() === "B" ? "black" : "white";
  for (const part of parts.slice(1)) {
    const color = part[0] && part[0].toUpperCase() === "B" ? "black" : "white";
    for (let item of part.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = /^k/i.test(item);
      if (king) item = item.slice(1);
      const range = item.match(/^(\d+)-(\d+)$/);
      const names = range ? Array.from({ length: range[2] - range[1] + 1 }, (_, k) => String(Number(range[1]) + k)) : [item];
      for (const name of names) {
        const square = geo.square(name);
        if (square) pieces.set(square, { color, king });
      }
    }
  }
  return { geo, kind: info.board.kind, notation: info.board.notation, turn, pieces };
}

function writeFen(board) {
  const geo = board.geo;
  const side = (color) =>
    [...board.pieces.entries()]
      .filter(([, p]) => p.color === color)
      .sort((a, b) => geo.cell(a[0]).number - geo.cell(b[0]).number)
      .map(([n, p]) => (p.king ? "K" : "") + geo.name(n))
      .join(",");
  return `${board.turn === "white" ? "W" : "B"}:W${side("white")}:B${side("black")}`;
}

// ---- the board

function drawBoard(highlight) {
  const board = state.board;
  const geo = board.geo;
  const width = geo.width;
  const size = 48;
  const margin = 16;
  const svg = document.createElementNS(SVG, "svg");
  const total = width * size + margin;
  svg.setAttribute("viewBox", `0 0 ${total} ${total}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `board: ${writeFen(board)}`);
  const place = (row, col) => {
    const r = state.flipped ? width - 1 - row : row;
    const c = state.flipped ? width - 1 - col : col;
    return { x: margin + c * size, y: r * size };
  };
  for (let row = 0; row < width; row++) {
    for (let col = 0; col < width; col++) {
      if (!geo.at(row, col)) {
        const { x, y } = place(row, col);
        svg.appendChild(el("rect", { x, y, width: size, height: size, class: "square light" }));
      }
    }
  }
  const center = {};
  for (const cell of geo.cells) {
    const n = cell.square;
    const { x, y } = place(cell.row, cell.col);
    center[n] = { x: x + size / 2, y: y + size / 2 };
    // Every square is played on an orthogonal board: shade alternate ones for the eye.
    let cls = board.kind === "orthogonal" && (cell.row + cell.col) % 2 === 0 ? "square dark alt" : "square dark";
    if (highlight) {
      if (highlight.path[0] === n) cls += " hl-from";
      else if (highlight.path.includes(n)) cls += " hl-to";
      if (highlight.captured.includes(n)) cls += " hl-captured";
    }
    const rect = el("rect", { x, y, width: size, height: size, class: cls, "data-square": n, "data-name": cell.name });
    rect.addEventListener("click", () => squareClicked(n));
    svg.appendChild(rect);
    if (board.notation === "numeric") svg.appendChild(text(x + 3, y + 10, String(cell.number), "num"));
    const piece = board.pieces.get(n);
    if (piece) {
      const g = el("g", { class: `piece ${piece.color}`, "data-piece-square": n });
      g.appendChild(el("circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.38, "stroke-width": 2 }));
      if (piece.king) g.appendChild(text(x + size / 2, y + size / 2 + 1, "\u265B", "crown"));
      svg.appendChild(g);
    }
  }
  if (board.notation === "algebraic") {
    for (let i = 0; i < width; i++) {
      const file = place(width - 1, i);
      svg.appendChild(text(file.x + size / 2 - 3, total - 3, "abcdefghij"[i], "coord"));
      const rank = place(i, 0);
      svg.appendChild(text(2, rank.y + size / 2 + 4, String(width - i), "coord"));
    }
  }
  if (highlight && highlight.path.length > 1) {
    const points = highlight.path.map((n) => `${center[n].x},${center[n].y}`).join(" ");
    svg.appendChild(el("polyline", { points, class: "hl-path" }));
  }
  $("board").replaceChildren(svg);
}

function el(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function text(x, y, content, cls) {
  const t = el("text", { x, y, class: cls });
  t.textContent = content;
  return t;
}

function squareClicked(n) {
  if (!state.editing) return;
  if (state.tool === "none") state.board.pieces.delete(n);
  else state.board.pieces.set(n, { color: state.tool[0] === "w" ? "white" : "black", king: state.tool[1] === "k" });
  edited();
}

// An edited position starts its counts afresh.
function edited() {
  go({ fen: writeFen(state.board), counters: "" });
}

// ---- navigation: every position has its URL

function urlFor(s) {
  const q = new URLSearchParams({ variant: s.variant, fen: s.fen });
  if (s.rules) q.set("rules", s.rules);
  if (s.counters) q.set("counters", s.counters);
  if (s.prove) q.set("prove", "1");
  return `?${q}`;
}

function go(changes, replace) {
  // Another position: its proof is asked for again, not carried over.
  Object.assign(state, { prove: false }, changes);
  const url = urlFor(state);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  load();
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  state.variant = q.get("variant") || state.variant;
  state.rules = q.get("rules") || "";
  state.fen = q.get("fen") || defaultFen(state.variant);
  state.counters = q.get("counters") || "";
  state.prove = q.get("prove") === "1";
}

// ---- talking to the API

async function api(path) {
  const response = await fetch(path);
  const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.message || `HTTP ${response.status}`);
  return body;
}

async function load() {
  const info = variantInfo(state.variant);
  $("variant").value = state.variant;
  fillRules(info);
  $("fen-input").value = state.fen;
  state.board = parseFen(state.fen, info);
  $("turn-toggle").textContent = `${cap(state.board.turn)} to move`;
  drawBoard(null);
  $("line").replaceChildren();
  $("line-end").textContent = "";
  $("prove").replaceChildren();
  if (state.prove) showProof(); // a problem's page, linked with its proof
  const q = new URLSearchParams({ fen: state.fen });
  if (state.rules) q.set("rules", state.rules);
  if (state.counters) q.set("counters", state.counters);
  const asked = urlFor(state);
  try {
    const answer = await api(`/api/${encodeURIComponent(state.variant)}?${q}`);
    if (asked !== urlFor(state)) return; // a newer position was asked meanwhile
    state.answer = answer;
    $("error").hidden = true;
    state.board = parseFen(answer.fen, info);
    drawBoard(null);
    showVerdict(answer);
    showCounts(answer);
    showMoves(answer);
    document.body.dataset.loaded = answer.fen + "|" + answer.counters;
  } catch (e) {
    if (asked !== urlFor(state)) return;
    state.answer = null;
    $("error").textContent = e.message;
    $("error").hidden = false;
    $("verdict-exact").textContent = "";
    $("verdict-exact").className = "result";
    $("verdict-detail").textContent = "";
    $("counts").replaceChildren();
    $("moves").replaceChildren();
    document.body.dataset.loaded = "error|" + state.fen;
  }
}

const cap = (s) => s[0].toUpperCase() + s.slice(1);

function resultWords(exact, turn) {
  const other = turn === "white" ? "Black" : "White";
  if (exact === "draw") return "Draw";
  return exact === "win" ? `${cap(turn)} wins` : `${other} wins`;
}

function showVerdict(a) {
  const v = a.verdict;
  const exact = $("verdict-exact");
  exact.textContent = resultWords(v.exact, a.turn);
  exact.className = `result ${v.exact}`;
  exact.dataset.exact = v.exact;
  const parts = [];
  parts.push(
    v.theoretical_plies == null
      ? `Theoretical: ${v.theoretical} (the rule-free value).`
      : `Theoretical: ${v.theoretical} in ${plies(v.theoretical_plies)} (the rule-free value).`,
  );
  if (v.count) {
    parts.push(`Count ${v.count.article}: ${plies(v.count.plies_left)} left before it draws.`);
    if (v.within_count_plies != null) parts.push(`Decided within the count in ${plies(v.within_count_plies)}.`);
  }
  if (v.rule_decides) parts.push(`The count decides: the theoretical ${v.theoretical} needs more plies than it leaves.`);
  $("verdict-detail").textContent = parts.join(" ");
}

function showCounts(a) {
  const box = $("counts");
  box.replaceChildren();
  if (!a.counts.length) return;
  const h = document.createElement("h3");
  h.textContent = `Draw-rule counts (${a.rules})`;
  box.appendChild(h);
  for (const c of a.counts) {
    const row = document.createElement("div");
    row.className = "count";
    const label = document.createElement("label");
    label.textContent = `${c.article} at `;
    const input = document.createElement("input");
    input.type = "number";
    input.min = 0;
    input.max = c.limit;
    input.value = c.plies;
    input.dataset.article = c.article;
    input.addEventListener("change", () => {
      const plies = Math.max(0, Math.min(c.limit, Number(input.value) || 0));
      go({ counters: setCount(a.counters, c.article, plies) });
    });
    label.appendChild(input);
    label.append(` of ${c.limit} plies${c.running ? "" : " (not governing while a material count runs)"}`);
    const help = document.createElement("span");
    help.className = "help";
    help.textContent = c.meaning;
    row.append(label, help);
    box.appendChild(row);
  }
}

function setCount(counters, article, plies) {
  const escaped = article.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`(^|,)${escaped}=\\d+`);
  return re.test(counters) ? counters.replace(re, `$1${article}=${plies}`) : [counters, `${article}=${plies}`].filter(Boolean).join(",");
}

function distance(m) {
  if (m.exact === "draw") return m.theoretical_plies == null ? "" : `theory: ${m.theoretical} ${m.theoretical_plies}`;
  const plies = m.within_count_plies != null ? m.within_count_plies : m.theoretical_plies;
  return plies == null ? "" : `${m.exact === "win" ? "wins" : "loses"} in ${plies}`;
}

function showMoves(a) {
  const box = $("moves");
  box.replaceChildren();
  if (!a.moves.length) {
    box.textContent = "No legal move: the game is over.";
    return;
  }
  const groups = { win: "Winning moves", draw: "Drawing moves", loss: "Losing moves" };
  for (const [result, title] of Object.entries(groups)) {
    const moves = a.moves.filter((m) => m.exact === result);
    if (!moves.length) continue;
    const h = document.createElement("h3");
    h.className = result;
    h.textContent = `${title} (${moves.length})`;
    box.appendChild(h);
    for (const m of moves) {
      m.theoretical = m.theoretical_plies == null ? "draw" : m.theoretical_plies % 2 === 1 ? "win" : "loss";
      const b = document.createElement("button");
      b.type = "button";
      b.className = `move ${result}`;
      b.dataset.move = m.move;
      b.textContent = m.move;
      const d = document.createElement("span");
      d.className = "dist";
      d.textContent = distance(m);
      b.appendChild(d);
      b.title = "plies to the end of the game with best play, counting this move; click to play";
      b.addEventListener("mouseenter", () => drawBoard(m));
      b.addEventListener("focus", () => drawBoard(m));
      b.addEventListener("mouseleave", () => drawBoard(null));
      b.addEventListener("click", () => go({ fen: m.fen_after, counters: m.counters_after }));
      box.appendChild(b);
    }
  }
}

async function showLine() {
  const q = new URLSearchParams({ fen: state.fen });
  if (state.rules) q.set("rules", state.rules);
  if (state.counters) q.set("counters", state.counters);
  try {
    const line = await api(`/api/${encodeURIComponent(state.variant)}/mainline?${q}`);
    const list = $("line");
    list.replaceChildren();
    for (const m of line.moves) {
      const li = document.createElement("li");
      li.textContent = m.move;
      li.addEventListener("click", () => go({ fen: m.fen_after, counters: m.counters_after }));
      list.appendChild(li);
    }
    $("line-end").textContent = `End: ${line.end}. Click a move to go to the position after it.`;
  } catch (e) {
    $("line-end").textContent = e.message;
  }
}

async function showProof() {
  const q = new URLSearchParams({ fen: state.fen });
  if (state.rules) q.set("rules", state.rules);
  if (state.counters) q.set("counters", state.counters);
  const box = $("prove");
  box.textContent = "Searching…";
  const asked = urlFor(state);
  try {
    const p = await api(`/api/${encodeURIComponent(state.variant)}/prove?${q}`);
    if (asked !== urlFor(state)) return;
    box.replaceChildren();
    const side = cap(p.solver);
    const head = document.createElement("p");
    head.className = "result";
    if (p.result === "win") {
      head.textContent = `${side} to move wins (proved): key ${p.keys.join(", ")}` + (p.cooks.length ? " (more than one key: cooked)" : "");
    } else if (p.result === "not_win") {
      head.textContent = `${side} to move does not win: every first move is refuted`;
    } else {
      head.textContent = `No win found within ${p.budget.nodes_per_move} nodes per first move`;
    }
    box.appendChild(head);
    for (const m of p.moves) {
      if (m.outcome !== "win") continue;
      const line = document.createElement("p");
      line.className = "proof-line";
      line.textContent = `${m.move}: ${m.main_line.join(" ")} (proof of ${m.proof_positions} positions, within ${plies(m.plies)})`;
      box.appendChild(line);
    }
    box.appendChild(composerTable(p));
    document.body.dataset.proved = p.result + "|" + p.keys.join(",");
    document.body.dataset.tries = p.tries.join(",");
    // The page of a problem, proof shown, can be linked: its URL says so.
    if (!state.prove) {
      state.prove = true;
      history.replaceState(null, "", urlFor(state));
    }
  } catch (e) {
    if (asked !== urlFor(state)) return;
    box.textContent = e.message;
    document.body.dataset.proved = "error";
  }
}

/** Every first move with its proof status: key, cook, try (with the one defence that
 * refutes it), refuted, or unresolved; a key's duals along its main line. */
function composerTable(p) {
  const table = document.createElement("table");
  table.id = "first-moves";
  const head = table.createTHead().insertRow();
  for (const h of ["first move", "status", "proof"]) {
    const th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  }
  const body = table.createTBody();
  const keys = p.keys;
  for (const m of p.moves) {
    const row = body.insertRow();
    row.dataset.move = m.move;
    let status, detail;
    if (m.outcome === "win") {
      const k = keys.indexOf(m.move);
      status = k === 0 ? "key" : k > 0 ? "cook" : "wins";
      detail = `${m.main_line.join(" ")} (${m.proof_positions} positions, within ${plies(m.plies)})`;
      const duals = (m.duals || []).filter((d) => d.duals.length);
      if (duals.length) detail += "; duals: " + duals.map((d) => `ply ${d.ply} ${d.played}: ${d.duals.join(", ")}`).join("; ");
    } else if (m.outcome === "not_win") {
      const d = m.defences;
      const refuting = d ? d.holding.map((h) => h.line[0]) : m.refutation.line.slice(0, 1);
      status = m.try ? "try" : m.forced ? "refuted (forced)" : "refuted";
      // The line of the first defence that holds (the first move's own refutation has
      // none where the move leads straight into the tables).
      const r = d && d.holding.length ? d.holding[0] : m.refutation;
      detail = `${m.try ? "refuted only by" : "refuted by"} ${refuting.join(", ")}: ${r.line.join(" ")} (${r.end}; disproof of ${r.disproof_positions} positions)`;
      if (d && d.unresolved.length) detail += `; not resolved: ${d.unresolved.join(", ")}`;
    } else {
      status = "unresolved";
      detail = `no win found within ${m.no_win_found_within_nodes} nodes`;
      const beyond = m.beyond_tables || [];
      if (beyond.length) detail += "; open beyond the tables: " + beyond.map((b) => `${b.material} (${b.positions} positions)`).join(", ");
    }
    row.className = status.split(" ")[0];
    for (const text of [m.move, status, detail]) row.insertCell().textContent = text;
  }
  return table;
}

function fillRules(info) {
  const select = $("rules");
  const names = info.rules || [];
  if (select.dataset.variant !== info.name) {
    select.replaceChildren(
      ...["", ...names].map((r) => {
        const o = document.createElement("option");
        o.value = r;
        o.textContent = r || `default (${info.default_rules || "own"})`;
        return o;
      }),
    );
    select.dataset.variant = info.name;
  }
  select.value = state.rules;
}

async function start() {
  try {
    state.variants = (await api("/api/variants")).variants;
  } catch (e) {
    state.variants = [];
  }
  $("variant").replaceChildren(
    ...state.variants.map((v) => {
      const o = document.createElement("option");
      o.value = v.name;
      o.textContent = `${v.name} (to ${v.pieces} pieces)`;
      return o;
    }),
  );
  readUrl();
  $("setup").addEventListener("submit", (e) => {
    e.preventDefault();
    go({ fen: $("fen-input").value.trim(), counters: "" });
  });
  $("variant").addEventListener("change", () => {
    const v = $("variant").value;
    go({ variant: v, rules: "", fen: defaultFen(v), counters: "" });
  });
  $("rules").addEventListener("change", () => go({ rules: $("rules").value, counters: "" }));
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    drawBoard(null);
  });
  $("edit-toggle").addEventListener("click", () => {
    state.editing = !state.editing;
    $("edit-toggle").setAttribute("aria-pressed", String(state.editing));
    $("palette").hidden = !state.editing;
  });
  for (const b of document.querySelectorAll("#palette [data-piece]")) {
    b.addEventListener("click", () => {
      state.tool = b.dataset.piece;
      for (const other of document.querySelectorAll("#palette [data-piece]")) other.setAttribute("aria-pressed", String(other === b));
    });
  }
  $("turn-toggle").addEventListener("click", () => {
    state.board.turn = state.board.turn === "white" ? "black" : "white";
    edited();
  });
  $("clear").addEventListener("click", () => {
    state.board.pieces.clear();
    edited();
  });
  $("line-button").addEventListener("click", showLine);
  $("prove-button").addEventListener("click", showProof);
  window.addEventListener("popstate", () => {
    readUrl();
    load();
  });
  history.replaceState(null, "", urlFor(state));
  load();
}

start();
