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
    h("option", {value: "human"}, "Another person (invitation link)"),
    LEVELS.map((l) => h("option", {value: `bot:${l}`, selected: (i > 0 && l === "random") || null}, `Bot: ${l}`)));
  const name = h("input", {id: `seat-name-${i}`, "aria-label": `Seat ${i} name`, value: i === 0 ? "me" : `bot ${i}`,
    maxlength: 40});
  kind.addEventListener("change", () => {
    if (kind.value === "you") name.value = "me";
    else if (kind.value === "human") name.value = `player ${i}`;
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
    const name = $(`seat-name-${i}`).value.trim() || `seat ${i}`;
    roles.push(kind);
    seats.push(kind.startsWith("bot:") ? {name, kind: "bot", level: kind.slice(4)} : {name});
  }
  $("start").disabled = true;
  try {
    const m = await api.create({game: game.id, seats, options: readOptions()});
    const tokens = new Map((m.tokens || []).map((t) => [t.seat, t.token]));
    const link = (seat) => `${location.origin}/play/${m.id}#token=${encodeURIComponent(tokens.get(seat))}`;
    const mine = roles.indexOf("you");
    const others = roles.map((r, i) => [r, i]).filter(([r]) => r === "human").map(([, i]) => i);
    if (!others.length) {
      location.assign(mine >= 0 ? link(mine) : `/play/${m.id}`);
      return;
    }
    const out = clear($("created"));
    out.append(h("h3", {}, "Match created"),
      h("p", {}, "Send each person their own link: it carries their seat's secret token (shown only now)."),
      h("ul", {class: "links"}, others.map((i) => h("li", {}, `Seat ${i} (${seats[i].name}): `,
        h("a", {href: link(i)}, link(i))))),
      mine >= 0 ? h("p", {}, h("a", {href: link(mine), class: "primary"}, "Take your seat")) :
        h("p", {}, h("a", {href: `/play/${m.id}`}, "Watch the match")));
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
      ul.append(h("li", {}, h("a", {href: `/play/${m.id}`}, `${titles.get(m.game) || m.game}`),
        ` · ${m.status} · ${m.seats.map((s) => s.name).join(", ")} · move ${m.version}`));
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
