// /play/{match_id}: the board of one match, for a seat (token in the URL fragment) or a spectator.
// Everything comes from the public v1 API: the match document (the caller's view), the legal actions,
// the game's action schemas and rules, and the event long-poll for live updates.
import {Api, ApiError, fragment, tokenFromFragment} from "./api.js";
import {clear, colour, h, s as svg, words} from "./dom.js";
import {parseRules, ruleIds} from "./rules.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = new Api(tokenFromFragment());
const $ = (id) => document.getElementById(id);

const state = {
  match: null, game: null, rules: new Map(), board: null, legal: [], legalVersion: null,
  after: "0-0", busy: false, hinted: null, log: [],
};

function seatName(seat) {
  const s = state.match?.seats?.[seat];
  return s ? s.name || `seat ${seat}` : `seat ${seat}`;
}

function seatColour(seat) {
  return state.board?.seatColour ? state.board.seatColour(state.match.view, seat) : colour(null, seat);
}

function ctx() {
  return {seatName, seatColour, you: state.match?.your_seat ?? null, game: state.game};
}

/** An action in words: the board's own phrasing, else its type and parameters. */
function describe(action) {
  const own = state.board?.describe?.(action, ctx());
  if (own) return own;
  const params = Object.entries(action).filter(([k]) => k !== "type")
    .map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : words(v)}`);
  return [words(action.type), ...params].join(" · ");
}

function ruleText(id) {
  return state.rules.get(id) || state.rules.get(id.replace(/[a-z]$/, "")) || "";
}

/** A rule id with its text to open (keyboard: a <details> is focusable and opens with Enter). */
function ruleNote(id) {
  const text = ruleText(id);
  if (!text) return h("span", {class: "rule-id"}, id);
  return h("details", {class: "rule"}, h("summary", {}, id), h("p", {}, text));
}

function describeEvent(ev) {
  const own = state.board?.describeEvent?.(ev, ctx());
  if (own) return own;
  const who = ev.seat !== undefined && ev.seat !== null ? `${seatName(ev.seat)}: ` : "";
  if (ev.type === "action") return `${who}${describe(ev.action)}${ev.auto ? " (forced)" : ""}`;
  if (ev.type === "match_created") return `Match created: ${ev.seats.map((s) => s.name).join(", ")}`;
  const skip = new Set(["id", "type", "seat", "rule", "visible_to"]);
  const params = Object.entries(ev).filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${words(k)} ${typeof v === "object" ? JSON.stringify(v) : words(v)}`);
  return `${who}${words(ev.type)}${params.length ? ": " + params.join(", ") : ""}${ev.rule ? ` (${ev.rule})` : ""}`;
}

function renderPlayers() {
  const m = state.match;
  const scores = state.board?.scores?.(m.view) || m.result?.scores || [];
  const table = clear($("players"));
  table.append(h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "Seat"), h("th", {scope: "col"}, "Player"),
    h("th", {scope: "col"}, "Score"))));
  const body = h("tbody");
  for (const s of m.seats) {
    const who = s.kind === "bot" ? `bot, ${s.level}` : s.kind === "open" ? "open seat" : "human";
    const marks = [];
    if (m.to_move === s.seat) marks.push("to move");
    if (m.your_seat === s.seat) marks.push("you");
    body.append(h("tr", {class: m.to_move === s.seat ? "to-move" : ""},
      h("td", {}, h("span", {class: `swatch seat-${s.seat}`, "data-seat": s.seat}), ` ${s.seat}`),
      h("td", {}, `${s.name} (${who})`, marks.length ? h("strong", {}, ` — ${marks.join(", ")}`) : null),
      h("td", {class: "num"}, scores[s.seat] ?? "")));
  }
  table.append(body);
  for (const sw of table.querySelectorAll(".swatch")) sw.append(swatch(seatColour(Number(sw.dataset.seat))));
}

function swatch(fill) {
  return svg("svg", {width: 12, height: 12, "aria-hidden": "true"}, svg("circle", {cx: 6, cy: 6, r: 6, fill}));
}

function renderTurn() {
  const m = state.match;
  const el = clear($("turn"));
  const pending = m.view?.pending;
  if (m.status !== "active") {
    $("status").textContent = m.status === "finished" ? "The match is over." :
      m.status === "waiting" ? "Waiting for players." : `Match ${m.status}.`;
    return;
  }
  const mine = m.to_move !== null && m.to_move === m.your_seat;
  $("status").textContent = mine ? "Your turn." : `Waiting for ${seatName(m.to_move)}.`;
  el.append(h("h2", {}, mine ? "Your decision" : `${seatName(m.to_move)} decides`));
  if (m.clock?.deadline) {
    el.append(h("p", {class: "clock"}, "Time left: ", h("span", {id: "clock", "data-deadline": m.clock.deadline}, ""),
      ` (then a ${m.clock.on_timeout} bot decides)`));
    tick();
  }
  if (pending) {
    el.append(h("p", {}, words(pending.decision || "decision"),
      pending.rule ? " — rule " : "", pending.rule ? ruleNote(pending.rule) : ""));
  }
}

