// A TypeScript integration run against a live server (issue 27 point 6): every request body and every
// answer is typed by the operations openapi-typescript generates from openapi/openapi.json, so a
// field the spec renames or drops fails to compile.  An app registers two players; their seeks pair
// into a rated match and a challenge (accepted) makes another; both are played to the end with
// random legal moves through the players' tokens; then the results export, the leaderboards and a
// player's ratings are read.  tests/clients compiles it with `tsc --strict` and runs it with node:
//
//   node matchmaking.js BASE_URL ADMIN_TOKEN   (prints one JSON line: what it saw)
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

  async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
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
    return JSON.parse(text) as T;
  }
}

/** Play a match made by matchmaking to its end, each seat with its player's token. */
async function playOut(matchId: string, players: Api[]): Promise<Schemas["Match"]> {
  const seats = new Map<number, Api>();
  for (const player of players) {
    const doc = await player.call<Answer<"getMatch", 200>>("GET", `/v1/matches/${matchId}`);
    check(doc.rated && doc.your_seat !== null, "a rated match with the player's seat");
    seats.set(doc.your_seat, player);
  }
  for (;;) {
    const doc = await players[0].call<Answer<"getMatch", 200>>("GET", `/v1/matches/${matchId}`);
    if (doc.status !== "active" || doc.to_move === null) return doc;
    const mover = seats.get(doc.to_move);
    check(mover !== undefined, `seat ${doc.to_move} is a player's`);
    const legal = await mover.call<Answer<"getLegalActions", 200>>("GET", `/v1/matches/${matchId}/legal-actions`);
    const action = legal.actions[Math.floor(Math.random() * legal.actions.length)];
    const request: Schemas["ActionRequest"] = { action };
    await mover.call<Answer<"submitAction", 200>>("POST", `/v1/matches/${matchId}/actions`, request, {
      "If-Match": `"${legal.version}"`,
    });
  }
}

async function main(base: string, adminToken: string): Promise<void> {
  const admin = new Api(base, adminToken);
  const registered: Schemas["CreateApp"] = { name: "typescript ladder" };
  const app = new Api(base, (await admin.call<Answer<"createApp", 201>>("POST", "/v1/admin/apps", registered)).key);
  const players: Record<"ann" | "bob", Api> = {} as Record<"ann" | "bob", Api>;
  for (const pid of ["ann", "bob"] as const) {
    const named: Schemas["PutPlayer"] = { name: pid.toUpperCase() };
    await app.call<Answer<"putPlayer", 201>>("PUT", `/v1/players/${pid}`, named);
    const minted = await app.call<Answer<"createPlayerToken", 201>>("POST", `/v1/players/${pid}/tokens`, {});
    players[pid] = new Api(base, minted.token);
  }
  const { ann, bob } = players;

  // Seeks: Ann's waits, Bob's completes the pair; Ann reads hers matched to the same match.
  const wanted: Schemas["CreateSeek"] = { game: GAME, players: 2, rated: true };
  const waiting = await ann.call<Answer<"createSeek", 201>>("POST", "/v1/seeks", wanted);
  check(waiting.status === "open" && waiting.match_id === null, "Ann's seek waits");
  const paired = await bob.call<Answer<"createSeek", 201>>("POST", "/v1/seeks", wanted);
  check(paired.status === "matched" && paired.match_id !== null, "Bob's seek pairs");
  const seen = await ann.call<Answer<"getSeek", 200>>("GET", `/v1/seeks/${waiting.id}`);
  check(seen.match_id === paired.match_id, "one match for both");
  const seekMatch = await playOut(paired.match_id, [ann, bob]);

  // A challenge: Bob challenges Ann, who hears it on her feed and accepts; the accept makes the match.
  const offer: Schemas["CreateChallenge"] = { game: GAME, players: ["ann"], rated: true, order: "random" };
  const sent = await bob.call<Answer<"createChallenge", 201>>("POST", "/v1/challenges", offer);
  const feed = await ann.call<Answer<"getMyEvents", 200>>("GET", "/v1/me/events");
  const heard = feed.events.filter((e) => e.type === "challenge_received" && e.challenge_id === sent.id);
  check(heard.length === 1 && heard[0].challenger?.name === "BOB", "Ann is told who challenges her");
  const accepted = await ann.call<Answer<"acceptChallenge", 200>>("POST", `/v1/challenges/${sent.id}/accept`);
  check(accepted.status === "accepted" && accepted.match_id !== null, "the accept makes the match");
  const challengeMatch = await playOut(accepted.match_id, [ann, bob]);

  // The results export (finished matches of the game), the boards and Ann's ratings.
  const mine = await ann.call<Answer<"listMyMatches", 200>>("GET", `/v1/me/matches?game=${GAME}&status=finished`);
  const board = await app.call<Answer<"getLeaderboard", 200>>("GET", `/v1/games/${GAME}/leaderboard`);
  const bots = await ann.call<Answer<"getLeaderboard", 200>>("GET", `/v1/games/${GAME}/leaderboard?pool=bots`);
  const ratings = await ann.call<Answer<"getPlayerRatings", 200>>("GET", "/v1/players/ann/ratings");
  const rated: Schemas["GameRating"] | undefined = ratings.ratings.find((r) => r.game === GAME);
  check(rated !== undefined, "Ann is rated in the game");
  console.log(
    JSON.stringify({
      matches: [seekMatch, challengeMatch].map((m) => ({ id: m.id, status: m.status, rated: m.rated })),
      results: mine.matches.map((m) => ({ id: m.id, rated: m.rated, scores: m.result?.["scores"] ?? null })),
      leaderboard: board.players.map((row: Schemas["LeaderboardRow"]) => ({
        rank: row.rank,
        player: row.player,
        ordinal: row.ordinal,
        matches: row.matches,
      })),
      bots: bots.players.map((row) => row.player),
      ann: { matches: rated.matches, history: rated.history.map((h) => h.match_id), ordinal: rated.ordinal },
    }),
  );
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
