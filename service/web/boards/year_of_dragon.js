// In the Year of the Dragon: the event row, the action groups with the dragons, the person track, and each
// player's palaces with their persons, resources and privileges; your hand.
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

const PERSON_COLOURS = {
  craftsman: "#9b6b3d", court_lady: "#d86aa8", tax_collector: "#c9a227", pyrotechnist: "#d9463b",
  warrior: "#6b6b6b", monk: "#e07b00", healer: "#2f9e5a", farmer: "#7bb342", scholar: "#2f6fd6",
};

/** The palaces' column, each palace's width (floors and persons), a person tile's width; wrap width of the
 * text column beside them, in characters. */
const PALACES_X = 440, PALACE_W = 128, PERSON_W = 80, WRAP = 66;

/** An action card's printed name ("Fireworks Display"), from the published board. */
function actionName(id, ctx) {
  return ctx.game?.board?.actions?.find((a) => a.id === id)?.name || words(id);
}

function personType(id) {
  return id.replace(/_[yo]$/, "");
}

/** A person tile or card as short as its tile reads: "Court Lady", "Healer (old)". */
function personLabel(id) {
  const age = id.endsWith("_o") ? " (old)" : "";
  return `${words(personType(id)).replace(/\b\w/g, (c) => c.toUpperCase())}${age}`;
}

function personName(id) {
  const age = id.endsWith("_y") ? " (young)" : id.endsWith("_o") ? " (old)" : "";
  return words(personType(id)) + age;
}

function seatColour(view, seat) {
  return colour(null, seat);
}

/** Text in lines of at most WRAP characters (SVG text does not wrap), so it never runs into the palaces. */
function wrap(text) {
  const lines = [""];
  for (const word of text.split(" ")) {
    if (lines.at(-1) && lines.at(-1).length + word.length + 1 > WRAP) lines.push(word);
    else lines[lines.length - 1] = lines.at(-1) ? `${lines.at(-1)} ${word}` : word;
  }
  return lines;
}

