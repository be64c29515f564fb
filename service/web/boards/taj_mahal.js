// Taj Mahal: the map as GET /v1/games/taj_mahal publishes it (provinces with their outlines, the roads
// between cities, fortified cities, palaces and bonus tiles; the province being visited), the court of
// the Grand Mogul, the open display, each player's cards on the table, influence, goods and tiles; your
// hand.  Cards are named by what they show (colour and symbols), as a person at the table names them.
import {box, circle, colour, count, keyed, label, s, svgRoot, words} from "../dom.js";

/** Fills of the provinces: neighbours never share one, as on a political map. */
const LAND = ["#efe0b9", "#d9e6c3", "#f3d2b3", "#d6dcec", "#eed8e4", "#e2e8c8"];
const CARD_W = 76, CARD_H = 46;

function seatColour(view, seat) {
  return colour(null, seat);
}

/** Province id -> fill: the first of LAND that no neighbour already has. */
function landColours(board) {
  const out = {};
  for (const p of board.provinces) {
    const taken = new Set(p.neighbours.map((n) => out[n]));
    out[p.id] = LAND.find((c) => !taken.has(c)) || LAND[0];
  }
  return out;
}

function points(outline) {
  return outline.map(([x, y]) => `${x},${y}`).join(" ");
}

/** Every card the view shows, by id (the hand, the display, the tables), to name cards by their face. */
function cardsInView(view) {
  const out = new Map();
  for (const c of [...view.display, ...view.players.flatMap((p) => [...(p.hand || []), ...p.table])]) out.set(c.id, c);
  return out;
}

/** A card as its face reads: "purple: elephant + general", "white: monk", "special: two points".  A card
 * the view no longer shows (played long ago, or in another hand) is named by its colour alone. */
function cardName(c) {
  if (typeof c === "string") return c.startsWith("special-") ? `special card ${words(c.slice(8))}` : `${c.split("-")[0]} card`;
  if (c.kind === "special") return `special card ${words(c.id.replace("special-", ""))}`;
  return `${c.colour || c.kind} card: ${c.symbols.map(words).join(" + ")}`;
}

function named(id, ctx) {
  return cardName(ctx.view ? cardsInView(ctx.view).get(id) || id : id);
}

function cardShape(x, y, c, title) {
  const fill = c.kind === "special" ? "#e9d8a6" : c.kind === "white" ? "#f4f1e8" : colour(c.colour);
  const lines = c.kind === "special" ? words(c.id.replace("special-", "")).split(" ") : c.symbols.map(words);
  const dark = c.kind === "colored" && c.colour !== "yellow";
  return [s("rect", {x, y, width: CARD_W, height: CARD_H, rx: 5, fill, class: "card", "data-key": c.id},
    s("title", {}, title || cardName(c))),
  ...lines.map((t, i) => label(x + CARD_W / 2, y + 19 + i * 13 - (lines.length - 1) * 4, t, `small${dark ? " on-dark" : ""}`, "middle"))];
}

function bonusText(b) {
  if (b.kind === "points") return `+${b.value}`;
  if (b.kind === "card") return "+card";
  return words(b.value);
}

