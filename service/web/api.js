// The public v1 API, as any third-party client calls it. The seat token is read from the URL fragment
// (#token=...), which the browser never sends, and goes to the server only as the Authorization header.

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code || "error";
    this.rule = body?.rule || null;
    this.details = body?.details || null;
  }
}

/** The URL fragment's parameters: token (a seat's), creator (the creator's token), invite (a code). */
export function fragment() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

export function tokenFromFragment() {
  return fragment().get("token") || null;
}

export class Api {
  constructor(token = null) {
    this.token = token;
  }

  headers(extra = {}) {
    const out = {Accept: "application/json", ...extra};
    if (this.token) out.Authorization = `Bearer ${this.token}`;
    return out;
  }

  /** Calls the API; resolves to {status, data, etag} or throws ApiError. */
  async call(method, path, {body, headers, signal} = {}) {
    const init = {method, headers: this.headers(headers), signal, cache: "no-store"};
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const resp = await fetch(path, init);
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = {message: text}; }
    if (!resp.ok) throw new ApiError(resp.status, data);
    return {status: resp.status, data, etag: resp.headers.get("ETag")};
  }

  get(path, opts) { return this.call("GET", path, opts).then((r) => r.data); }
  post(path, body, opts = {}) { return this.call("POST", path, {...opts, body}).then((r) => r.data); }

  games() { return this.get("/v1/games"); }
  game(id) { return this.get(`/v1/games/${encodeURIComponent(id)}`); }
  async rules(id) {
    const resp = await fetch(`/v1/games/${encodeURIComponent(id)}/rules`);
    return resp.ok ? resp.text() : "";
  }
  match(id) { return this.get(`/v1/matches/${encodeURIComponent(id)}`); }
  matches(query = "") { return this.get(`/v1/matches${query}`); }
  legal(id) { return this.get(`/v1/matches/${encodeURIComponent(id)}/legal-actions`); }
  create(body) { return this.post("/v1/matches", body); }

  /** A move based on `version` (If-Match, quoted as an ETag).  `key` (Idempotency-Key) makes a resend
   * of the same move safe: the server answers it with the first answer and applies nothing twice. */
  move(id, action, version, key) {
    const headers = {"If-Match": `"${version}"`};
    if (key) headers["Idempotency-Key"] = key;
    return this.post(`/v1/matches/${encodeURIComponent(id)}/actions`, {action}, {headers});
  }

  /** One long-poll page of events after `after` (waits up to `wait` seconds for the next). */
  events(id, after, wait, signal) {
    const q = new URLSearchParams({after, wait: String(wait)});
    return this.get(`/v1/matches/${encodeURIComponent(id)}/events?${q}`, {signal});
  }

  /** Takes an open seat ("any" or a number) of a waiting match; resolves to {seat, token, match}. */
  join(id, body) { return this.post(`/v1/matches/${encodeURIComponent(id)}/join`, body); }
  cancel(id, creatorToken) {
    return new Api(creatorToken).post(`/v1/matches/${encodeURIComponent(id)}/cancel`, undefined);
  }
  resign(id) { return this.post(`/v1/matches/${encodeURIComponent(id)}/resign`, undefined); }
  /** Takes my away seat back (a bot played it after my timeouts); 409 `not_away` when it is mine already. */
  returnToSeat(id) { return this.post(`/v1/matches/${encodeURIComponent(id)}/return`, undefined); }
  rematch(id) { return this.post(`/v1/matches/${encodeURIComponent(id)}/rematch`, undefined); }
  /** Says no to the rematch of finished match `id` (this seat's token of it): declines or withdraws it. */
  declineRematch(id) { return this.post(`/v1/matches/${encodeURIComponent(id)}/rematch/decline`, undefined); }

  hint(id, level) { return this.call("POST", `/v1/matches/${encodeURIComponent(id)}/hint`, {body: {level}}); }
  job(jobId) { return this.call("GET", `/v1/jobs/${encodeURIComponent(jobId)}`); }
}
