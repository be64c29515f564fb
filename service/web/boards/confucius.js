// Confucius: the board as GET /v1/games/confucius publishes it (each place in its box): the three
// ministries with their officials (bribed, secured, minister and secretary), the students and the
// candidate, the Great Wall, the foreign lands with their boxes, the distant lands, each colour's shipyard
// and ocean, the military colonies; then each player's cubes, gifts and cards; your hand.
import {box, circle, colour, keyed, label, s, svgRoot, words} from "../dom.js";

function seatColour(view, seat) {
  return colour(view.players[seat]?.colour, seat);
}

const title = (t) => t.replace(/\b\w/g, (c) => c.toUpperCase());

/** What one place of the board shows now, drawn into its box [x, y, w, h]. */
function drawPlace(place, view, ctx, parts) {
  const [x, y, w, h] = place.at;
  const who = (seat) => (seat === null || seat === undefined ? "—" : ctx.seatName(seat));
  switch (place.type) {
    case "official_space": {
      const m = view.ministries.find((mm) => mm.ministry === place.ministry);
      const sp = m.spaces.find((ss) => ss.space === place.seniority);
      const tile = sp.tile === null ? "" : sp.tile === "candidate" ? "candidate" : `official ${sp.tile}`;
      const bribed = sp.marker === null ? "" : `, bribed by ${ctx.seatName(sp.marker)}${sp.secured ? " (secured)" : ""}`;
      parts.push(keyed(box(x, y, w, h, sp.tile === null ? "slot" : "area", `${m.ministry} space ${sp.space}: ${tile || "empty"}${bribed}`),
        `ministry:${m.ministry} space:${sp.space}`));
      parts.push(label(x + 8, y + 18, `${sp.space}`, "small"), label(x + 26, y + 18, tile, "small"));
      if (sp.marker !== null) {
        parts.push(circle(x + w - 18, y + h / 2, 8, seatColour(view, sp.marker), null));
        if (sp.secured) parts.push(s("circle", {cx: x + w - 18, cy: y + h / 2, r: 11, fill: "none", stroke: "#2b241c", "stroke-width": 2}));
      }
      return;
    }
    case "minister_space":
    case "secretary_space": {
      const m = view.ministries.find((mm) => mm.ministry === place.ministry);
      const role = place.type === "minister_space" ? "minister" : "secretary";
      parts.push(box(x, y, w, h, m.resolved ? "done" : "area-strong", `${title(place.ministry)} ${role}: ${who(m[role])}`));
      parts.push(label(x + 6, y + 16, `${title(role)} (${m[`${role}_chit`]} VP)`, "small"), label(x + 6, y + 34, who(m[role]), "small"));
      return;
    }
    case "great_wall_space": {
      const built = place.index <= view.great_wall;
      parts.push(box(x, y, w, h, built ? "wall-built" : "slot", `Great Wall space ${place.index}: ${built ? "built" : "not yet built"}`));
      parts.push(label(x + w / 2, y + h / 2 + 4, `${place.index}`, `small${built ? " on-dark" : ""}`, "middle"));
      return;
    }
    case "foreign_land_position": {
      const f = view.foreign_lands.find((ff) => ff.position === place.position);
      if (!f) return;
      parts.push(box(x, y, w, h, f.state === "unresolved" ? "area" : "done", `${title(words(f.land))}: ${f.cost_per_army} per army, ${words(f.state)}`));
      parts.push(label(x + 6, y + 15, `${title(words(f.land))} · ${f.cost_per_army} per army · ${words(f.state)}`, "small"));
      const bw = (w - 12) / f.boxes.length;
      f.boxes.forEach((b, k) => {
        const bx = x + 6 + k * bw;
        parts.push(box(bx, y + 22, bw - 4, h - 28, "slot", `box ${b.box + 1}: ${b.vp} VP${b.reward_card ? " and a reward card" : ""}` +
          `${b.army === null ? "" : `, army of ${ctx.seatName(b.army)}`}`));
        parts.push(label(bx + 6, y + 44, `${b.vp} VP${b.reward_card ? " + card" : ""}`, "small"));
        if (b.army !== null) parts.push(s("rect", {x: bx + bw - 24, y: y + 30, width: 14, height: 18, fill: seatColour(view, b.army), class: "piece"}));
      });
      return;
    }
    case "distant_land": {
      const d = view.distant_lands.find((dd) => `distant_land_${dd.land}` === place.id);
      parts.push(box(x, y, w, h, "area", `${place.label}: reached by ${d.reached_by.map(ctx.seatName).join(", ") || "nobody"}`));
      parts.push(label(x + 6, y + 24, `${place.label}${d.chit ? ` (${d.chit} VP)` : ""}`, "small"));
      d.reached_by.forEach((seat, k) => parts.push(circle(x + w - 12 - k * 14, y + h / 2, 6, seatColour(view, seat), null)));
      return;
    }
    case "shipyard":
    case "ocean": {
      const p = view.players.find((pp) => pp.colour === place.colour);
      const n = p ? (place.type === "shipyard" ? p.shipyard : p.ocean) : null;
      const what = place.type === "shipyard" ? "shipyard" : "at sea";
      parts.push(box(x, y, w, h, place.type === "ocean" ? "sea" : "area", `${place.colour} ${what}: ${n ?? "no player"}`));
      if (p) parts.push(circle(x + 12, y + h / 2, 6, seatColour(view, p.seat), null));
      parts.push(label(x + 24, y + 24, p ? `${what}: ${n} junk${n === 1 ? "" : "s"}` : `${place.colour}: no player`, "small"));
      return;
    }
    case "student_space": {
      const colourName = place.id.replace("student_", "");
      parts.push(box(x, y, w, h, "area", `${colourName} student: ${who(view.students[colourName])}`));
      parts.push(label(x + 8, y + 24, `${title(colourName)} student: ${who(view.students[colourName])}`, "small"));
      return;
    }
    case "candidate_space":
      parts.push(box(x, y, w, h, "area", "the candidate"));
      parts.push(label(x + 8, y + 24, `Candidate: ${view.candidate ? title(words(view.candidate)) : "—"} (${view.candidate_stack.count} left)`, "small"));
      return;
    default: {
      parts.push(box(x, y, w, h, "area", place.label));
      parts.push(label(x + 8, y + 18, "Military colonies", "small"));
      view.players.forEach((p, k) => parts.push(label(x + 8, y + 36 + k * 15, `${ctx.seatName(p.seat)}: ${p.armies_in_colonies} armies`, "small")));
    }
  }
}

