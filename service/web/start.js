// /play: choose a game, its options and the seats (you, other humans by invitation, bots of any level),
// start; or open a match to watch. Uses only the public v1 API.
import {Api} from "./api.js";
import {clear, h, words} from "./dom.js";

const api = new Api();
const $ = (id) => document.getElementById(id);
const LEVELS = ["random", "easy", "normal", "hard"];
let games = [];
let game = null;

function seatRow(i) {
  const kind = h("select", {id: `seat-kind-${i}`, "aria-label": `Seat ${i} plays as`},
    h("option", {value: "you", selected: i === 0 || null}, "You"),
    h("option", {value: "open"}, "A person who joins (open seat)"),
    LEVELS.map((l) => h("option", {value: `bot:${l}`, selected: (i > 0 && l === "random") || null}, `Bot: ${l}`)));
  const name = h("input", {id: `seat-name-${i}`, "aria-label": `Seat ${i} name`, value: i === 0 ? "me" : `bot ${i}`,
    maxlength: 40});
  kind.addEventListener("change", () => {
    if (kind.value === "you") name.value = "me";
    else if (kind.value === "open") name.value = "";
    else name.value = `${kind.value.slice(4)} ${i}`;
  });
  return h("div", {class: "seat-row"}, h("span", {}, `Seat ${i}`), kind, name);
}

function renderSeats() {
  const n = Number($("players").value);
  const box = clear($("seats"));
  box.append(h("legend", {}, "Seats"));
  for (let i = 0; i < n; i++) box.append(seatRow(i));
}

function optionField(name, schema) {
  const id = `opt-${name}`;
  const desc = schema.description ? ` — ${schema.description}` : "";
  if (schema.type === "boolean") {
    return h("label", {class: "field"}, h("input", {type: "checkbox", id, checked: schema.default || null}),
      ` ${words(name)}${desc}`);
  }
  if (schema.enum) {
    return h("label", {class: "field"}, `${words(name)} `, h("select", {id},
      schema.enum.map((v) => h("option", {value: JSON.stringify(v), selected: v === schema.default || null}, String(v)))), desc);
  }
  const attrs = {type: "number", id, value: schema.default ?? "", min: schema.minimum, max: schema.maximum};
  return h("label", {class: "field"}, `${words(name)} `, h("input", attrs), desc);
}

async function chooseGame() {
  game = await api.game($("game").value);
  $("game-info").textContent = `${game.min_players}–${game.max_players} players. `;
  $("game-info").append(h("a", {href: game.rules_url}, "Rules"));
  const players = clear($("players"));
  for (let n = game.min_players; n <= game.max_players; n++) {
    players.append(h("option", {value: n, selected: n === Math.max(game.min_players, 3) || null}, String(n)));
  }
  renderSeats();
  const opts = clear($("options"));
  opts.append(h("legend", {}, "Options"));
  const props = game.options?.properties || {};
  if (!Object.keys(props).length) opts.append(h("p", {}, "This game has no options."));
  for (const [name, schema] of Object.entries(props)) opts.append(optionField(name, schema));
}

function readOptions() {
  const out = {};
  for (const [name, schema] of Object.entries(game.options?.properties || {})) {
    const el = $(`opt-${name}`);
    if (schema.type === "boolean") out[name] = el.checked;
    else if (schema.enum) out[name] = JSON.parse(el.value);
    else if (el.value !== "") out[name] = Number(el.value);
  }
  return out;
}

async function start(event) {
  event.preventDefault();
  $("error").textContent = "";
  const n = Number($("players").value);
  const seats = [];
  const roles = [];
  for (let i = 0; i < n; i++) {
    const kind = $(`seat-kind-${i}`).value;
    const name = $(`seat-name-${i}`).value.trim() || (kind === "you" ? "me" : `seat ${i}`);
    roles.push(kind);
    seats.push(kind.startsWith("bot:") ? {name, kind: "bot", level: kind.slice(4)} : kind === "open" ? {kind: "open"} : {name});
  }
  $("start").disabled = true;
  try {
    const visibility = $("visibility").value;
    const body = {game: game.id, seats, options: readOptions(), visibility};
    if ($("per-move").value) body.time_control = {per_move_seconds: Number($("per-move").value)};
    const m = await api.create(body);
    const tokens = new Map((m.tokens || []).map((t) => [t.seat, t.token]));
    const frag = (seat) => new URLSearchParams({token: tokens.get(seat), creator: m.creator_token || ""});
    const mine = roles.indexOf("you");
    const own = mine >= 0 ? `/play/${m.id}#${frag(mine)}` : `/play/${m.id}#${new URLSearchParams({creator: m.creator_token || ""})}`;
    if (!m.open_seats?.length) {
      location.assign(own);
      return;
    }
    const invites = new Map((m.invites || []).map((i) => [i.seat, i.code]));
    const joinLink = (seat) => `${location.origin}/play/${m.id}` +
      (invites.has(seat) ? `#${new URLSearchParams({invite: invites.get(seat)})}` : "");
    const out = clear($("created"));
    out.append(h("h3", {}, "Match created: waiting for players"),
      h("p", {}, visibility === "private" ?
        "Send each person their invitation link: it joins one seat, once." :
        "Anyone may join from this link or from the list of matches."),
      h("ul", {class: "links", id: "invite-links"}, m.open_seats.map((seat) => h("li", {}, `Seat ${seat}: `,
        h("a", {href: joinLink(seat), class: "invite"}, joinLink(seat))))),
      h("p", {}, h("a", {href: own, id: "own-seat"}, mine >= 0 ? "Take your seat" : "Watch the match")));
  } catch (err) {
    $("error").textContent = `Could not start: ${err.message}`;
  } finally {
    $("start").disabled = false;
  }
}

async function listMatches() {
  const ul = clear($("matches"));
  try {
    const page = await api.matches("?limit=20");
    const titles = new Map(games.map((g) => [g.id, g.title]));
    for (const m of page.matches) {
      const open = m.status === "waiting" ? ` · ${m.open_seats?.length || 0} open seat(s): join` : "";
      ul.append(h("li", {}, h("a", {href: `/play/${m.id}`}, `${titles.get(m.game) || m.game}`),
        ` · ${m.status}${open} · ${m.seats.map((s) => s.name || "(open)").join(", ")} · move ${m.version}`));
    }
    if (!page.matches.length) ul.append(h("li", {}, "No matches yet."));
  } catch (err) {
    ul.append(h("li", {class: "error"}, err.message));
  }
}

async function main() {
  games = (await api.games()).games;
  const select = $("game");
  for (const g of games) select.append(h("option", {value: g.id}, g.title));
  select.addEventListener("change", chooseGame);
  $("players").addEventListener("change", renderSeats);
  $("new-match").addEventListener("submit", start);
  $("open-form").addEventListener("submit", (e) => {
    e.preventDefault();
    location.assign(`/play/${encodeURIComponent($("open-id").value.trim())}`);
  });
  await chooseGame();
  listMatches();
  document.body.dataset.ready = "true";
}

main();
