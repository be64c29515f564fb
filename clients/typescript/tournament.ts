// A TypeScript integration of tournaments (issue 31) run against a live server: every request body and
// every answer is typed by the operations openapi-typescript generates from openapi/openapi.json, so a
// field the spec renames or drops fails to compile.  An app registers two players and runs a round
// robin of them (one match from each seat); each hears of its matches on its feed
// (`tournament_match`), both matches are played to the end with random legal moves through the
// players' tokens, and the finished tournament's standings, its results export (JSON, and the same
// rows as CSV) and the listing are read.  Then Ann's own token enters her and an easy bot in another
// tournament, which she cancels.  tests/clients compiles it with `tsc --strict` and runs it with node:
//
//   node tournament.js BASE_URL ADMIN_TOKEN   (prints one JSON line: what it saw)
import type { components, operations } from "./tabletop.js";

type Schemas = components["schemas"];
/** The JSON answer of operation `Op` with status `S`, as the spec types it. */
type Answer<Op extends keyof operations, S extends keyof operations[Op]["responses"]> =
  operations[Op]["responses"][S] extends { content: { "application/json": infer T } } ? T : never;

declare const process: { argv: string[]; exitCode?: number };

const GAME = "year_of_dragon";

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${what}`);
}

class Api {
  constructor(readonly base: string, readonly token: string) {}

  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<string> {
    const response = await fetch(this.base + path, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text;
  }

  async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return JSON.parse(await this.send(method, path, body, headers)) as T;
  }
}

/** Play a tournament match to its end: each seat by the token of the player its entrant is. */
async function playOut(match: Schemas["TournamentMatch"], seatsOf: Api[]): Promise<number> {
  let moves = 0;
  for (;;) {
    const doc = await seatsOf[0].call<Answer<"getMatch", 200>>("GET", `/v1/matches/${match.match_id}`);
    if (doc.status !== "active" || doc.to_move === null) return moves;
    const mover = seatsOf[doc.to_move];
    const legal = await mover.call<Answer<"getLegalActions", 200>>("GET", `/v1/matches/${match.match_id}/legal-actions`);
    const action = legal.actions[Math.floor(Math.random() * legal.actions.length)];
    const request: Schemas["ActionRequest"] = { action };
    await mover.call<Answer<"submitAction", 200>>("POST", `/v1/matches/${match.match_id}/actions`, request, {
      "If-Match": `"${legal.version}"`,
    });
    moves += 1;
  }
}

async function main(base: string, adminToken: string): Promise<void> {
  const admin = new Api(base, adminToken);
  const registered: Schemas["CreateApp"] = { name: "typescript cup" };
  const app = new Api(base, (await admin.call<Answer<"createApp", 201>>("POST", "/v1/admin/apps", registered)).key);
  const players = new Map<string, Api>();
  for (const pid of ["ann", "bob"]) {
    const named: Schemas["PutPlayer"] = { name: pid.toUpperCase() };
    await app.call<Answer<"putPlayer", 201>>("PUT", `/v1/players/${pid}`, named);
    const minted = await app.call<Answer<"createPlayerToken", 201>>("POST", `/v1/players/${pid}/tokens`, {});
    players.set(pid, new Api(base, minted.token));
  }
  const ann = players.get("ann");
  check(ann !== undefined, "Ann's client");

  // The app's round robin of Ann and Bob: two seats a match, so they meet once from each seat.
  const request: Schemas["CreateTournament"] = {
    name: "TypeScript cup",
    game: GAME,
    players: 2,
    entrants: [{ player: "ann" }, { player: "bob" }],
    format: "round_robin",
  };
  const created = await app.call<Answer<"createTournament", 201>>("POST", "/v1/tournaments", request);
  check(created.status === "running" && created.progress.total === 2, "running, two matches");
  // Creating one makes no match (its cost is the same whatever its size): the workers' scheduler
  // makes them moments later, and tells the players.
  let made = await app.call<Answer<"getTournament", 200>>("GET", `/v1/tournaments/${created.id}`);
  let told: Schemas["FeedEntry"][] = [];
  for (let i = 0; i < 300; i += 1) {
    made = await app.call<Answer<"getTournament", 200>>("GET", `/v1/tournaments/${created.id}`);
    const feed = await ann.call<Answer<"getMyEvents", 200>>("GET", "/v1/me/events");
    told = feed.events.filter((e) => e.type === "tournament_match" && e.tournament_id === made.id);
    if (made.matches.every((m) => m.status !== "pending") && told.length === made.matches.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let moves = 0;
  for (const match of made.matches) {
    const seatsOf = match.entrants.map((e) => players.get(made.entrants[e].player ?? ""));
    check(seatsOf.every((p): p is Api => p !== undefined), "every seat a player's");
    moves += await playOut(match, seatsOf as Api[]);
  }
  const done = await ann.call<Answer<"getTournament", 200>>("GET", `/v1/tournaments/${made.id}`);
  const results = await app.call<Answer<"getTournamentResults", 200>>("GET", `/v1/tournaments/${made.id}/results`);
  const csv = await app.send("GET", `/v1/tournaments/${made.id}/results?format=csv`, undefined, { Accept: "text/csv" });
  const listed = await app.call<Answer<"listTournaments", 200>>("GET", "/v1/tournaments?status=finished");
  // The entrants hear of the end from the workers' scheduler, moments after the last move.
  let over: Schemas["FeedEntry"] | undefined;
  for (let tries = 0; over === undefined && tries < 100; tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const afterwards = await ann.call<Answer<"getMyEvents", 200>>("GET", "/v1/me/events");
    over = afterwards.events.find((e) => e.type === "tournament_over" && e.tournament_id === made.id);
  }

  // Ann's own: her token enters her and a built-in bot; she cancels it, and its match is aborted.
  const own: Schemas["CreateTournament"] = {
    game: GAME,
    players: 2,
    entrants: [{ player: "ann" }, { level: "easy" }],
    matches_per_pairing: 1,
  };
  const mine = await ann.call<Answer<"createTournament", 201>>("POST", "/v1/tournaments", own);
  const stopped = await ann.call<Answer<"cancelTournament", 200>>("POST", `/v1/tournaments/${mine.id}/cancel`);
  // The answer is the tournament without its matches (constant work): they are read apart.
  const calledOff = await ann.call<Answer<"getTournament", 200>>("GET", `/v1/tournaments/${mine.id}`);

  const standing = (row: Schemas["TournamentStanding"]) => ({
    rank: row.rank,
    player: done.entrants[row.entrant].player ?? null,
    points: row.points,
    seats: row.seats,
  });
  console.log(
    JSON.stringify({
      id: made.id,
      told: told.map((e) => e.match_id),
      matches: made.matches.map((m) => m.match_id),
      moves,
      status: done.status,
      standings: done.standings.map(standing),
      rows: results.results.map((r: Schemas["TournamentResultRow"]) => [r.match_id, r.seat, r.entrant, r.place, r.points]),
      csv: csv.split("\r\n").filter((line) => line !== ""),
      listed: listed.tournaments.map((t) => t.id),
      over: over === undefined ? null : { status: over.status ?? null, rank: over.rank ?? null, points: over.points ?? null },
      cancelled: { status: stopped.status, matches: calledOff.matches.map((m) => m.status), bot: mine.entrants[1].name },
    }),
  );
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
