// In the Year of the Dragon: the event row, the action groups with the dragons, the person track, and each
// player's palaces with their persons, resources and privileges; your hand.
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

const PERSON_COLOURS = {
  craftsman: "#9b6b3d", court_lady: "#d86aa8", tax_collector: "#c9a227", pyrotechnist: "#d9463b",
  warrior: "#6b6b6b", monk: "#e07b00", healer: "#2f9e5a", farmer: "#7bb342", scholar: "#2f6fd6",
};

function personType(id) {
  return id.replace(/_[yo]$/, "");
}

function personName(id) {
  const age = id.endsWith("_y") ? " (young)" : id.endsWith("_o") ? " (old)" : "";
  return words(personType(id)) + age;
}

function seatColour(view, seat) {
  return colour(null, seat);
}

function render(view, ctx) {
  const W = 960;
  const players = view.players;
  const H = 300 + players.length * 118;
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
    parts.push(label(10, 114, "None out now: the groups are laid out for each month's action phase (see the event log).", "small"));
  }
  groups.forEach((g, i) => {
    const x = 10 + i * 160;
    parts.push(box(x, 100, 150, 62, "area-strong", `Group ${i}: ${g.actions.map(words).join(", ")}`));
    g.actions.forEach((a, j) => parts.push(label(x + 8, 116 + j * 13, words(a))));
    parts.push(keyed(s("rect", {x, y: 100, width: 150, height: 62, rx: 4, fill: "transparent", class: "hit"},
      s("title", {}, `group ${i}`)), `group:${i}`));
    (g.dragons || []).forEach((seat, j) => parts.push(
      circle(x + 138 - j * 14, 150, 6, seatColour(view, seat), `dragon of ${ctx.seatName(seat)}`)));
  });
  // The person track (R19): further along decides first.
  const maxPos = Math.max(40, ...players.map((p) => p.person_pos));
  const tx = 10, tw = W - 20, ty = 200;
  parts.push(label(10, 184, "Person track (further ahead acts first)", "h"));
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
  // The players' boards.
  players.forEach((p, i) => {
    const y = 236 + i * 118;
    const mine = ctx.you === p.seat;
    parts.push(box(10, y, W - 20, 110, view.to_move === p.seat ? "current" : "area", null));
    if (mine) parts.push(box(10, y, W - 20, 110, "mine", null));
    parts.push(circle(24, y + 16, 7, seatColour(view, p.seat), null));
    parts.push(label(36, y + 20, `${ctx.seatName(p.seat)}${mine ? " (you)" : ""}`, "h"));
    parts.push(label(36, y + 38, `${p.vp} VP · ${p.yuan} yuan · ${p.rice} rice · ${p.fireworks} fireworks`));
    parts.push(label(36, y + 54, `privileges: ${p.privileges.small} small, ${p.privileges.large} large`));
    parts.push(label(36, y + 70, `cards in hand: ${p.hand_size}`));
    if (p.hand) {
      const hand = Object.entries(p.hand).map(([c, n]) => (n > 1 ? `${n}× ${words(c)}` : words(c))).join(", ");
      parts.push(label(36, y + 86, `your hand: ${hand}`, "small"));
    }
    if (p.played?.length) parts.push(label(36, y + 100, `played: ${p.played.map(words).join(", ")}`, "small"));
    // Palaces (R26): floors stacked, persons beside.
    p.palaces.forEach((pal, j) => {
      const px = 420 + j * 88;
      const base = y + 100;
      for (let f = 0; f < pal.floors; f++) {
        parts.push(s("rect", {x: px, y: base - (f + 1) * 16, width: 28, height: 14, rx: 2, fill: "#b5523b",
          stroke: "#5a2418"}, s("title", {}, `palace ${j}, floor ${f + 1}`)));
      }
      parts.push(label(px + 14, base + 8, `palace ${j}`, "small", "middle"));
      if (mine) {  // your palace: the actions that name it (build a floor, put a person, release) start here
        parts.push(keyed(s("rect", {x: px - 2, y: y + 4, width: 84, height: 106, rx: 4, fill: "transparent", class: "hit"},
          s("title", {}, `your palace ${j}`)), `palace:${j}`));
      }
      pal.persons.forEach((person, k) => {
        const col = PERSON_COLOURS[personType(person)] || "#888";
        parts.push(s("rect", {x: px + 32, y: base - 16 - k * 22, width: 48, height: 20, rx: 3, fill: col, class: "card"},
          s("title", {}, `${personName(person)} in palace ${j}`)));
        parts.push(label(px + 56, base - 3 - k * 22, personType(person).slice(0, 5) + (person.endsWith("_o") ? "·o" :
          person.endsWith("_y") ? "·y" : ""), "small on-dark", "middle"));
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
    lines.push(`Action groups: ${view.groups.map((g, i) => `${i}: ${g.actions.map(words).join(", ")}` +
      (g.dragons?.length ? ` (dragons of ${g.dragons.map(ctx.seatName).join(", ")})` : "")).join("; ")}.`);
  }
  lines.push(`Person track: ${[...view.players].sort((a, b) => b.person_pos - a.person_pos)
    .map((p) => `${ctx.seatName(p.seat)} ${p.person_pos}`).join(", ")}.`);
  for (const p of view.players) {
    const palaces = p.palaces.map((pal, j) => `palace ${j} (${pal.floors} floors: ${pal.persons.map(personName).join(", ") || "empty"})`);
    lines.push(`${ctx.seatName(p.seat)}: ${p.vp} VP, ${p.yuan} yuan, ${p.rice} rice, ${p.fireworks} fireworks, ` +
      `privileges ${p.privileges.small} small / ${p.privileges.large} large; ${palaces.join("; ")}.`);
    if (p.hand) lines.push(`Your hand: ${Object.entries(p.hand).map(([c, n]) => `${n} ${words(c)}`).join(", ")}.`);
  }
  return lines;
}

function scores(view) {
  return view.players.map((p) => p.vp);
}

function describe(action) {
  switch (action.type) {
    case "court": return `recruit ${personName(action.first)} and ${personName(action.second)}`;
    case "place": return `put the person in palace ${action.palace}`;
    case "action": return `group ${action.group}: ${words(action.action)}`;
    case "recruit": return `play ${words(action.card)} card: recruit ${personName(action.person)}`;
    case "build_floor": return `build a floor on palace ${action.palace}`;
    default: return null;
  }
}

/** The month's public events in words (the generic phrasing shows their raw figures). */
function describeEvent(ev, ctx) {
  const perSeat = (list) => list.map((v, seat) => `${ctx.seatName(seat)} ${v}`).join(", ");
  switch (ev.type) {
    case "round":
      return `Month ${ev.round} begins. Action groups: ${ev.groups.map((g, i) => `${i}: ${g.map(words).join(", ")}`).join(" | ")}`;
    case "month_event": return `Month ${ev.round}'s event, ${words(ev.event)}: VP ${perSeat(ev.vp)}`;
    case "decay": return `Month ${ev.round}: palace floors lost: ${perSeat(ev.floors_lost)}`;
    case "round_scoring": return `Month ${ev.round} scoring: VP ${perSeat(ev.vp)}`;
    default: return null;
  }
}

export default {render, summary, scores, describe, describeEvent, seatColour};