function render(view, ctx) {
  const players = view.players;
  const ROW = ctx.game.board.player_row;
  const most = Math.max(3, ...players.map((p) => p.palaces.length));
  const W = Math.max(ctx.game.board.width, PALACES_X + most * PALACE_W + 10);
  const H = 240 + players.length * ROW;
  const parts = [];
  // The event row (R9): one event per month; the current month is outlined.
  parts.push(label(10, 18, "Events (one per month)", "h"));
  view.event_row.forEach((ev, i) => {
    const x = 10 + i * 78;
    const current = view.round === i + 1;
    parts.push(box(x, 26, 74, 40, current ? "current" : view.round > i + 1 ? "done" : "area",
      `Month ${i + 1}: ${words(ev)}${current ? " (this month)" : ""}`));
    parts.push(label(x + 37, 41, `${i + 1}`, "small", "middle"), label(x + 37, 57, words(ev), "small", "middle"));
  });
  // The action groups (R18): each with the dragons placed on it this round.
  parts.push(label(10, 92, "Action groups", "h"));
  const groups = view.groups || [];
  if (!groups.length) {
    parts.push(label(10, 118, "The action cards are dealt into groups when a month's action phase begins.", "small"));
  }
  groups.forEach((g, i) => {
    const x = 10 + i * 160;
    parts.push(box(x, 100, 150, 62, "area-strong", `Group ${i + 1}: ${g.actions.map((a) => actionName(a, ctx)).join(", ")}`));
    g.actions.forEach((a, j) => parts.push(label(x + 8, 116 + j * 13, actionName(a, ctx))));
    parts.push(keyed(s("rect", {x, y: 100, width: 150, height: 62, rx: 4, fill: "transparent", class: "hit"},
      s("title", {}, `group ${i + 1}`)), `group:${i}`));
    // The view counts the dragons on a group (whose they are is in the event log): one marker each.
    for (let j = 0; j < g.dragons; j++) {
      parts.push(circle(x + 138 - j * 14, 150, 6, "#8e1b1b", `${g.dragons} dragon${g.dragons > 1 ? "s" : ""} on group ${i + 1}`));
    }
  });
  // The person track (R19): further along decides first.
  const maxPos = Math.max(40, ...players.map((p) => p.person_pos));
  const tx = 10, tw = W - 20, ty = 200;
  parts.push(label(10, 176, "Person track (further ahead acts first)", "h"));
  parts.push(s("line", {x1: tx, y1: ty, x2: tx + tw, y2: ty, stroke: "#8c7b62", "stroke-width": 3}));
  for (let v = 0; v <= maxPos; v += 5) {
    const x = tx + (v / maxPos) * tw;
    parts.push(s("line", {x1: x, y1: ty - 5, x2: x, y2: ty + 5, stroke: "#8c7b62"}), label(x, ty + 18, v, "small", "middle"));
  }
  const stacked = {};
  for (const p of players) {
    const k = p.person_pos;
    stacked[k] = (stacked[k] || 0) + 1;
    parts.push(circle(tx + (k / maxPos) * tw, ty - 12 * stacked[k], 6, seatColour(view, p.seat),
      `${ctx.seatName(p.seat)}: ${k} on the person track`));
  }
  // The players' boards: what the player has on the left, wrapped to its column; the palaces on the right.
  players.forEach((p, i) => {
    const y = 236 + i * ROW;
    const mine = ctx.you === p.seat;
    parts.push(box(10, y, W - 20, ROW - 8, view.to_move === p.seat ? "current" : "area", null));
    if (mine) parts.push(box(10, y, W - 20, ROW - 8, "mine", null));
    parts.push(circle(24, y + 16, 7, seatColour(view, p.seat), null));
    parts.push(label(36, y + 20, `${ctx.seatName(p.seat)}${mine ? " (you)" : ""}`, "h"));
    const lines = [`${p.vp} VP · ${p.yuan} yuan · ${p.rice} rice · ${p.fireworks} fireworks`,
      `privileges: ${p.privileges.small} small, ${p.privileges.large} large · ${p.hand_size} cards in hand`];
    if (p.hand) {
      lines.push(...wrap(`your hand: ${Object.entries(p.hand).map(([c, n]) => (n > 1 ? `${n}× ${personLabel(c)}` : personLabel(c))).join(", ")}`));
    }
    if (p.played?.length) lines.push(...wrap(`played: ${p.played.map(personLabel).join(", ")}`));
    lines.slice(0, 6).forEach((t, k) => parts.push(label(36, y + 38 + k * 15, t, k < 2 ? "" : "small")));
    // Palaces (R26): floors stacked, persons beside.
    p.palaces.forEach((pal, j) => {
      const px = PALACES_X + j * PALACE_W;
      const base = y + ROW - 28;
      for (let f = 0; f < pal.floors; f++) {
        parts.push(s("rect", {x: px, y: base - (f + 1) * 18, width: 28, height: 16, rx: 2, fill: "#b5523b",
          stroke: "#5a2418"}, s("title", {}, `palace ${j + 1}, floor ${f + 1}`)));
      }
      parts.push(label(px + 14, base + 12, `palace ${j + 1}`, "small", "middle"));
      if (mine) {  // your palace: the actions that name it (build a floor, put a person, release) start here
        parts.push(keyed(s("rect", {x: px - 10, y: y + 4, width: PALACE_W - 4, height: ROW - 14, rx: 4, fill: "transparent", class: "hit"},
          s("title", {}, `your palace ${j + 1}`)), `palace:${j}`));
      }
      pal.persons.forEach((person, k) => {
        const col = PERSON_COLOURS[personType(person)] || "#888";
        parts.push(s("rect", {x: px + 32, y: base - 20 - k * 24, width: PERSON_W, height: 20, rx: 3, fill: col, class: "card"},
          s("title", {}, `${personName(person)} in palace ${j + 1}`)));
        parts.push(label(px + 32 + PERSON_W / 2, base - 6 - k * 24, personLabel(person), "small on-dark", "middle"));
      });
    });
  });
  return svgRoot(W, H, `In the Year of the Dragon, month ${view.round}, ${words(view.phase)} phase`, ...parts);
}

