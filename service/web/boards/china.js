// China: the nine provinces with their house spaces and the emissaries on their dragon seals, the border
// spaces between provinces, the open display, the deck and your hand. The API publishes the spaces (the
// "place" action's targets), not the map's geometry, so provinces sit in a 3×3 grid of neighbours.
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

const GRID = ["QIN", "ZHAO", "YAN", "HAN", "WEI", "QI", "ZHOU", "XRED", "WU"];
const CW = 290, CH = 150, GAP = 16, X0 = 10, Y0 = 30;

function seatColour(view, seat) {
  return colour(view.players[seat]?.colour, seat);
}

/** Province -> its house spaces, and the border spaces, from the "place" action's target list. */
function spaces(ctx) {
  const targets = ctx.game?.actions?.place?.properties?.target?.enum || [];
  const provinces = new Map();
  const borders = [];
  for (const t of targets) {
    const m = /^([A-Z]+)(\d+)$/.exec(t);
    if (m) {
      if (!provinces.has(m[1])) provinces.set(m[1], []);
      provinces.get(m[1]).push(t);
    } else if (t.startsWith("B_")) borders.push(t);
  }
  return {provinces, borders};
}

function cell(name, order) {
  const i = GRID.includes(name) ? GRID.indexOf(name) : order;
  return {x: X0 + (i % 3) * (CW + GAP), y: Y0 + Math.floor(i / 3) * (CH + GAP)};
}

function card(x, y, c, title, key) {
  return [s("rect", {x, y, width: 34, height: 48, rx: 4, fill: colour(c), class: "card", "data-key": key}, s("title", {}, title)),
    label(x + 17, y + 30, c.slice(0, 3), "small", "middle")];
}

function render(view, ctx) {
  const {provinces, borders} = spaces(ctx);
  const names = [...new Set([...provinces.keys(), ...Object.keys(view.board.seals)])];
  const rows = Math.ceil(Math.max(names.length, 9) / 3);
  const W = 3 * CW + 2 * GAP + 20;
  const boardBottom = Y0 + rows * (CH + GAP);
  const H = boardBottom + 150;
  const parts = [label(10, 20, "Provinces (houses on spaces, emissaries on the dragon seal)", "h")];
  const centre = {};
  names.forEach((p, order) => {
    const {x, y} = cell(p, order);
    centre[p] = {x: x + CW / 2, y: y + CH / 2};
    const scored = view.board.scored.includes(p);
    parts.push(keyed(box(x, y, CW, CH, scored ? "done" : "area-strong", `${words(p)}${scored ? " (scored)" : ""}`), p));
    parts.push(label(x + 10, y + 20, `${p[0]}${p.slice(1).toLowerCase()}${scored ? " — scored" : ""}`, "h"));
    (provinces.get(p) || []).forEach((sp, j) => {
      const owner = view.board.houses[sp];
      const cx = x + 24 + (j % 8) * 34, cy = y + 52 + Math.floor(j / 8) * 34;
      parts.push(keyed(circle(cx, cy, 13, owner === undefined ? "#fff" : seatColour(view, owner),
        `${sp}: ${owner === undefined ? "free" : `house of ${ctx.seatName(owner)}`}`, owner === undefined ? "slot" : "piece"), sp));
      parts.push(label(cx, cy + 24, sp.replace(p, ""), "small", "middle"));
    });
    const seals = view.board.seals[p] || [];
    parts.push(label(x + 10, y + 118, "emissaries:", "small"));
    let ex = x + 70;
    seals.forEach((n, seat) => {
      for (let k = 0; k < n; k++) {
        parts.push(s("rect", {x: ex, y: y + 108, width: 12, height: 14, fill: seatColour(view, seat), class: "piece"},
          s("title", {}, `emissary of ${ctx.seatName(seat)} in ${words(p)}`)));
        ex += 15;
      }
    });
    if (ex === x + 70) parts.push(label(ex, y + 118, "none", "small"));
  });
  for (const b of borders) {
    const [, a, c] = b.split("_");
    if (!centre[a] || !centre[c]) continue;
    const mx = (centre[a].x + centre[c].x) / 2, my = (centre[a].y + centre[c].y) / 2;
    const owner = view.board.houses[b];
    parts.push(s("rect", {x: mx - 10, y: my - 10, width: 20, height: 20, transform: `rotate(45 ${mx} ${my})`, "data-key": b,
      fill: owner === undefined ? "#fff" : seatColour(view, owner), class: owner === undefined ? "slot" : "piece"},
    s("title", {}, `border space ${words(a)}–${words(c)}: ${owner === undefined ? "free" : `house of ${ctx.seatName(owner)}`}`)));
  }
  const y = boardBottom + 10;
  parts.push(label(10, y, "Display", "h"));
  view.display.forEach((c, i) => parts.push(...card(10 + i * 40, y + 8, c, `display card ${i}: ${c}`, `slot:${i}`)));
  parts.push(label(200, y, `Deck: ${view.deck_size} · discard: ${view.discard.length}${view.final_round ? " · final round" : ""}`, "h"));
  const me = ctx.you !== null ? view.players[ctx.you] : null;
  if (me?.hand) {
    parts.push(label(480, y, "Your hand", "h"));
    me.hand.forEach((c, i) => parts.push(...card(480 + i * 40, y + 8, c, `your card: ${c}`)));
  }
  view.players.forEach((p, i) => {
    const py = y + 80 + 20 * (i % 3), px = 10 + Math.floor(i / 3) * 450;
    parts.push(circle(px + 6, py - 4, 6, seatColour(view, p.seat), null));
    parts.push(label(px + 18, py, `${ctx.seatName(p.seat)}${p.emperor ? " (Emperor)" : ""}: ${p.score} points, ` +
      `${p.houses} houses and ${p.emissaries} emissaries left, ${p.hand_size} cards`));
  });
  return svgRoot(W, H, `China, turn ${view.turn}`, ...parts);
}

function summary(view, ctx) {
  const {provinces} = spaces(ctx);
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
    case "place": return `${action.piece} on ${action.target}, paying ${action.pay.replaceAll("+", ", ")}`;
    case "draw_display": return `take display card ${action.slot}`;
    case "draw_deck": return "draw from the deck";
    case "swap": return `swap: discard ${action.discard}`;
    case "finish": return "stop placing";
    default: return null;
  }
}

export default {render, summary, scores, describe, seatColour};
