// /play/{match_id}: the board of one match, for a seat (token in the URL fragment) or a spectator.
// Everything comes from the public v1 API: the match document (the caller's view), the legal actions,
// the game's action schemas and rules, and the event long-poll for live updates.
import {Api, ApiError, fragment, tokenFromFragment} from "./api.js";
import {clear, colour, count, h, s as svg, words} from "./dom.js";
import {describeServiceEvent, endingText, offerEndedText} from "./events.js";
import {Replay} from "./replay.js";
import {Takebacks} from "./takeback.js";
import {Chat} from "./chat.js";
import {parseRules, ruleIds} from "./rules.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
// A page with a seat sends its token; one opened from an invitation link sends the invite code, which
// lets it read the private match it is invited to (a pass: it reads, and the join takes a seat).
const api = new Api(tokenFromFragment() || fragment().get("invite"));
const $ = (id) => document.getElementById(id);

const state = {
  match: null, game: null, rules: new Map(), board: null, legal: [], legalVersion: null,
  after: "0-0", busy: false, hinted: null, log: [],
  // A finished match's rematch as a spectator sees it ({status: "expired"} once it is gone), how its
  // offer ended (the reason of the last rematch_declined event), and the match_over event read.
  rematch: null, offerEnded: null, over: null, drawn: null,
};

function seatName(seat) {
  const s = state.match?.seats?.[seat];
  return s ? s.name || `seat ${seat}` : `seat ${seat}`;
}

function seatColour(seat, view = state.match.view) {
  return state.board?.seatColour ? state.board.seatColour(view, seat) : colour(null, seat);
}

/** Replay mode (replay.js): past views drawn in a board of their own, in place of the live one, which
 * the page keeps drawing (hidden) as the match goes on. */
const replay = new Replay({
  api, matchId, seatName, describe, describeEvent, match: () => state.match, board: () => state.board,
  game: () => state.game, seatColour: (view, seat) => seatColour(seat, view),
});

/** Takebacks (takeback.js): the button, my request, and another player's request to answer. */
const takebacks = new Takebacks({api, matchId, seatName, refresh: () => refresh(), el: $("takeback-box")});
/** The chat panel (chat.js): its messages come with the match's events (appendEvents). */
const chat = new Chat({api, matchId, el: $("chat-box")});

/** What a board module draws with: names and colours of seats, my seat, the game document (with the
 * board as data) and the view being drawn. */
function ctx() {
  return {seatName, seatColour, you: state.match?.your_seat ?? null, game: state.game, view: state.match?.view};
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
  const service = describeServiceEvent(ev, seatName);
  if (service) return service;
  // An event the game's module does not phrase: its type and figures, leaving out what is hidden (null).
  const skip = new Set(["id", "type", "seat", "rule", "visible_to"]);
  const params = Object.entries(ev).filter(([k, v]) => !skip.has(k) && v !== null && v !== undefined)
    .map(([k, v]) => `${words(k)} ${typeof v === "object" ? JSON.stringify(v) : words(v)}`);
  const what = words(ev.type);
  return `${who}${what[0].toUpperCase()}${what.slice(1)}${params.length ? ": " + params.join(", ") : ""}` +
    `${ev.rule ? ` (${ev.rule})` : ""}.`;
}

