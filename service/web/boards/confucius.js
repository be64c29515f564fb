// Confucius: the three ministries with their officials (bribed, secured, minister and secretary), the
// imperial examination, the gifts given, the navy (junks, the ocean, distant lands), the army (foreign
// lands and their boxes), the Great Wall, each player's cubes and cards; your hand.
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

function seatColour(view, seat) {
  return colour(view.players[seat]?.colour, seat);
}

function render(view, ctx) {
  const W = 980;
  const n = view.players.length;
  const parts = [label(10, 20, `Ministries — round ${view.round}, ${words(view.phase)} phase` +
    (view.resolving ? `, resolving ${view.resolving}` : ""), "h")];
  // Ministries (R2): seven official spaces each; a marker is a bribe, a ring a secured official.
  view.ministries.forEach((m, i) => {
    const x = 10 + i * 222, y = 30;
    parts.push(box(x, y, 212, 290, m.resolved ? "done" : "area-strong", `${m.ministry}${m.resolved ? " (resolved)" : ""}`));
    parts.push(label(x + 8, y + 18, `${m.ministry}${m.resolved ? " — resolved" : ""}`, "h"));
    const holder = (role, seat, chit) => `${role}: ${seat === null ? "—" : ctx.seatName(seat)} (${chit} VP)`;
    parts.push(label(x + 8, y + 36, holder("minister", m.minister, m.minister_chit), "small"));
    parts.push(label(x + 8, y + 50, holder("secretary", m.secretary, m.secretary_chit), "small"));
    m.spaces.forEach((sp, k) => {
      const sy = y + 62 + k * 31;
      const tile = sp.tile === null ? "" : sp.tile === "candidate" ? "candidate" : `official ${sp.tile}`;
      const who = sp.marker === null ? "" : `, bribed by ${ctx.seatName(sp.marker)}${sp.secured ? " (secured)" : ""}`;
      parts.push(keyed(box(x + 8, sy, 196, 27, sp.tile === null ? "slot" : "area", `${m.ministry} space ${sp.space}: ${tile || "empty"}${who}`),
        `ministry:${m.ministry} space:${sp.space}`));
      parts.push(label(x + 16, sy + 18, `${sp.space}`, "small"), label(x + 34, sy + 18, tile, "small"));
      if (sp.marker !== null) {
        parts.push(circle(x + 186, sy + 13, 8, seatColour(view, sp.marker), null));
        if (sp.secured) parts.push(s("circle", {cx: x + 186, cy: sy + 13, r: 11, fill: "none", stroke: "#2b241c", "stroke-width": 2}));
      }
    });
  });
  // Examination, students, the Great Wall, stacks.
  const ex = 686;
  parts.push(box(ex, 30, 284, 290, "area", null), label(ex + 8, 48, "Imperial examination", "h"));
  parts.push(label(ex + 8, 66, `candidate: ${view.candidate ? words(view.candidate) : "—"} (${view.candidate_stack.count} left)`, "small"));
  Object.entries(view.students).forEach(([name, seat], i) => {
    parts.push(label(ex + 8, 84 + i * 16, `${name} student: ${seat === null ? "—" : ctx.seatName(seat)}`, "small"));
    if (seat !== null) parts.push(circle(ex + 200, 80 + i * 16, 6, seatColour(view, seat), null));
  });
  parts.push(label(ex + 8, 128, `Great Wall: ${view.great_wall} · junks in supply: ${view.junk_supply}`, "small"));
  parts.push(label(ex + 8, 144, `deck ${view.deck} · officials ${view.official_stack} · rewards ${view.reward_stack}`, "small"));
  parts.push(label(ex + 8, 168, "Gifts given", "h"));
  view.gift_tracker.slice(0, 8).forEach((g, i) => parts.push(
    label(ex + 8, 186 + i * 15, `${ctx.seatName(g.giver)} → ${ctx.seatName(g.recipient)}: gift ${g.value}`, "small")));
  if (!view.gift_tracker.length) parts.push(label(ex + 8, 186, "none yet", "small"));
  if (view.emperor_insulted !== null) parts.push(label(ex + 8, 312, `the Emperor was insulted by ${ctx.seatName(view.emperor_insulted)}`, "small"));
  // The army: foreign lands (R-military) with their boxes.
  let y = 340;
  parts.push(label(10, y, "Army: foreign lands", "h"));
  view.foreign_lands.forEach((f, i) => {
    const x = 10 + i * 240;
    parts.push(box(x, y + 8, 230, 64, f.state === "unresolved" ? "area" : "done",
      `${words(f.land)}: ${f.cost_per_army} per army, ${words(f.state)}`));
    parts.push(label(x + 8, y + 24, `${f.position}. ${words(f.land)} · ${f.cost_per_army}/army · ${words(f.state)}`, "small"));
    f.boxes.forEach((b, k) => {
      const bx = x + 8 + k * 72;
      parts.push(box(bx, y + 32, 66, 34, "slot", `box ${b.box}: ${b.vp} VP${b.reward_card ? " and a reward card" : ""}` +
        `${b.army === null ? "" : `, army of ${ctx.seatName(b.army)}`}`));
      parts.push(label(bx + 6, y + 53, `${b.vp}VP${b.reward_card ? "+R" : ""}`, "small"));
      if (b.army !== null) parts.push(s("rect", {x: bx + 44, y: y + 40, width: 16, height: 18, fill: seatColour(view, b.army), class: "piece"}));
    });
  });
  // The navy: distant lands.
  y += 90;
  parts.push(label(10, y, "Navy: distant lands", "h"));
  view.distant_lands.forEach((d, i) => {
    const x = 10 + i * 190;
    parts.push(box(x, y + 8, 180, 34, "area", `${words(d.land)}: reached by ${d.reached_by.map(ctx.seatName).join(", ") || "nobody"}`));
    parts.push(label(x + 8, y + 29, `${words(d.land)}${d.chit ? ` (${d.chit})` : ""}`, "small"));
    d.reached_by.forEach((seat, k) => parts.push(circle(x + 168 - k * 14, y + 25, 6, seatColour(view, seat), null)));
  });
  // Players.
  y += 56;
  for (const p of view.players) {
    const mine = ctx.you === p.seat;
    parts.push(box(10, y, W - 20, 64, view.to_move === p.seat ? "current" : "area", null));
    parts.push(circle(24, y + 15, 7, seatColour(view, p.seat), null));
    parts.push(label(36, y + 19, `${ctx.seatName(p.seat)}${mine ? " (you)" : ""}${view.chief_minister === p.seat ? " · Chief Minister" : ""}: ` +
      `${p.score} VP · ${p.cubes} cubes left${p.passed ? " · passed" : ""} · ${p.cards} cards · ${p.reward_cards} reward cards`, "h"));
    const gifts = Object.entries(p.gifts).filter(([, st]) => st !== "not_available").map(([v, st]) => `${v} ${words(st)}`).join(", ");
    parts.push(label(36, y + 36, `gifts: ${gifts || "none"} · navy: shipyard ${p.shipyard}, at sea ${p.ocean}` +
      `${p.distant_lands.length ? `, reached ${p.distant_lands.map(words).join(", ")}` : ""} · armies ${p.armies_in_stock} in stock, ` +
      `${p.armies_in_colonies} in colonies`, "small"));
    const placed = Object.entries(p.cubes_placed).map(([k, c]) => `${words(k)}${c > 1 ? ` ×${c}` : ""}`).join(", ");
    parts.push(label(36, y + 52, `cubes on: ${placed || "nothing"}${p.hand ? ` · your cards: ${Object.entries(p.hand)
      .map(([k, c]) => `${c}× ${k}`).join(", ")}` : ""}`, "small"));
    y += 70;
  }
  return svgRoot(W, y + 4, `Confucius, round ${view.round}, ${words(view.phase)} phase`, ...parts);
}