/** The map: provinces, roads, cities with their palaces and bonus tiles. */
function drawMap(view, ctx, board) {
  const parts = [];
  const fills = landColours(board);
  const at = Object.fromEntries(board.cities.map((c) => [c.id, c.at]));
  for (const p of board.provinces) {
    const current = p.id === view.current_province;
    parts.push(s("polygon", {points: points(p.outline), fill: fills[p.id], class: current ? "province current-province" : "province"},
      s("title", {}, `${p.label}, province tile ${view.province_tiles[p.id] ?? "?"}${current ? " (being visited)" : ""}`)));
  }
  for (const [a, b] of board.roads) {
    parts.push(s("line", {x1: at[a][0], y1: at[a][1], x2: at[b][0], y2: at[b][1], class: "road"}));
  }
  for (const p of board.provinces) {
    const [cx, cy] = p.centre;
    if (!p.agra) {  // "Awadh (Oudh)": the name, the other name below it, then the province tile
      const [name, other] = p.label.split(" (");
      parts.push(label(cx, cy - 6, name, "h", "middle"));
      parts.push(label(cx, cy + (other ? 6 : 8), other ? `(${other}` : `tile ${view.province_tiles[p.id] ?? ""}`, "small", "middle"));
      if (other) parts.push(label(cx, cy + 17, `tile ${view.province_tiles[p.id] ?? ""}`, "small", "middle"));
    }
  }
  for (const city of board.cities) {
    const [cx, cy] = city.at;
    const pal = view.palaces[city.id] || {};
    const bonus = view.bonus_tiles[city.id];
    const has = (seat) => seat !== null && seat !== undefined;
    const who = [has(pal.regular) ? `palace of ${ctx.seatName(pal.regular)}` : null,
      has(pal.crowned) ? `crowned palace of ${ctx.seatName(pal.crowned)}` : null].filter(Boolean);
    const title = `${city.name || words(city.id)}${city.fortified ? " (fortified)" : ""}: ${who.join(", ") || "no palace"}` +
      `${bonus ? `; bonus ${bonusText(bonus)}` : ""}`;
    const fill = has(pal.regular) ? seatColour(view, pal.regular) : "#fff";
    const r = city.name ? 22 : 15;
    const shape = city.fortified
      ? s("rect", {x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: 4, fill, class: `city fortified ${has(pal.regular) ? "piece" : "slot"}`},
        s("title", {}, title))
      : s("circle", {cx, cy, r, fill, class: `city ${has(pal.regular) ? "piece" : "slot"}`}, s("title", {}, title));
    parts.push(keyed(shape, city.id));
    if (has(pal.crowned)) parts.push(s("circle", {cx, cy, r: r + 6, fill: "none", stroke: seatColour(view, pal.crowned), "stroke-width": 5}));
    if (city.name) parts.push(label(cx, cy + 4, "Taj", "small", "middle"), label(cx, cy + r + 15, city.name.split(" (")[0], "h", "middle"));
    if (bonus) {
      parts.push(s("rect", {x: cx + 10, y: cy - 34, width: 40, height: 18, rx: 3, class: "bonus"}, s("title", {}, `bonus tile: ${bonusText(bonus)}`)),
        label(cx + 30, cy - 21, bonusText(bonus), "small", "middle"));
    }
  }
  return parts;
}

function render(view, ctx) {
  const board = ctx.game.board;
  const W = board.width;
  const me = ctx.you !== null ? view.players[ctx.you] : null;
  const perRow = Math.floor((W - 130) / (CARD_W + 4));
  const handRows = Math.ceil((me?.hand?.length || 0) / perRow);
  const top = 30;
  const parts = [label(10, 20, `Round ${view.round}, visiting ${words(view.current_province || "—")}`, "h")];
  parts.push(s("g", {transform: `translate(0 ${top})`}, drawMap(view, ctx, board)));
  let y = top + board.height + 10;
  parts.push(label(10, y + 16, "Court", "h"));
  Object.entries(view.court).forEach(([sym, open], i) => {
    parts.push(box(70 + i * 96, y, 90, 26, open ? "area" : "done", `${words(sym)}: ${open ? "still at court" : "taken this visit"}`));
    parts.push(label(115 + i * 96, y + 17, words(sym), "small", "middle"));
  });
  y += 34;
  parts.push(label(10, y + 14, `Supply: ${Object.entries(view.supply).map(([k, n]) => `${n} ${words(k)}`).join(", ")}`, "small"));
  y += 24;
  parts.push(label(10, y + 28, "Display", "h"));
  view.display.forEach((c, i) => parts.push(...cardShape(90 + i * (CARD_W + 4), y, c)));
  parts.push(label(90 + view.display.length * (CARD_W + 4) + 10, y + 28, `Deck: ${view.deck_size}`));
  y += CARD_H + 8;
  if (me?.hand) {
    parts.push(label(10, y + 28, "Your hand", "h"));
    me.hand.forEach((c, i) => parts.push(...cardShape(90 + (i % perRow) * (CARD_W + 4), y + Math.floor(i / perRow) * (CARD_H + 4), c)));
    y += handRows * (CARD_H + 4) + 4;
  }
  for (const p of view.players) {
    const rows = Math.max(1, Math.ceil(p.table.length / 5));
    const h = Math.max(56, 10 + rows * (CARD_H + 4));
    parts.push(box(10, y, W - 20, h, view.to_move === p.seat ? "current" : "area", null));
    parts.push(circle(24, y + 14, 6, seatColour(view, p.seat), null));
    parts.push(label(36, y + 18, `${ctx.seatName(p.seat)}: ${count(p.score, "point")}${p.in_visit ? "" : " (withdrawn)"}` +
      ` · ${count(p.hand_size, "card")} in hand`, "h"));
    const infl = Object.entries(p.influence_tiles).filter(([, n]) => n).map(([k, n]) => `${n} ${words(k)}`).join(", ");
    const goods = Object.entries(p.goods).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ");
    parts.push(label(36, y + 36, `influence: ${infl || "none"} · goods: ${goods || "none"}`, "small"));
    parts.push(label(36, y + 50, `provinces: ${p.province_tiles.join(", ") || "none"}`, "small"));
    p.table.forEach((c, i) => parts.push(...cardShape(W - 20 - 5 * (CARD_W + 4) + (i % 5) * (CARD_W + 4),
      y + 5 + Math.floor(i / 5) * (CARD_H + 4), c, `on the table: ${cardName(c)}`)));
    y += h + 6;
  }
  return svgRoot(W, y + 4, `Taj Mahal, round ${view.round}, visiting ${words(view.current_province || "")}`, ...parts);
}

