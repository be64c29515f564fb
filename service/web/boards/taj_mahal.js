// Taj Mahal: the map (provinces with their cities, palaces and bonus tiles; the province being visited),
// the court of the Grand Mogul, the open display, each player's cards on the table, influence, goods and
// tiles; your hand. Cities come from the "palace" action's list of cities (the API publishes no geometry).
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

const GRID = ["kabul", "kashmir", "lahore", "delhi", "multan", "ajmer", "agra", "awadh", "thatta", "gujarat", "malwa",
  "allahabad"];
const PW = 220, PH = 130, GAP = 12, X0 = 10, Y0 = 30;
const SPOT = {n: [0.5, 0.28], e: [0.82, 0.55], s: [0.5, 0.82], w: [0.18, 0.55], city: [0.5, 0.55]};
const SYMBOL = {vizier: "Viz", general: "Gen", monk: "Monk", princess: "Prin", grand_mogul: "Mog", elephant: "Ele"};

function seatColour(view, seat) {
  return colour(null, seat);
}

/** Province -> [[city, spot]]: four cities n/e/s/w in every province (R1), and any other city the view
 * names (Agra's own city, where the Taj Mahal bonus lies). The API publishes no map geometry. */
function cities(view) {
  const out = new Map();
  for (const p of Object.keys(view.province_tiles)) out.set(p, ["n", "e", "s", "w"].map((d) => [`${p}-${d}`, d]));
  for (const c of [...Object.keys(view.palaces), ...Object.keys(view.bonus_tiles)]) {
    const [p, spot] = c.split("-");
    if (!out.has(p)) out.set(p, []);
    if (!out.get(p).some(([id]) => id === c)) out.get(p).push([c, spot]);
  }
  return out;
}

function cardShape(x, y, c, title) {
  const fill = c.kind === "special" ? "#e9d8a6" : c.kind === "white" ? "#f4f1e8" : colour(c.colour);
  const text = c.kind === "special" ? words(c.id.replace("special-", "")) : c.symbols.map((sy) => SYMBOL[sy] || sy).join(" ");
  return [s("rect", {x, y, width: 58, height: 40, rx: 4, fill, class: "card", "data-key": c.id}, s("title", {}, title || cardName(c))),
    label(x + 29, y + 24, text, "small", "middle")];
}

function cardName(c) {
  if (c.kind === "special") return `special card: ${words(c.id.replace("special-", ""))}`;
  return `${c.colour || c.kind} card: ${c.symbols.map(words).join(" and ")}`;
}

function bonusText(b) {
  if (b.kind === "points") return `+${b.value}`;
  if (b.kind === "card") return "card";
  return words(b.value);
}