/** The pending decision's countdown (the server's deadline; the workers enforce it). */
function tick() {
  const el = $("clock");
  if (!el) return;
  const left = Math.max(0, Math.round(Number(el.dataset.deadline) - Date.now() / 1000));
  el.textContent = left >= 60 ? `${Math.floor(left / 60)} min ${left % 60} s` : `${left} s`;
}

function renderActions() {
  const m = state.match;
  const box = $("choices");
  const mine = m.status === "active" && m.your_seat !== null && m.to_move === m.your_seat;
  box.hidden = !mine;
  const list = clear($("actions"));
  list.dataset.version = mine ? String(m.version) : "";
  if (!mine) return;
  const groups = new Map();
  state.legal.forEach((a, i) => {
    if (!groups.has(a.type)) groups.set(a.type, []);
    groups.get(a.type).push([a, i]);
  });
  let first = true;
  for (const [type, items] of groups) {
    const schema = state.game?.actions?.[type] || {};
    const desc = schema.description || "";
    const group = h("details", {class: "action-group", open: first || items.length <= 12 ? true : null},
      h("summary", {}, `${words(type)} (${items.length})`));
    if (desc) group.append(h("p", {class: "desc"}, desc));
    const ids = [...new Set(ruleIds(desc))];
    if (ids.length) group.append(h("div", {class: "rules"}, "Rules: ", ids.map((id) => ruleNote(id))));
    const ul = h("ul", {class: "action-list"});
    for (const [a, i] of items) {
      ul.append(h("li", {}, h("button", {type: "button", class: "action", "data-index": i,
        "data-action": JSON.stringify(a), onclick: () => play(a), disabled: state.busy || null},
      describe(a))));
    }
    group.append(ul);
    list.append(group);
    first = false;
  }
  wireBoard();
}

/** Joining a waiting match, cancelling it (its creator), resigning, and a rematch once it is over. */
function renderLifecycle() {
  const m = state.match;
  const frag = fragment();
  // Redrawn only when what it shows changes: a refresh must not swap the join form (and the name being
  // typed into it, or the button being pressed) for a new one.
  const key = JSON.stringify([m.status, m.your_seat, m.open_seats, m.rematch, frag.get("creator")]);
  if ($("lifecycle").dataset.key === key) return;
  $("lifecycle").dataset.key = key;
  const el = clear($("lifecycle"));
  const items = [];
  if (m.status === "waiting") {
    const open = m.open_seats || [];
    items.push(h("p", {}, `Waiting for ${open.length} more player${open.length === 1 ? "" : "s"} to join.`));
    if (m.your_seat === null && open.length) {
      const name = h("input", {id: "join-name", "aria-label": "Your name", value: "", maxlength: 40, required: true,
        placeholder: "your name"});
      items.push(h("form", {id: "join-form", class: "seat-row", onsubmit: (e) => { e.preventDefault(); join(name.value); }},
        h("label", {}, "Name ", name), h("button", {type: "submit", class: "primary"}, "Join this match")));
    }
    if (frag.get("creator")) items.push(h("button", {type: "button", id: "cancel", onclick: cancel}, "Cancel the match"));
  } else if (m.status === "active" && m.your_seat !== null) {
    items.push(h("button", {type: "button", id: "resign", onclick: resign}, "Resign (a bot takes your seat)"));
  } else if (m.status === "finished" && m.your_seat !== null) {
    items.push(m.rematch ? h("p", {}, "A rematch was asked for: ") : null,
      h("button", {type: "button", id: "rematch", onclick: rematch}, m.rematch ? "Join the rematch" : "Rematch"));
  }
  el.hidden = !items.length;
  el.append(...items.filter(Boolean));
}

/** Replaces the seat token in the URL fragment (kept there so a reload keeps the seat; never sent). */
function useToken(token) {
  const frag = fragment();
  frag.set("token", token);
  frag.delete("invite");
  history.replaceState(null, "", `${location.pathname}#${frag}`);
  api.token = token;
}

async function lifecycleCall(fn) {
  try {
    await fn();
    hideRefusal();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    showRefusal(err);
  }
  await refresh();
}

function join(name) {
  return lifecycleCall(async () => {
    const invite = fragment().get("invite");
    const body = {seat: "any", name: name.trim() || "guest", ...(invite ? {invite} : {})};
    const joined = await api.join(matchId, body);
    useToken(joined.token);
  });
}

