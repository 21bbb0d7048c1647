// The explorer page in a real browser: Debian's Chromium, headless, driven through
// chromedriver's W3C WebDriver protocol (plain fetch, no npm package).
//
//   node server/tests/browser/explorer.mjs http://127.0.0.1:PORT SCREENSHOT_DIR
//
// Loads a position by URL, checks the verdict and the move list against the API, hovers
// and plays the best move, goes back, edits a piece, changes a count and sees the verdict
// change; draws the orthogonal Turkish board and plays on it; writes screenshots of a
// 10x10, an 8x8 diagonal and an 8x8 orthogonal position and of a phone-sized page;
// proves a 14-piece composition by search from the page.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import assert from "node:assert/strict";

const [base, shots] = process.argv.slice(2);
assert.ok(base && shots, "usage: explorer.mjs BASE_URL SCREENSHOT_DIR");
mkdirSync(shots, { recursive: true });

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf"; // the W3C web element key
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const port = await freePort();
const driver = spawn(process.env.CHROMEDRIVER || "chromedriver", [`--port=${port}`], { stdio: "ignore" });
const wd = `http://127.0.0.1:${port}`;
let session;

async function call(method, path, body) {
  const response = await fetch(`${wd}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
  return json.value;
}
const s = (path) => `/session/${session}${path}`;
const run = (script, ...args) => call("POST", s("/execute/sync"), { script, args });
const find = async (css) => {
  const found = await call("POST", s("/element"), { using: "css selector", value: css });
  return found[ELEMENT];
};
const click = async (css) => call("POST", s(`/element/${await find(css)}/click`), {});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, f, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// The page marks itself loaded with the FEN and counters it shows.
const loaded = () => run("return document.body.dataset.loaded || ''");
async function waitLoaded(fen, counters) {
  return until(`the page to show ${fen} ${counters ?? ""}`, async () => {
    const l = await loaded();
    return l.startsWith(fen + "|") && (counters === undefined || l === `${fen}|${counters}`) ? l : null;
  });
}
async function apiAnswer(variant, fen, counters) {
  const q = new URLSearchParams({ fen });
  if (counters) q.set("counters", counters);
  return (await fetch(`${base}/api/${variant}?${q}`)).json();
}
const params = () => run("return Object.fromEntries(new URLSearchParams(location.search))");
async function screenshot(name) {
  writeFileSync(`${shots}/${name}.png`, Buffer.from(await call("GET", s("/screenshot")), "base64"));
  console.log(`   screenshot ${shots}/${name}.png`);
}

try {
  await until("chromedriver", async () => fetch(`${wd}/status`).then((r) => r.ok).catch(() => false));
  const created = await call("POST", "/session", {
    capabilities: {
      alwaysMatch: {
        browserName: "chrome",
        "goog:chromeOptions": {
          binary: process.env.CHROMIUM || "/usr/bin/chromium",
          args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900"],
        },
      },
    },
  });
  session = created.sessionId;

  // 1. A position by URL: verdict and move list as the API gives them.
  const fen = "W:WK46,K47,K48:BK5";
  await call("POST", s("/url"), { url: `${base}/?variant=international&fen=${encodeURIComponent(fen)}&counters=6.3%3D20` });
  await waitLoaded(fen, "6.2=0,6.3=20");
  const answer = await apiAnswer("international", fen, "6.3=20");
  assert.equal(await run("return document.getElementById('verdict-exact').dataset.exact"), answer.verdict.exact);
  assert.equal(await run("return document.getElementById('verdict-exact').textContent"), "White wins");
  const shown = await run("return [...document.querySelectorAll('#moves .move')].map(b => [b.dataset.move, b.classList[1]])");
  assert.deepEqual(shown, answer.moves.map((m) => [m.move, m.exact]), "the move list, grouped by result, best first");
  const headings = await run("return [...document.querySelectorAll('#moves h3')].map(h => h.textContent)");
  console.log(`   ${fen} at 6.3=20: ${answer.verdict.exact}; moves shown: ${headings.join(", ")}`);
  await screenshot("international-3k-1k");

  // 2. Hovering the best move shows it on the board.
  const best = answer.moves[0];
  const [x, y] = await run(
    `const r = document.querySelector('#moves .move[data-move="${best.move}"]').getBoundingClientRect();
     return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]`,
  );
  await call("POST", s("/actions"), {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" },
      actions: [{ type: "pointerMove", origin: "viewport", x, y, duration: 0 }] }],
  });
  await until("the hovered move on the board", () => run(`return !!document.querySelector('[data-square="${best.path[0]}"].hl-from')`));

  // 3. Clicking it plays it: a new URL with the position and counts after it.
  await click(`#moves .move[data-move="${best.move}"]`);
  await waitLoaded(best.fen_after, best.counters_after);
  assert.equal((await params()).fen, best.fen_after);
  assert.equal((await params()).counters, best.counters_after);
  console.log(`   played ${best.move}: ${best.fen_after} (${best.counters_after})`);

  // 4. The back button returns to the position before, and reload keeps a position.
  await call("POST", s("/back"), {});
  await waitLoaded(fen, "6.2=0,6.3=20");
  await call("POST", s("/refresh"), {});
  await waitLoaded(fen, "6.2=0,6.3=20");

  // 5. Changing a count changes the verdict: one ply left of 6.3 is not enough to win.
  // Select the number, type over it and press Enter: one change, as a user makes it.
  const count = await find('#counts input[data-article="6.3"]');
  await call("POST", s(`/element/${count}/value`), { text: "\uE009a\uE00931\uE007" });
  await waitLoaded(fen, "6.2=0,6.3=31");
  assert.equal(await run("return document.getElementById('verdict-exact').dataset.exact"), "draw");
  assert.equal((await apiAnswer("international", fen, "6.3=31")).verdict.exact, "draw");
  console.log("   6.3 set to 31 plies: the win becomes a draw");

  // 6. Editing: a black man on 23 is a new position, with its counts started afresh.
  await click("#edit-toggle");
  await click('#palette [data-piece="bm"]');
  await click('[data-square="23"]');
  const edited = "W:WK46,K47,K48:BK5,23"; // as the page writes it
  await until("the edited position in the URL", async () => (await params()).fen === edited);
  const after = await apiAnswer("international", edited);
  await waitLoaded(after.fen);
  assert.equal(await run("return document.getElementById('verdict-exact').dataset.exact"), after.verdict.exact);
  assert.equal(await run("return document.querySelectorAll('#moves .move').length"), after.moves.length);
  console.log(`   placed a black man on 23: ${edited}, ${after.verdict.exact}, ${after.moves.length} moves`);

  // 7. An 8x8 board with algebraic coordinates, and a phone-sized screen.
  const russian = "W:WKa1,Kc1:BKh8";
  await call("POST", s("/url"), { url: `${base}/?variant=russian&fen=${encodeURIComponent(russian)}` });
  await waitLoaded(russian);
  const ranks = await run("return [...document.querySelectorAll('#board .coord')].map(t => t.textContent).join('')");
  assert.ok(ranks.includes("a") && ranks.includes("8"), `algebraic coordinates: ${ranks}`);
  assert.equal(await run("return document.querySelectorAll('#board rect.dark').length"), 32);
  await screenshot("russian-2k-1k");
  await call("POST", s("/window/rect"), { width: 390, height: 844 });
  await sleep(200);
  const overflow = await run("return document.documentElement.scrollWidth - window.innerWidth");
  assert.ok(overflow <= 0, `no sideways scrolling on a phone (${overflow}px too wide)`);
  await screenshot("phone");

  await call("POST", s("/window/rect"), { width: 1100, height: 900 });

  // 8. The orthogonal board (Turkish): every square played, chosen from the variant list
  // (its default position), a move played, a piece placed by its name.
  await call("POST", s("/url"), { url: `${base}/?variant=russian&fen=${encodeURIComponent(russian)}` });
  await waitLoaded(russian);
  const select = await find("#variant");
  await call("POST", s("/execute/sync"), {
    script: "const e = arguments[0]; e.value = 'turkish'; e.dispatchEvent(new Event('change'));",
    args: [{ [ELEMENT]: select }],
  });
  const turkish = "W:Wd5,Ka1:Bh8";
  await waitLoaded(turkish);
  assert.equal(await run("return document.querySelectorAll('#board rect.dark').length"), 64);
  assert.equal(await run("return document.querySelectorAll('#board rect.light').length"), 0);
  const pieceOn = (name) =>
    run(`const n = document.querySelector('#board [data-name="${name}"]').dataset.square;
         const p = document.querySelector('#board [data-piece-square="' + n + '"]');
         return p ? p.getAttribute('class') : null`);
  assert.deepEqual([await pieceOn("d5"), await pieceOn("a1"), await pieceOn("h8"), await pieceOn("e4")],
    ["piece white", "piece white", "piece black", null], "pieces drawn on their named squares");
  const tanswer = await apiAnswer("turkish", turkish);
  assert.equal(await run("return document.getElementById('verdict-exact').dataset.exact"), tanswer.verdict.exact);
  const tshown = await run("return [...document.querySelectorAll('#moves .move')].map(b => b.dataset.move)");
  assert.deepEqual(tshown, tanswer.moves.map((m) => m.move));
  await screenshot("turkish-man-king-king");
  const tbest = tanswer.moves[0];
  await click(`#moves .move[data-move="${tbest.move}"]`);
  await waitLoaded(tbest.fen_after);
  console.log(`   turkish ${turkish}: ${tanswer.verdict.exact}, played ${tbest.move} (sideways and forward steps on 64 squares)`);
  await call("POST", s("/back"), {});
  await waitLoaded(turkish);
  if (!(await run("return document.getElementById('palette').hidden === false"))) await click("#edit-toggle");
  await click('#palette [data-piece="none"]');
  await click('[data-name="d5"]');
  const tedited = "W:WKa1:Bh8"; // one piece each: a draw on the board in Turkish
  await until("the edited Turkish position", async () => (await params()).fen === tedited);
  await waitLoaded(tedited);
  assert.equal(await run("return document.getElementById('verdict-exact').dataset.exact"), "draw");
  assert.equal((await apiAnswer("turkish", tedited)).verdict.exact, "draw");
  console.log(`   took the man off d5: ${tedited}, a draw (one piece each)`);

  // 9. A bad FEN in the box: the API's error shown, no crash.
  const box = await find("#fen-input");
  await call("POST", s(`/element/${box}/value`), { text: "\uE009a\uE009W:Wz9:B1\uE007" });
  await until("the error", () => run("return !document.getElementById('error').hidden && document.getElementById('error').textContent"));
  console.log(`   bad FEN: "${await run("return document.getElementById('error').textContent")}"`);

  // 10. A composition beyond the tables: the page proves the key by search.
  const study = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42";
  await call("POST", s("/url"), { url: `${base}/?variant=international&fen=${encodeURIComponent(study)}` });
  await until("the study's position", async () => (await loaded()).includes(study) || (await loaded()).startsWith("error|"));
  await click("#prove-button");
  const proved = await until("the proof", () => run("return document.body.dataset.proved || ''"), 30000);
  assert.equal(proved, "win|46-41", "the key proved in the page");
  const shownLine = await run("return document.querySelector('#prove .proof-line').textContent");
  assert.ok(shownLine.startsWith("46-41: 46-41 37x46 19-13 46x5"), shownLine);
  console.log(`   ${study}: proved in the page, ${shownLine}`);
  await screenshot("study-proved");

  // 11. The composer's view, linked: a study's page with its proof, every first move's
  // status (Blonde 1819: 2-11 the key, 2-30 the try refuted only by 39-44).
  const blonde = "W:WK2,K5:B12,22,39";
  await call("POST", s("/url"), { url: `${base}/?variant=international&fen=${encodeURIComponent(blonde)}&prove=1` });
  const blondeProved = await until("the linked proof", async () => {
    const proved = await run("return document.body.dataset.proved || ''");
    return proved.startsWith("win|2-11") || proved === "error" ? proved : "";
  }, 30000);
  assert.equal(blondeProved, "win|2-11", "the key proved from the link");
  assert.equal(await run("return document.body.dataset.tries"), "2-30", "the try named");
  const tryRow = await run("return document.querySelector('#first-moves tr[data-move=\"2-30\"]').textContent");
  assert.ok(tryRow.includes("try") && tryRow.includes("refuted only by 39-44"), tryRow);
  console.log(`   ${blonde}&prove=1: key 2-11, the try ${tryRow}`);
  await screenshot("composer-view");
  console.log("browser test: passed");
} finally {
  if (session) await call("DELETE", s("")).catch(() => {});
  driver.kill();
}