function renderPlayers() {
  const m = state.match;
  const scores = state.board?.scores?.(m.view) || m.result?.scores || [];
  const table = clear($("players"));
  table.append(h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "Seat"), h("th", {scope: "col"}, "Player"),
    h("th", {scope: "col"}, "Score"))));
  const body = h("tbody");
  for (const s of m.seats) {
    const who = s.away ? `away: a ${s.level} bot plays` : s.kind === "bot" ? `bot, ${s.level}` :
      s.kind === "open" ? "open seat" : "human";
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
  el.hidden = m.status !== "active";  // nobody decides: no empty box
  if (m.status !== "active") {
    $("status").textContent = m.status === "finished" ? "The match is over." :
      m.status === "waiting" ? "Waiting for players." : endingText(state.over) || `Match ${m.status}.`;
    return;
  }
  const mine = myDecision(m);
  $("status").textContent = away(m) ? "A bot is playing for you." : mine ? "Your turn." :
    `Waiting for ${seatName(m.to_move)}.`;
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

/** Whether my seat is away: a bot plays it after my timeouts, until I come back ("I'm back") or move. */
function away(m) {
  return m.your_seat !== null && Boolean(m.seats[m.your_seat]?.away);
}

/** Whether the pending decision is mine to take here (not while a bot plays my seat). */
function myDecision(m) {
  return m.status === "active" && m.your_seat !== null && m.to_move === m.your_seat && !away(m);
}

function renderActions() {
  const m = state.match;
  const box = $("choices");
  const mine = myDecision(m);
  box.hidden = !mine;
  const drawn = mine ? JSON.stringify([m.version, state.legal, Boolean(state.game), state.rules.size]) : "";
  if (mine && $("actions").dataset.drawn === drawn) {
    // The same choices again (the move's answer after its events drew them, a redraw of the match at
    // the same version): their buttons stay, only enabled or not.  A button replaced while pressed
    // takes no click (the press lands on the old one, the release on the new): a person's click, and
    // CI's, was lost so, and the page waited with the same choices on.
    for (const b of $("actions").querySelectorAll("button.action")) b.disabled = state.busy;
    wireBoard(false);
    return;
  }
  const list = clear($("actions"));
  list.dataset.drawn = drawn;
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
  wireBoard(true);
}

/** Joining a waiting match, cancelling it (its creator), withdrawing a rematch offer, coming back to an
 * away seat, resigning, and a rematch once it is over (offering, joining or declining it). */
function renderLifecycle() {
  const m = state.match;
  const frag = fragment();
  // Redrawn only when what it shows changes: a refresh must not swap the join form (and the name being
  // typed into it, or the button being pressed) for a new one.
  const key = JSON.stringify([m.status, m.your_seat, m.open_seats, m.rematch, frag.get("creator"), away(m),
    state.rematch?.status, state.offerEnded, m.seats.filter((s) => s.kind === "open").length]);
  if ($("lifecycle").dataset.key === key) return;
  $("lifecycle").dataset.key = key;
  const el = clear($("lifecycle"));
  const items = m.status === "waiting" ? waitingItems(m, frag) : m.status === "active" ? activeItems(m) :
    m.status === "finished" ? finishedItems(m) : [];
  el.hidden = !items.length;
  el.append(...items.filter(Boolean));
}

function waitingItems(m, frag) {
  const items = [];
  const open = m.seats.filter((s) => s.kind === "open").length;  // a rematch's seats kept for its players too
  items.push(h("p", {}, `Waiting for ${count(open, "more player")} to take their seat.`));
  if (m.your_seat === null && (m.open_seats || []).length) {
    const name = h("input", {id: "join-name", "aria-label": "Your name", value: "", maxlength: 40, required: true,
      placeholder: "your name"});
    items.push(h("form", {id: "join-form", class: "seat-row", onsubmit: (e) => { e.preventDefault(); join(name.value); }},
      h("label", {}, "Name ", name), h("button", {type: "submit", class: "primary"}, "Join this match")));
  }
  if (frag.get("creator")) items.push(h("button", {type: "button", id: "cancel", onclick: cancel}, "Cancel the match"));
  if (m.your_seat !== null && frag.get("rematch_of") && frag.get("rematch_of_token")) {
    items.push(h("button", {type: "button", id: "withdraw-rematch", onclick: withdrawRematch}, "Withdraw the offer"));
  }
  return items;
}

function activeItems(m) {
  if (m.your_seat === null) return [];
  const items = [];
  if (away(m)) {
    items.push(h("p", {id: "away-notice", class: "notice"}, "You were away: a bot is playing for you."),
      h("button", {type: "button", id: "back", class: "primary", onclick: comeBack}, "I'm back"));
  }
  items.push(h("button", {type: "button", id: "resign", onclick: resign}, "Resign (a bot takes your seat)"));
  return items;
}

/** Whether my seat is still my own: a human's, or away (its player never left); not one I resigned. */
function holdsSeat(m) {
  const seat = m.your_seat === null ? null : m.seats[m.your_seat];
  return Boolean(seat && (seat.kind === "human" || seat.away));
}

/** A player of a finished match decides on a rematch. */
function finishedItems(m) {
  if (!holdsSeat(m)) return [];
  const offer = m.rematch ? state.rematch?.status : null;
  const again = h("button", {type: "button", id: "rematch", onclick: rematch}, "Rematch");
  if (!offer) return [again];
  if (offer === "expired") return [h("p", {id: "rematch-outcome"}, "The rematch offer expired."), again];
  if (offer === "aborted") return [h("p", {id: "rematch-outcome"}, offerEndedText(state.offerEnded))];
  const watch = h("a", {href: `/play/${encodeURIComponent(m.rematch)}`}, "the rematch");
  if (offer !== "waiting") return [h("p", {id: "rematch-outcome"}, "The rematch is under way: watch ", watch, ".")];
  return [h("p", {}, "A rematch was offered."),
    h("button", {type: "button", id: "rematch", class: "primary", onclick: rematch}, "Join the rematch"),
    h("button", {type: "button", id: "decline-rematch", onclick: declineRematch}, "Decline")];
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

/** Back from away: only this explicit call gives the seat back (reading the match or its legal actions
 * never does).  A second press, or another tab of mine, may find the seat mine already: no refusal. */
function comeBack() {
  return lifecycleCall(async () => {
    try {
      await api.returnToSeat(matchId);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "not_away") throw err;
    }
  });
}

/** The rematch's page keeps this match's id and token (in the fragment, never sent), so its offerer can
 * withdraw the offer there: only a seat token of the finished match says no to its rematch. */
async function rematch() {
  try {
    const next = await api.rematch(matchId);
    const frag = new URLSearchParams({token: next.token, rematch_of: matchId, rematch_of_token: api.token});
    location.assign(`/play/${encodeURIComponent(next.match_id)}#${frag}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    showRefusal(err);
  }
}

function declineRematch() {
  return lifecycleCall(() => api.declineRematch(matchId));
}

function withdrawRematch() {
  const frag = fragment();
  return lifecycleCall(() => new Api(frag.get("rematch_of_token")).declineRematch(frag.get("rematch_of")));
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
/** Makes the board's pieces that legal actions name choosable (the board is drawn anew each time), and
 * with `buttons` (new ones) lights those pieces while a choice's button is hovered or focused. */
function wireBoard(buttons) {
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
  if (!buttons) return;
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
    h("button", {type: "button", onclick: () => { $("actions").dataset.drawn = ""; renderActions(); }},
      "Show all choices"));
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
    el.append(h("ol", {class: "ranking"}, order.map((seat) => h("li", {}, `${seatName(seat)}: ${count(r.scores[seat], "point")}`))));
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
  document.body.dataset.version = String(m.version);  // the version drawn (browser tests watch it)
  renderPlayers();
  renderTurn();
  renderLifecycle();
  renderBoard();
  renderActions();
  renderResult();
  replay.offer();
  takebacks.update(m).catch((err) => console.error(err));
  chat.update(m).catch((err) => console.error(err));
}

/** Says why my move was not played: the server's refusal (with its rule), or a failure on the way. */
function showRefusal(err) {
  const el = clear($("refusal"));
  el.hidden = false;
  if (!(err instanceof ApiError)) {
    el.append(h("h2", {}, "Move not sent"), h("p", {class: "refusal-message"},
      `The connection failed (${err.message}); choose again.`));
    return;
  }
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

/** Whether an error is the network's or the server's passing trouble (worth a retry), not an answer. */
function transient(err) {
  return !(err instanceof ApiError) || err.status >= 500 || err.status === 429;
}

/** Fetches the match (and my legal actions when the decision is mine, never while my seat is away:
 * the server refuses them then, 403 `seat_away`, until "I'm back"; and a finished match's
 * rematch) and draws it, unless a newer refresh was asked for meanwhile: its answer may predate that
 * move or event, and drawing it would roll the board back for a moment (a person, or a test, could then
 * click an action already gone). */
async function load() {
  let m;
  try {
    m = await api.match(matchId);
  } catch (err) {
    // A token the match no longer knows (e.g. a seat given up before the start): watch instead.
    if (!(err instanceof ApiError) || err.status !== 401 || !api.token) throw err;
    api.token = null;
    m = await api.match(matchId);
  }
  let legal = [];
  if (myDecision(m)) {
    try {
      const page = await api.legal(matchId);
      if (page.version !== m.version) return load();
      legal = page.actions;
    } catch (err) {
      if (transient(err)) throw err;
    }
  }
  const rematch = await rematchOf(m);
  if (refreshing.again) return;
  // The same document again (the first events' refresh after the page's load, a lifecycle call that
  // changed nothing): redrawing would only drop what the person is doing (a narrowed list, a focus).
  const drawn = JSON.stringify([m, legal, rematch, state.offerEnded, state.over]);
  if (drawn === state.drawn) return;
  state.drawn = drawn;
  state.match = m;
  state.legal = legal;
  state.rematch = rematch;
  if (state.hinted && state.hinted.version !== m.version) { state.hinted = null; $("hint-out").textContent = ""; }
  render();
}

/** Pauses (ms) between the reads of a rematch that answer 404 before the page calls its offer expired:
 * the offer links the finished match to its rematch (the `rematch` event) a moment before the server
 * makes the rematch, and a read in between is answered as an expired offer is.  No later event of the
 * finished match would correct it (its player's page stayed on "expired", CI's flake). */
const REMATCH_NOT_YET_MS = [250, 500, 1000, 2000];

/** The rematch of a finished match I played, as a spectator sees it (a rematch is private: this page's
 * seat token, the one its seat in the rematch is kept for, reads it); {status: "expired"} when the
 * offer expired unclaimed (it may be made again).  A rematch this page has seen expired is read once;
 * one it has not, again for a few seconds first (REMATCH_NOT_YET_MS). */
async function rematchOf(m) {
  if (m.status !== "finished" || !m.rematch || !holdsSeat(m)) return null;
  const seenExpired = state.rematch?.id === m.rematch && state.rematch.status === "expired";
  const pauses = seenExpired ? [] : REMATCH_NOT_YET_MS;
  for (let i = 0; ; i++) {
    try {
      const doc = await new Api(api.token).match(m.rematch);
      return {id: m.rematch, status: doc.status};
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
    }
    if (i >= pauses.length) return {id: m.rematch, status: "expired"};
    await new Promise((r) => setTimeout(r, pauses[i]));
  }
}

/** One refresh at a time: refreshes asked for while one runs (a move's answer and its event arrive
 * together) become one more run after it, so answers are drawn in the order they were asked for.
 * A passing failure is retried: dropping it would leave the board frozen on an old state, because
 * the event that announced the new one has already been read. */
const refreshing = {run: null, again: false};

function refresh() {
  if (refreshing.run) {
    refreshing.again = true;
    return refreshing.run;
  }
  refreshing.run = (async () => {
    let delay = 500;
    try {
      do {
        refreshing.again = false;
        try {
          await load();
          delay = 500;
        } catch (err) {
          if (!transient(err) || !state.match) throw err;
          $("status").textContent = `Connection problem (${err.message}); retrying…`;
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 10_000);
          refreshing.again = true;
        }
      } while (refreshing.again);
    } finally {
      refreshing.run = null;
    }
  })();
  return refreshing.run;
}

/** Pauses (ms) before each resend of a move whose request failed on the way (the network, a 5xx, a 429,
 * or the first try still running): without them a click lost in transit changed nothing on the page,
 * its choices drawn again as they were, and nothing said why. */
const MOVE_RESEND_MS = [250, 500, 1000, 2000];

/** A fresh Idempotency-Key (any context: `crypto.randomUUID` needs HTTPS or localhost). */
function moveKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Sends a move, resent under the same Idempotency-Key while its failure is a passing one, so it is
 * applied once however many tries it took. */
async function sendMove(action, version) {
  const key = moveKey();
  for (let i = 0; ; i++) {
    try {
      return await api.move(matchId, action, version, key);
    } catch (err) {
      const running = err instanceof ApiError && err.code === "idempotency_in_progress";
      if (!(transient(err) || running) || i >= MOVE_RESEND_MS.length) throw err;
    }
    await new Promise((r) => setTimeout(r, MOVE_RESEND_MS[i]));
  }
}

async function play(action) {
  if (state.busy) return;
  state.busy = true;
  for (const b of document.querySelectorAll("button.action")) b.disabled = true;
  try {
    await sendMove(action, state.match.version);
    hideRefusal();
  } catch (err) {
    showRefusal(err);
  } finally {
    state.busy = false;
    // Drawn again even if the match is as last drawn: its events may have drawn the next decision
    // while this move was under way, its choices disabled, and no event comes to draw them enabled.
    state.drawn = null;
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
    if (ev.type === "heartbeat" || chat.onEvent(ev)) continue;
    if (ev.type === "match_over") state.over = ev;
    if (ev.type === "rematch_declined") state.offerEnded = ev.reason;
    ol.append(h("li", {"data-type": ev.type}, describeEvent(ev)));
  }
  while (ol.children.length > 5000) ol.removeChild(ol.firstChild);
  ol.scrollTop = ol.scrollHeight;
}

/** Whether a match that is over may still change what this page shows: a finished match of mine
 * whose rematch may still be offered, taken or declined (its events say so). */
function awaitsRematch() {
  const m = state.match;
  return m.status === "finished" && holdsSeat(m) && state.rematch?.status !== "aborted";
}

/** Follows the match: long-polls events, refreshing the view after each batch, until it ends (and,
 * for a player of a finished match, until its rematch is settled). */
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
      } else {
        const over = page.status !== "active" && page.status !== "waiting";
        if (page.version > state.match.version || page.status !== state.match.status) {
          // Nothing new to read, yet the match is past the one drawn: the refresh after its events
          // failed, or drew an answer older than they were.  Read it again rather than wait on.
          await refresh();
        } else if (over && state.rematch && awaitsRematch()) {
          // No event of this match says when its rematch is made, starts or expires: read it again.
          await refresh();
        }
        if (over && !awaitsRematch()) return;
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
  replay.wire();
  setInterval(tick, 1000);
  // On a phone the board in words would stand between the board and the choices: folded, one tap away.
  if (matchMedia("(max-width: 700px)").matches) $("summary-box").open = false;
  document.body.dataset.ready = "true";
  follow();
}

main();