function cancel() {
  return lifecycleCall(() => api.cancel(matchId, fragment().get("creator")));
}

function resign() {
  const button = $("resign");
  if (button.dataset.confirm !== "yes") {
    button.dataset.confirm = "yes";
    button.textContent = "Really resign? Press again";
    return Promise.resolve();
  }
  return lifecycleCall(() => api.resign(matchId));
}

async function rematch() {
  try {
    const next = await api.rematch(matchId);
    location.assign(`/play/${encodeURIComponent(next.match_id)}#${new URLSearchParams({token: next.token})}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    showRefusal(err);
  }
}

/** The keys an action names: each parameter as "name:value" and as its bare value. */
function actionKeys(action) {
  const keys = new Set();
  for (const [k, v] of Object.entries(action)) {
    if (k === "type") continue;
    keys.add(`${k}:${v}`);
    keys.add(String(v));
  }
  return keys;
}

function names(el, action) {
  const keys = actionKeys(action);
  return el.dataset.key.split(" ").every((k) => keys.has(k));
}

/** Choices on the board: a board element that some legal actions name becomes a button (click, Enter
 * or Space) that narrows the list to those actions; a choice in the list lights its elements up. */
function wireBoard() {
  const board = $("board");
  for (const el of board.querySelectorAll("[data-key]")) {
    const hits = state.legal.map((a, i) => [a, i]).filter(([a]) => names(el, a)).map(([, i]) => i);
    if (!hits.length || el.dataset.wired) continue;
    el.dataset.wired = "yes";
    el.classList.add("choosable");
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    const what = el.querySelector("title")?.textContent || el.dataset.key;
    el.setAttribute("aria-label", `${what}: ${hits.length} choice${hits.length > 1 ? "s" : ""}`);
    const pick = () => narrow(what, hits);
    el.addEventListener("click", pick);
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); }
    });
  }
  for (const b of document.querySelectorAll("button.action")) {
    const action = state.legal[Number(b.dataset.index)];
    const light = (on) => {
      for (const el of board.querySelectorAll("[data-key]")) if (names(el, action)) el.classList.toggle("lit", on);
    };
    b.addEventListener("mouseenter", () => light(true));
    b.addEventListener("mouseleave", () => light(false));
    b.addEventListener("focus", () => light(true));
    b.addEventListener("blur", () => light(false));
  }
}

function narrow(what, indices) {
  const keep = new Set(indices.map(String));
  for (const b of document.querySelectorAll("button.action")) b.closest("li").hidden = !keep.has(b.dataset.index);
  for (const d of document.querySelectorAll(".action-group")) {
    d.hidden = ![...d.querySelectorAll("button.action")].some((b) => keep.has(b.dataset.index));
    if (!d.hidden) d.open = true;
  }
  document.getElementById("narrowed")?.remove();
  const note = h("p", {id: "narrowed"}, `Choices for ${what}. `,
    h("button", {type: "button", onclick: () => renderActions()}, "Show all choices"));
  $("actions").prepend(note);
  const first = [...document.querySelectorAll("button.action")].find((b) => !b.closest("li").hidden);
  first?.focus();
}

function renderResult() {
  const m = state.match;
  const el = $("result");
  if (!m.result) { el.hidden = true; return; }
  el.hidden = false;
  clear(el).append(h("h2", {}, "Result"));
  const r = m.result;
  const winners = r.winners || (r.ranking ? [r.ranking[0]] : []);
  el.append(h("p", {class: "winners"}, winners.length > 1 ? "Winners: " : "Winner: ",
    winners.map(seatName).join(", ")));
  if (r.scores) {
    const order = r.ranking || r.scores.map((_, i) => i);
    el.append(h("ol", {class: "ranking"}, order.map((seat) => h("li", {}, `${seatName(seat)}: ${r.scores[seat]} points`))));
  }
  if (r.tiebreak) el.append(h("p", {}, `Tie-break: ${typeof r.tiebreak === "string" ? r.tiebreak : JSON.stringify(r.tiebreak)}`));
  el.append(h("details", {}, h("summary", {}, "Full result"), h("pre", {}, JSON.stringify(r, null, 1))));
}

function renderBoard() {
  const m = state.match;
  const board = clear($("board"));
  const summary = clear($("summary"));
  if (!state.board || !m.view) return;
  try {
    board.append(state.board.render(m.view, ctx()));
    summary.append(h("ul", {}, state.board.summary(m.view, ctx()).map((line) => h("li", {}, line))));
  } catch (err) {
    board.append(h("p", {class: "error"}, `The board could not be drawn: ${err.message}`));
    console.error(err);
  }
}

function render() {
  const m = state.match;
  $("title").textContent = `${state.game?.title || m.game} · ${m.id}`;
  document.title = `Tabletop · ${state.game?.title || m.game}`;
  renderPlayers();
  renderTurn();
  renderLifecycle();
  renderBoard();
  renderActions();
  renderResult();
}

function showRefusal(err) {
  const el = clear($("refusal"));
  el.hidden = false;
  el.append(h("h2", {}, "Move refused"), h("p", {class: "refusal-message"}, err.message));
  if (err.rule) {
    const text = ruleText(err.rule);
    el.append(h("p", {class: "refusal-rule"}, h("strong", {}, `Rule ${err.rule}`), text ? `: ${text}` : ""));
  } else if (err.status === 412 || err.status === 409) {
    el.append(h("p", {}, "The match moved on before your move arrived; the board now shows its new state."));
  }
  el.append(h("p", {class: "code"}, `${err.status} ${err.code}`));
}

function hideRefusal() {
  $("refusal").hidden = true;
}

async function refresh() {
  let m;
  try {
    m = await api.match(matchId);
  } catch (err) {
    // A token the match no longer knows (e.g. a seat given up before the start): watch instead.
    if (!(err instanceof ApiError) || err.status !== 401 || !api.token) throw err;
    api.token = null;
    m = await api.match(matchId);
  }
  state.match = m;
  state.legal = [];
  if (m.status === "active" && m.your_seat !== null && m.to_move === m.your_seat) {
    try {
      const legal = await api.legal(matchId);
      if (legal.version === m.version) state.legal = legal.actions;
      else return refresh();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  if (state.hinted && state.hinted.version !== m.version) { state.hinted = null; $("hint-out").textContent = ""; }
  render();
}

async function play(action) {
  if (state.busy) return;
  state.busy = true;
  for (const b of document.querySelectorAll("button.action")) b.disabled = true;
  try {
    await api.move(matchId, action, state.match.version);
    hideRefusal();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    showRefusal(err);
  } finally {
    state.busy = false;
    await refresh();
  }
}

async function askHint() {
  const out = $("hint-out");
  out.textContent = "Thinking…";
  const version = state.match.version;
  try {
    let {data} = await api.hint(matchId, $("hint-level").value);
    while (data.status !== "finished" && data.status !== "failed") {
      await new Promise((r) => setTimeout(r, 300));
      ({data} = await api.job(data.id));
    }
    if (data.status === "failed" || state.match.version !== version) {
      out.textContent = data.error || "The hint came too late; ask again.";
      return;
    }
    state.hinted = {version, action: data.action};
    out.textContent = `Suggested: ${describe(data.action)}`;
    const key = JSON.stringify(data.action);
    for (const b of document.querySelectorAll("button.action")) {
      if (b.dataset.action === key) { b.classList.add("hinted"); b.closest("details").open = true; b.focus(); }
    }
  } catch (err) {
    out.textContent = err.message;
  }
}

function appendEvents(events) {
  const ol = $("log");
  for (const ev of events) {
    if (ev.type === "heartbeat") continue;
    ol.append(h("li", {"data-type": ev.type}, describeEvent(ev)));
  }
  while (ol.children.length > 5000) ol.removeChild(ol.firstChild);
  ol.scrollTop = ol.scrollHeight;
}

/** Follows the match: long-polls events, refreshing the view after each batch, until it ends. */
async function follow() {
  let delay = 500;
  for (;;) {
    try {
      const page = await api.events(matchId, state.after, 25);
      delay = 500;
      if (page.events.length) {
        appendEvents(page.events);
        state.after = page.last_id;
        await refresh();
      } else if (page.status !== "active" && page.status !== "waiting") {
        if (state.match.status !== page.status) await refresh();
        return;
      }
    } catch (err) {
      $("status").textContent = `Connection problem (${err.message}); retrying…`;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  }
}

async function main() {
  try {
    await refresh();
  } catch (err) {
    $("title").textContent = "Match not found";
    $("status").textContent = err.message;
    return;
  }
  const gameId = state.match.game;
  const [game, rules] = await Promise.all([api.game(gameId), api.rules(gameId)]);
  state.game = game;
  state.rules = parseRules(rules);
  try {
    state.board = (await import(`./boards/${gameId}.js`)).default;
  } catch (err) {
    console.error(err);
  }
  render();
  $("hint").addEventListener("click", askHint);
  $("raw-form").addEventListener("submit", (e) => {
    e.preventDefault();
    let action;
    try { action = JSON.parse($("raw-action").value); } catch (err) {
      showRefusal(new ApiError(400, {code: "bad_json", message: `Not JSON: ${err.message}`}));
      return;
    }
    play(action);
  });
  setInterval(tick, 1000);
  document.body.dataset.ready = "true";
  follow();
}

main();