function summary(view, ctx) {
  const lines = [`Month ${view.round} of 12, ${words(view.phase)} phase.`];
  if (view.round >= 1) lines.push(`This month's event: ${words(view.event_row[view.round - 1])}.`);
  lines.push(`Event row: ${view.event_row.map((e, i) => `${i + 1} ${words(e)}`).join("; ")}.`);
  if (view.groups?.length) {
    lines.push(`Action groups: ${view.groups.map((g, i) => `${i + 1}: ${g.actions.map((a) => actionName(a, ctx)).join(", ")}` +
      (g.dragons ? ` (${g.dragons} dragon${g.dragons > 1 ? "s" : ""})` : "")).join("; ")}.`);
  }
  lines.push(`Person track: ${[...view.players].sort((a, b) => b.person_pos - a.person_pos)
    .map((p) => `${ctx.seatName(p.seat)} ${p.person_pos}`).join(", ")}.`);
  for (const p of view.players) {
    const palaces = p.palaces.map((pal, j) => `palace ${j + 1} (${pal.floors} floors: ${pal.persons.map(personName).join(", ") || "empty"})`);
    lines.push(`${ctx.seatName(p.seat)}: ${p.vp} VP, ${p.yuan} yuan, ${p.rice} rice, ${p.fireworks} fireworks, ` +
      `privileges ${p.privileges.small} small / ${p.privileges.large} large; ${palaces.join("; ")}.`);
    if (p.hand) {
      const cards = Object.entries(p.hand).filter(([, n]) => n > 0).map(([c, n]) => `${n} ${words(c)}`);
      lines.push(cards.length ? `Your hand: ${cards.join(", ")}.` : "Your hand is empty.");
    }
  }
  return lines;
}

function scores(view) {
  return view.players.map((p) => p.vp);
}

function describe(action, ctx) {
  switch (action.type) {
    case "court": return `recruit ${personName(action.first)} and ${personName(action.second)}`;
    case "place": return `put the person in palace ${action.palace + 1}`;
    case "action": return `group ${action.group + 1}: ${actionName(action.action, ctx)}`;
    case "recruit": return `play ${action.card === "hidden" ? "a" : `${words(action.card)}`} card: recruit ${personName(action.person)}`;
    case "build_floor": return `build a floor on palace ${action.palace + 1}`;
    case "build_palace": return "found a new palace (one floor)";
    case "privilege": return `buy a ${action.size} privilege`;
    case "refill": return "take yuan up to 3";
    case "release": return `release the ${personName(action.person)} from palace ${action.palace + 1}`;
    case "release_newcomer": return "let the newcomer go";
    case "replace": return `release the ${personName(action.person)} from palace ${action.palace + 1}; the newcomer takes its place`;
    case "spend": return action.card === "hidden" ? "play a card (no tile left)" : `play ${words(action.card)} card (no tile left: nothing)`;
    default: return null;
  }
}

/** The month's public events in words (the generic phrasing shows their raw figures). */
function describeEvent(ev, ctx) {
  const perSeat = (list) => list.map((v, seat) => `${ctx.seatName(seat)} ${v}`).join(", ");
  switch (ev.type) {
    case "round":
      return `Month ${ev.round} begins. Action groups: ${ev.groups.map((g, i) => `${i + 1}: ${g.map((a) => actionName(a, ctx)).join(", ")}`).join(" | ")}.`;
    case "month_event": return `Month ${ev.round}'s event, ${words(ev.event)}: points ${perSeat(ev.vp)}.`;
    case "decay": return `Month ${ev.round}: palace floors lost to decay: ${perSeat(ev.floors_lost)}.`;
    case "round_scoring": return `Month ${ev.round} scoring: points ${perSeat(ev.vp)}.`;
    case "final_scoring": // R52-R54: per seat, points for persons, monks and money
      return `Final scoring: ${ev.vp.map(([persons, monks, money], seat) =>
        `${ctx.seatName(seat)} ${persons + monks + money} (persons ${persons}, monks ${monks}, money ${money})`).join(", ")}.`;
    default: return null;
  }
}

export default {render, summary, scores, describe, describeEvent, seatColour};