function render(view, ctx) {
  const board = ctx.game.board;
  const W = board.width;
  const top = 30;
  const parts = [label(10, 20, `Round ${view.round}, ${words(view.phase)} phase${view.resolving ? `, resolving ${view.resolving}` : ""}` +
    ` · deck ${view.deck} · officials ${view.official_stack} · rewards ${view.reward_stack} · junks ${view.junk_supply}`, "h")];
  const inside = [];
  for (const m of board.ministries) {
    const first = board.places.find((p) => p.ministry === m);
    const resolved = view.ministries.find((mm) => mm.ministry === m)?.resolved;
    inside.push(label(first.at[0] + 2, 32, `${title(m)}${resolved ? " (resolved)" : ""}`, "h"));
  }
  inside.push(label(20, 342, "The Great Wall", "h"), label(20, 402, "Army: foreign lands", "h"), label(20, 490, "Navy: distant lands", "h"));
  for (const place of board.places) drawPlace(place, view, ctx, inside);
  parts.push(s("g", {transform: `translate(0 ${top})`}, inside));
  let y = top + board.height + 10;
  parts.push(label(10, y + 4, `Gifts given: ${view.gift_tracker.slice(0, 6).map((g) => `${ctx.seatName(g.giver)} to ${ctx.seatName(g.recipient)} (${g.value})`).join(", ") || "none yet"}` +
    `${view.emperor_insulted !== null ? ` · the Emperor was insulted by ${ctx.seatName(view.emperor_insulted)}` : ""}`, "small"));
  y += 14;
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

/** The public events as sentences (a card drawn by another player is secret: only that cards were drawn). */
function describeEvent(ev, ctx) {
  const who = (seat) => (seat === null || seat === undefined ? "nobody" : ctx.seatName(seat));
  const space = (id) => { const [m, n] = String(id).split("#"); return `${title(m)} space ${n}`; };
  switch (ev.type) {
    case "drew": {
      const cards = ["c1", "c2", "c3"].filter((k) => ev[k]).map((k) => `${ev[k]}× ${k}`).join(", ");
      return `${who(ev.seat)} drew ${cards || (ev.count ? `${ev.count} card${ev.count > 1 ? "s" : ""}` : "cards")}.`;
    }
    case "influence_transferred": return `${who(ev.seat)} handed the official of ${space(ev.space)} to ${who(ev.receiver)}.`;
    case "great_wall": return `The Great Wall grows to ${ev.pieces} section${ev.pieces === 1 ? "" : "s"}.`;
    case "official_placed": return `An official (cost ${ev.cost}) takes ${space(ev.space)}.`;
    case "round_started": return `Round ${ev.round} begins.`;
    case "chief_minister": return `${who(ev.seat)} becomes Chief Minister.`;
    case "gift_cancelled": return `The gift of ${who(ev.giver)} to ${who(ev.recipient)} (value ${ev.value}) is cancelled (${ev.rule}).`;
    case "invasion": return `The invasion of ${title(words(ev.land))} ${ev.success ? "succeeds" : "fails"}.`;
    case "exam_decided": return `The Imperial examination is decided: ${who(ev.winner)}'s student wins.`;
    case "candidate_placed": return `${who(ev.seat)}'s candidate takes ${space(ev.space)}.`;
    case "candidate_revealed": return `The new candidate is for ${title(words(ev.candidate))}.`;
    case "ministry_resolved":
      return `${title(ev.ministry)} is resolved: minister ${who(ev.minister)} (${ev.minister_vp} VP), ` +
        `secretary ${who(ev.secretary)} (${ev.secretary_vp} VP).`;
    case "title": return `${who(ev.seat)} earns the title of ${words(ev.title)} (${ev.vp} VP).`;
    case "cards_discarded": {  // R98: everyone over the hand limit, revealed together
      const each = ev.cards.map((held, seat) => [seat, held.map((n, k) => (n ? `${n}× c${k + 1}` : "")).filter(Boolean)])
        .filter(([, kinds]) => kinds.length).map(([seat, kinds]) => `${who(seat)} ${kinds.join(", ")}`);
      return `Cards discarded down to the hand limit: ${each.join("; ") || "none"}.`;
    }
    default: return null;
  }
}

export default {render, summary, scores, describe, describeEvent, seatColour};
