// A client's use of the types openapi-typescript generates from openapi/openapi.json: one match
// document type for every game, narrowed by `game` (view, result and options follow), per-game event
// and action unions narrowed by `type`.  tests/clients compiles it with `tsc --strict`.
import type { components } from "./tabletop.js";

type Schemas = components["schemas"];
export type Match = Schemas["Match"];

/** What a lobby shows of a match: each game's own fields, reached without a cast. */
export function summary(match: Match): string {
  switch (match.game) {
    case "china":
      return `China, turn ${match.view.turn}, ${match.view.deck_size} cards left` +
        (match.result ? `, won by seats ${match.result.winners.join(", ")}` : "");
    case "confucius":
      return `Confucius, round ${match.view.round}, great wall ${match.view.great_wall}` +
        (match.result ? `, general: seat ${match.result.titles.general}` : "");
    case "taj_mahal":
      return `Taj Mahal, visit ${match.view.visit} in ${match.view.current_province}` +
        (match.result ? `, card bonus ${match.result.card_bonus.join("/")}` : "");
    case "year_of_dragon":
      return `In the Year of the Dragon, round ${match.view.round}` +
        (match.result ? `, track ${match.result.track_order.join(" > ")}` : "");
  }
}

/** A line of a China match's event feed. */
export function describe(event: Schemas["ChinaEvent"]): string {
  switch (event.type) {
    case "took":
      return `seat ${event.seat} took a ${event.card} card from slot ${event.slot}`;
    case "province_scored":
      return `${event.province} scored: ${event.points.join(", ")}`;
    case "action":
      return `seat ${event.seat}: ${event.action.type}`;
    case "match_over":
      return event.result ? `over: winners ${event.result.winners.join(", ")}` : "aborted";
    default:
      return event.type;
  }
}

/** A move of China, checked against the game's action schema when compiled. */
export const place: Schemas["ChinaAction"] = { type: "place", piece: "house", target: "WEI1", pay: "red" };

export function move(action: Schemas["Action"], version: number): Schemas["ActionRequest"] {
  return { action, expected_version: version };
}

/** A match request as the README writes it: a seat is a human's unless it says otherwise. */
export const request: Schemas["CreateMatch"] = {
  game: "china",
  seats: [{ name: "me" }, { name: "a bot", kind: "bot", level: "easy" }, { kind: "open" }],
};

/** One status type wherever a match's status appears: matches, move results and event pages. */
export function progress(answer: Schemas["Match"] | Schemas["MoveResult"] | Schemas["EventsPage"]): string {
  const status: Schemas["MatchStatus"] = answer.status;
  switch (status) {
    case "waiting":
      return "waiting for players";
    case "active":
      return `version ${answer.version}: in play`;
    case "finished":
      return "over";
    case "aborted":
      return "abandoned";
    default: {
      const unknown: never = status; // every status is handled: a new one fails to compile
      return unknown;
    }
  }
}

/** A match between an app's players (sent with the app key): their seats get no seat tokens. */
export const betweenPlayers: Schemas["CreateMatch"] = {
  game: "year_of_dragon",
  seats: [{ player: "ann" }, { kind: "open", player: "bob" }],
};

/** What a player's client shows for an entry of its feed (GET /v1/me/events, with its player token). */
export function notify(entry: Schemas["FeedEntry"]): string {
  const where = `${entry.game} ${entry.match_id}`;
  switch (entry.type) {
    case "your_turn":
      return `your turn in ${where} (version ${entry.version})`;
    case "clock_warning":
      return `hurry: your time in ${where} ends at ${entry.deadline ?? "?"}`;
    case "invited":
      return `you have a seat in ${where}`;
    case "match_started":
      return `${where} started`;
    case "seat_joined":
      return `${entry.name ?? "someone"} took seat ${entry.joined_seat ?? "?"} in ${where}`;
    case "timeout":
      return `seat ${entry.timed_out_seat ?? "?"} ran out of time in ${where}`;
    case "match_over":
      return `${where} is over`;
    case "seek_matched":
      return `your seek ${entry.seek_id ?? "?"} found ${where}: you are seat ${entry.seat ?? "?"}`;
    case "seek_expired":
      return `nobody took your seek ${entry.seek_id ?? "?"} for ${entry.game}`;
    case "challenge_received":
      return `${entry.challenger?.name ?? "someone"} challenges you to ${entry.game} (${entry.challenge_id})`;
    case "challenge_accepted":
      return `challenge accepted: ${where}`;
    case "challenge_declined":
      return `challenge ${entry.reason === "cancelled" ? "withdrawn" : "declined"} by ${entry.declined_by}`;
    case "challenge_expired":
      return `challenge ${entry.challenge_id} expired`;
    case "tournament_match":
      return `${entry.tournament_name ?? "a tournament"}, round ${entry.round ?? "?"}: your match ${where}`;
    case "tournament_over":
      return `${entry.tournament_name ?? "a tournament"} is ${entry.status}: you ranked ${entry.rank ?? "?"}`;
    case "takeback_requested":
      return `seat ${entry.requested_by ?? "?"} asks to take back ${where}: answer by ${entry.expires_at ?? "?"}`;
    case "takeback_accepted":
      return `decisions taken back in ${where}`;
    case "takeback_declined":
      return `takeback declined in ${where}`;
    case "chat_message":
      return `${entry.chat?.name ?? "someone"} in ${where}: ${entry.chat?.text ?? ""}`;
    default: {
      const unknown: never = entry.type; // a new kind of entry fails to compile
      return unknown;
    }
  }
}

/** The matches where a player is to decide, from a page of GET /v1/me/matches. */
export function myTurns(page: Schemas["MyMatches"]): string[] {
  return page.matches.filter((m) => m.my_turn && m.status === "active").map((m) => m.id);
}

/** A leaderboard as a lobby prints it (GET /v1/games/{game}/leaderboard): rank, who, conservative rating. */
export function ladder(board: Schemas["Leaderboard"]): string[] {
  return board.players.map((row) => `${row.rank}. ${row.name} ${row.ordinal.toFixed(1)} (${row.matches} rated)`);
}

/** A seek for a rated three-player China match against people rated near 10, bots after a minute. */
export const seek: Schemas["CreateSeek"] = {
  game: "china",
  players: 3,
  rated: true,
  rating_range: { min: 5, max: 15 },
  bots: { allow: true, after_seconds: 60, level: "normal" },
};