function summary(view, ctx) {
  const lines = [`Round ${view.round}, ${words(view.phase)} phase; Chief Minister ${ctx.seatName(view.chief_minister)}.`];
  for (const m of view.ministries) {
    const officials = m.spaces.filter((sp) => sp.tile !== null).map((sp) => `space ${sp.space} ${sp.tile === "candidate" ? "candidate" : `official ${sp.tile}`}` +
      (sp.marker === null ? "" : ` bribed by ${ctx.seatName(sp.marker)}${sp.secured ? " (secured)" : ""}`));
    lines.push(`${m.ministry}${m.resolved ? " (resolved)" : ""}: ${officials.join("; ") || "no officials"}` +
      `${m.minister !== null ? `; minister ${ctx.seatName(m.minister)}` : ""}${m.secretary !== null ? `; secretary ${ctx.seatName(m.secretary)}` : ""}.`);
  }
  lines.push(`Foreign lands: ${view.foreign_lands.map((f) => `${words(f.land)} ${words(f.state)}`).join(", ")}. Great Wall ${view.great_wall}.`);
  for (const p of view.players) {
    lines.push(`${ctx.seatName(p.seat)} (${p.colour}): ${p.score} VP, ${p.cubes} cubes, ${p.cards} cards, ` +
      `${p.shipyard} junks in the shipyard, ${p.ocean} at sea, ${p.armies_in_stock} armies in stock.`);
    if (p.hand) lines.push(`Your cards: ${Object.entries(p.hand).map(([k, c]) => `${c} ${k}`).join(", ")}.`);
  }
  return lines;
}

function scores(view) {
  return view.players.map((p) => p.score);
}

function describe(action, ctx) {
  const pay = ["c1", "c2", "c3"].filter((k) => action[k] !== undefined).map((k) => `${action[k]}× ${k}`).join(", ");
  switch (action.type) {
    case "bribe_official": return `bribe the official in ${action.ministry}, space ${action.space}`;
    case "pay": return `pay with ${pay}`;
    case "give_gift": return `give gift ${action.value} to ${ctx.seatName(action.recipient)}`;
    case "buy_gift": return `buy gift ${action.value}`;
    case "buy_junks": return `buy ${action.count} junk${action.count > 1 ? "s" : ""}`;
    case "commercial_income": return `commercial income, discarding ${pay}`;
    case "transfer_influence": return `transfer ${action.ministry} ${action.space} to ${ctx.seatName(action.recipient)}`;
    default: return null;
  }
}

export default {render, summary, scores, describe, seatColour};
