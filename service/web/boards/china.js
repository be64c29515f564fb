// China: the board as GET /v1/games/china publishes it: the nine provinces in their colours with their
// borders, the sea and the roads; houses on their spaces (ports and border spaces marked) and the
// emissaries in each province as pieces in the players' colours; the open display, the deck and your
// hand.
import {circle, colour, count, keyed, label, s, svgRoot, words} from "../dom.js";

const CARD_W = 46, CARD_H = 62;
const SEA = "#cfe3f1", MOUNTAINS = "#ddd3c0";

function seatColour(view, seat) {
  return colour(view.players[seat]?.colour, seat);
}

function points(outline) {
  return outline.map(([x, y]) => `${x},${y}`).join(" ");
}

/** A province's colour, lightened so the pieces on it stand out (the colour is what pays there, R27). */
function land(name) {
  const hex = colour(name);
  const mix = (i) => Math.round(255 - (255 - parseInt(hex.slice(i, i + 2), 16)) * 0.45).toString(16).padStart(2, "0");
  return `#${mix(1)}${mix(3)}${mix(5)}`;
}

function provinceName(id) {
  return id === "XRED" ? "Red province" : `${id[0]}${id.slice(1).toLowerCase()}`;
}

/** A house: a square with a roof, in the owner's colour. */
function house(x, y, fill, title, key) {
  const d = `M${x - 13},${y + 11} V${y - 3} L${x},${y - 15} L${x + 13},${y - 3} V${y + 11} Z`;
  return keyed(s("path", {d, fill, class: "piece house"}, s("title", {}, title)), key);
}

function card(x, y, c, title, key) {
  const rect = s("rect", {x, y, width: CARD_W, height: CARD_H, rx: 5, fill: colour(c), class: "card"}, s("title", {}, title));
  if (key) keyed(rect, key);
  return [rect, label(x + CARD_W / 2, y + CARD_H / 2 + 4, c, `small${["yellow", "orange"].includes(c) ? "" : " on-dark"}`, "middle")];
}

function drawMap(view, ctx, board) {
  const parts = [];
  for (const u of board.unclaimed) {
    parts.push(s("polygon", {points: points(u.outline), fill: u.kind === "sea" ? SEA : MOUNTAINS, class: "unclaimed"},
      s("title", {}, u.kind)));
  }
  for (const p of board.provinces) {
    const scored = view.board.scored.includes(p.id);
    parts.push(keyed(s("polygon", {points: points(p.outline), fill: land(p.colour), class: `province${scored ? " scored" : ""}`},
      s("title", {}, `${provinceName(p.id)} (${p.colour}: a ${p.colour} card pays for a piece here)${scored ? ", scored" : ""}`)), p.id));
  }
  const at = Object.fromEntries(board.spaces.map((sp) => [sp.id, sp.at]));
  for (const [a, b] of board.roads) parts.push(s("line", {x1: at[a][0], y1: at[a][1], x2: at[b][0], y2: at[b][1], class: "road"}));
  for (const p of board.provinces) {
    const [cx, cy] = p.centre;
    const scored = view.board.scored.includes(p.id);
    parts.push(label(cx, cy - 12, provinceName(p.id), "h", "middle"));
    if (scored) parts.push(label(cx, cy + 2, "scored", "small", "middle"));
    const pieces = (view.board.seals[p.id] || []).flatMap((n, seat) => Array(n).fill(seat));
    pieces.forEach((seat, k) => {  // an emissary: a standing figure, head and robe
      const ex = cx - (Math.min(pieces.length, 4) - 1) * 11 + (k % 4) * 22, ey = cy + 18 + Math.floor(k / 4) * 26;
      parts.push(s("path", {d: `M${ex - 9},${ey + 11} L${ex - 5},${ey - 3} A7,7 0 1 1 ${ex + 5},${ey - 3} L${ex + 9},${ey + 11} Z`,
        fill: seatColour(view, seat), class: "piece emissary"}, s("title", {}, `emissary of ${ctx.seatName(seat)} in ${provinceName(p.id)}`)));
    });
  }
  for (const sp of board.spaces) {
    const [x, y] = sp.at;
    const owner = view.board.houses[sp.id];
    const where = sp.border ? `border space of ${sp.provinces.map(provinceName).join(" and ")}` :
      `${provinceName(sp.provinces[0])}${sp.port ? ", port" : ""}`;
    const title = `${sp.id} (${where}): ${owner === undefined ? "free" : `house of ${ctx.seatName(owner)}`}`;
    if (sp.port) parts.push(s("circle", {cx: x, cy: y, r: 22, class: "port"}));
    if (owner !== undefined) {
      parts.push(house(x, y, seatColour(view, owner), title, sp.id));
    } else if (sp.border) {
      parts.push(keyed(s("rect", {x: x - 13, y: y - 13, width: 26, height: 26, transform: `rotate(45 ${x} ${y})`, class: "slot"},
        s("title", {}, title)), sp.id));
    } else {
      parts.push(keyed(circle(x, y, 15, "#fff", title, "slot"), sp.id));
    }
  }
  return parts;
}