function render(view, ctx) {
  const map = cities(view);
  const names = [...new Set([...GRID.filter((p) => map.has(p)), ...map.keys()])];
  const W = 4 * PW + 3 * GAP + 20;
  const mapBottom = Y0 + Math.ceil(names.length / 4) * (PH + GAP);
  const handRows = Math.ceil((ctx.you !== null ? view.players[ctx.you]?.hand?.length || 0 : 0) / 13);
  const H = mapBottom + 130 + handRows * 46 + view.players.length * 56;
  const parts = [label(10, 20, `Map — round ${view.round}, visiting ${words(view.current_province || "—")}`, "h")];
  names.forEach((p, i) => {
    const x = X0 + (i % 4) * (PW + GAP), y = Y0 + Math.floor(i / 4) * (PH + GAP);
    const current = p === view.current_province;
    parts.push(box(x, y, PW, PH, current ? "current" : "area-strong",
      `${words(p)}, province tile ${view.province_tiles[p] ?? "?"}${current ? " (being visited)" : ""}`));
    parts.push(label(x + 8, y + 16, `${words(p)} · ${view.province_tiles[p] ?? ""}`, "h"));
    for (const [city, spot] of map.get(p)) {
      const [fx, fy] = SPOT[spot] || [0.5, 0.55];
      const cx = x + fx * PW, cy = y + fy * PH;
      const pal = view.palaces[city] || {};
      const bonus = view.bonus_tiles[city];
      const who = [pal.regular !== null && pal.regular !== undefined ? `palace of ${ctx.seatName(pal.regular)}` : null,
        pal.crowned !== null && pal.crowned !== undefined ? `crowned palace of ${ctx.seatName(pal.crowned)}` : null]
        .filter(Boolean);
      const title = `${city}: ${who.join(", ") || "empty"}${bonus ? `; bonus ${bonusText(bonus)}` : ""}`;
      if (pal.crowned !== null && pal.crowned !== undefined) {
        parts.push(circle(cx, cy, 16, "none", null, "piece"), s("circle", {cx, cy, r: 16, fill: "none",
          stroke: seatColour(view, pal.crowned), "stroke-width": 4}));
      }
      const owner = pal.regular;
      parts.push(keyed(circle(cx, cy, 11, owner === null || owner === undefined ? "#fff" : seatColour(view, owner), title,
        owner === null || owner === undefined ? "slot" : "piece"), city));
      if (spot === "city") parts.push(label(cx, cy + 4, "Taj", "small", "middle"));
      if (bonus) parts.push(label(cx + 14, cy - 10, bonusText(bonus), "small"));
    }
  });
  let y = mapBottom + 6;
  parts.push(label(10, y + 10, "Court", "h"));
  Object.entries(view.court).forEach(([sym, open], i) => {
    parts.push(box(60 + i * 70, y, 64, 24, open ? "area" : "done", `${words(sym)}: ${open ? "still at court" : "taken this visit"}`));
    parts.push(label(92 + i * 70, y + 16, words(sym), "small", "middle"));
  });
  parts.push(label(500, y + 16, `Supply: ${Object.entries(view.supply).map(([k, n]) => `${n} ${words(k)}`).join(", ")}`, "small"));
  y += 34;
  parts.push(label(10, y + 24, "Display", "h"));
  view.display.forEach((c, i) => parts.push(...cardShape(70 + i * 64, y, c)));
  parts.push(label(70 + view.display.length * 64 + 10, y + 24, `Deck: ${view.deck_size}`));
  const me = ctx.you !== null ? view.players[ctx.you] : null;
  y += 50;
  if (me?.hand) {
    parts.push(label(10, y + 24, "Your hand", "h"));
    me.hand.forEach((c, i) => parts.push(...cardShape(90 + (i % 13) * 62, y + Math.floor(i / 13) * 46, c)));
    y += Math.ceil(me.hand.length / 13) * 46;
  }
  y += 6;
  for (const p of view.players) {
    parts.push(box(10, y, W - 20, 50, view.to_move === p.seat ? "current" : "area", null));
    parts.push(circle(24, y + 14, 6, seatColour(view, p.seat), null));
    parts.push(label(36, y + 18, `${ctx.seatName(p.seat)}: ${p.score} points${p.in_visit ? "" : " (withdrawn)"}` +
      `${p.commitment ? ` · plays ${p.commitment}` : ""} · ${p.hand_size} cards`, "h"));
    const infl = Object.entries(p.influence_tiles).filter(([, n]) => n).map(([k, n]) => `${n} ${words(k)}`).join(", ");
    const goods = Object.entries(p.goods).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ");
    parts.push(label(36, y + 38, `influence: ${infl || "none"} · goods: ${goods || "none"} · provinces: ` +
      `${p.province_tiles.join(", ") || "none"}`, "small"));
    p.table.forEach((c, i) => parts.push(...cardShape(560 + i * 62, y + 5, c, `on the table: ${cardName(c)}`)));
    y += 56;
  }
  return svgRoot(W, H, `Taj Mahal, round ${view.round}, visiting ${words(view.current_province || "")}`, ...parts);
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

function describe(action) {
  switch (action.type) {
    case "play": return `play ${action.card}${action.extra ? ` with ${action.extra}` : ""}`;
    case "withdraw": return "withdraw from the visit";
    case "palace": return `palace in ${action.city}`;
    case "take": return `take ${action.card}`;
    case "crown": return `crown the palace in ${action.city}`;
    default: return null;
  }
}

export default {render, summary, scores, describe, seatColour};