function summary(view, ctx) {
  const lines = [`Round ${view.round}, visit ${view.visit}: the province being visited is ${words(view.current_province || "none")}.`];
  const owned = Object.entries(view.palaces).map(([city, pal]) => {
    const who = [];
    if (pal.regular !== null && pal.regular !== undefined) who.push(ctx.seatName(pal.regular));
    if (pal.crowned !== null && pal.crowned !== undefined) who.push(`crowned ${ctx.seatName(pal.crowned)}`);
    return `${city} ${who.join(" and ")}`;
  });
  lines.push(`Palaces: ${owned.join("; ") || "none yet"}.`);
  lines.push(`Court: ${Object.entries(view.court).filter(([, v]) => v).map(([k]) => words(k)).join(", ") || "empty"}.`);
  lines.push(`Display: ${view.display.map(cardName).join("; ")}.`);
  for (const p of view.players) {
    lines.push(`${ctx.seatName(p.seat)}: ${p.score} points, ${p.hand_size} cards in hand, on the table ` +
      `${p.table.map(cardName).join("; ") || "nothing"}${p.in_visit ? "" : ", withdrawn"}.`);
    if (p.hand) lines.push(`Your hand: ${p.hand.map(cardName).join("; ")}.`);
  }
  return lines;
}

function scores(view) {
  return view.players.map((p) => p.score);
}

function describe(action, ctx) {
  switch (action.type) {
    case "play": return `play the ${named(action.card, ctx)}${action.extra ? ` with the ${named(action.extra, ctx)}` : ""}`;
    case "withdraw": return "withdraw from the visit";
    case "palace": return `palace in ${words(action.city)}`;
    case "take": return `take the ${named(action.card, ctx)}`;
    case "crown": return `crown the palace in ${words(action.city)}`;
    default: return null;
  }
}

/** Events as sentences.  A card drawn by another player is secret: the sentence says only that one was. */
function describeEvent(ev, ctx) {
  const who = ev.seat !== undefined && ev.seat !== null ? ctx.seatName(ev.seat) : "";
  switch (ev.type) {
    case "drew": return ev.card ? `${who} drew the ${named(ev.card, ctx)}.` : `${who} drew a card.`;
    case "took": return `${who} took the ${named(ev.card, ctx)} from the display.`;
    case "scored": return `${who} scored ${count(ev.points, "point")}${ev.reason ? ` for ${words(ev.reason)}` : ""} (${ev.rule}).`;
    case "prize": return `${who} won the ${words(ev.symbol)} at court (${ev.rule}).`;
    case "palace": return `${who} built a ${ev.crowned ? "crowned " : ""}palace in ${words(ev.city)}.`;
    case "special_card": return `${who} got the ${named(ev.card, ctx)}.`;
    case "visit_started": return `Visit ${ev.visit} begins in ${words(ev.province)}; ${ctx.seatName(ev.start_player)} starts.`;
    case "game_over": // R61: the cards left in hand score, then every hand is shown
      return `Final scoring (${ev.rule}): ${ev.scores.map((total, seat) =>
        `${ctx.seatName(seat)} ${count(ev.card_bonus[seat], "point")} for ${count(ev.hands[seat].length, "card")} left in hand, ${count(total, "point")} in all`).join("; ")}.`;
    default: return null;
  }
}

export default {render, summary, scores, describe, describeEvent, seatColour};