function render(view, ctx) {
  const board = ctx.game.board;
  const W = board.width;
  const parts = [label(10, 20, `Turn ${view.turn}${view.final_round ? " · final round" : ""}`, "h")];
  const top = 30;
  parts.push(s("g", {transform: `translate(0 ${top})`}, drawMap(view, ctx, board)));
  let y = top + board.height + 24;
  parts.push(label(10, y, "Display", "h"));
  view.display.forEach((c, i) => parts.push(...card(10 + i * (CARD_W + 6), y + 8, c, `display card ${i + 1}: ${c}`, `slot:${i}`)));
  const dx = 10 + Math.max(4, view.display.length) * (CARD_W + 6) + 20;
  parts.push(label(dx, y, `Deck: ${view.deck_size} · discard pile: ${view.discard.length}`, "h"));
  const me = ctx.you !== null ? view.players[ctx.you] : null;
  if (me?.hand) {
    parts.push(label(dx, y + 24, "Your hand", "h"));
    me.hand.forEach((c, i) => parts.push(...card(dx + i * (CARD_W + 6), y + 32, c, `your card: ${c}`)));
  }
  y += 32 + CARD_H + 28;
  view.players.forEach((p) => {
    parts.push(circle(18, y - 4, 7, seatColour(view, p.seat), null));
    parts.push(label(32, y, `${ctx.seatName(p.seat)}${p.emperor ? " (Emperor)" : ""}: ${count(p.score, "point")}, ` +
      `${count(p.houses, "house")} and ${count(p.emissaries, "emissary").replace("emissarys", "emissaries")} left, ` +
      `${count(p.hand_size, "card")}`));
    y += 22;
  });
  return svgRoot(W, y, `China, turn ${view.turn}`, ...parts);
}

function summary(view, ctx) {
  const provinces = ctx.game.board.provinces.map((p) => [p.id, p.spaces]);
  const lines = [];
  for (const [p, list] of provinces) {
    const houses = list.filter((sp) => view.board.houses[sp] !== undefined)
      .map((sp) => `${sp} ${ctx.seatName(view.board.houses[sp])}`);
    const seals = (view.board.seals[p] || []).map((n, seat) => (n ? `${ctx.seatName(seat)} ${n}` : null)).filter(Boolean);
    lines.push(`${words(p)}${view.board.scored.includes(p) ? " (scored)" : ""}: houses ${houses.join(", ") || "none"}` +
      `; ${list.length - houses.length} free spaces; emissaries ${seals.join(", ") || "none"}.`);
  }
  const borders = Object.entries(view.board.houses).filter(([sp]) => sp.startsWith("B_"));
  if (borders.length) lines.push(`Border houses: ${borders.map(([sp, seat]) => `${sp} ${ctx.seatName(seat)}`).join(", ")}.`);
  lines.push(`Display: ${view.display.join(", ")}. Deck ${view.deck_size} cards.`);
  for (const p of view.players) {
    lines.push(`${ctx.seatName(p.seat)} (${p.colour})${p.emperor ? ", Emperor" : ""}: ${p.score} points, ${p.houses} houses, ` +
      `${p.emissaries} emissaries, ${p.hand_size} cards${p.hand ? ` (your hand: ${p.hand.join(", ")})` : ""}.`);
  }
  return lines;
}

function scores(view) {
  return view.players.map((p) => p.score);
}

function describe(action) {
  switch (action.type) {
    case "place": return `${action.piece} on ${action.target}, paying ${action.pay.replaceAll("+", " + ")}`;
    case "draw_display": return `take display card ${action.slot + 1}`;
    case "draw_deck": return "draw from the deck";
    case "swap": return `swap: discard ${action.discard}`;
    case "finish": return "stop placing";
    default: return null;
  }
}

/** Events as sentences; a card drawn by another player is secret. */
function describeEvent(ev, ctx) {
  const who = ev.seat !== undefined && ev.seat !== null ? ctx.seatName(ev.seat) : "";
  switch (ev.type) {
    case "took": return `${who} took the ${ev.card} card from display space ${ev.slot + 1}.`;
    case "drew": return ev.card ? `${who} drew a ${ev.card} card.` : `${who} drew a card.`;
    case "display_refilled": return `A ${ev.card} card fills display space ${ev.slot + 1}.`;
    case "reshuffled": return `The discards are shuffled into a new deck of ${ev.deck_size} cards.`;
    case "final_round": return `Final round: it ends after ${ctx.seatName(ev.last_seat)}'s turn.`;
    case "province_scored":
      return `${provinceName(ev.province)} is scored: ${ev.points.map((n, seat) => `${ctx.seatName(seat)} ${n}`).join(", ")}.`;
    default: return null;
  }
}

export default {render, summary, scores, describe, describeEvent, seatColour};
