// Takebacks on the match page (issue 47): a "Take back" button while my latest decisions can be taken
// back, my open request (withdraw it), and another player's request to me (accept or decline).  All of
// it from the public API: GET /v1/matches/{id}/takebacks for the match's version the page draws, and the
// POSTs of that resource.  A refusal (409 takeback_refused: another player decided first, the position
// revealed or drew something, the limit...) is shown with its message as text.
import {ApiError} from "./api.js";
import {clear, count, h} from "./dom.js";

export class Takebacks {
  /** `el`: the page's section; `refresh()` redraws the match after a call (its events do too). */
  constructor({api, matchId, seatName, refresh, el}) {
    Object.assign(this, {api, matchId, seatName, refresh, el});
    this.version = null;
    this.note = null;  // the last refusal's text and the version it was refused at: shown until the match moves
  }

  path(suffix = "") {
    return `/v1/matches/${encodeURIComponent(this.matchId)}/takebacks${suffix}`;
  }

  /** Reads the match's requests once per version it draws (a seat's page while the match is under way). */
  async update(match) {
    if (match.your_seat === null || match.status !== "active") {
      this.version = null;
      this.el.hidden = true;
      clear(this.el);
      return;
    }
    if (this.version === match.version) return;
    this.version = match.version;
    let doc;
    try {
      doc = await this.api.get(this.path());
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.version = null;  // read again at the next draw
      return;
    }
    if (this.note && this.note.version !== match.version) this.note = null;
    this.draw(match, doc);
  }

  draw(match, doc) {
    const el = clear(this.el);
    const mine = match.your_seat;
    const open = doc.open;
    const items = [];
    if (open && open.seat === mine) {
      const waiting = open.waiting_for.map((s) => this.seatName(s)).join(", ");
      items.push(h("p", {id: "takeback-mine"},
        `You asked to take back ${count(open.count, "decision")}; waiting for ${waiting}.`),
      h("button", {type: "button", id: "takeback-withdraw", onclick: () => this.answer(open.id, "decline")},
        "Withdraw the request"));
    } else if (open) {
      const who = this.seatName(open.seat);
      items.push(h("p", {id: "takeback-request", class: "notice"},
        `${who} asks to take back their last ${count(open.count, "decision")}.`));
      if (open.waiting_for.includes(mine)) {
        items.push(
          h("button", {type: "button", id: "takeback-accept", class: "primary",
            onclick: () => this.answer(open.id, "accept")}, "Accept"),
          h("button", {type: "button", id: "takeback-decline", onclick: () => this.answer(open.id, "decline")},
            "Decline"));
      }
    } else if (doc.undoable > 0 && doc.left > 0) {
      items.push(h("button", {type: "button", id: "takeback", onclick: () => this.ask(1)},
        `Take back my last decision (${count(doc.left, "request")} left)`));
    }
    if (this.note) items.push(h("p", {id: "takeback-refused", role: "alert"}, this.note.text));
    el.hidden = !items.length;
    el.append(...items);
  }

  ask(n) {
    return this.call(() => this.api.post(this.path(), {count: n}));
  }

  answer(id, verb) {
    return this.call(() => this.api.post(this.path(`/${encodeURIComponent(id)}/${verb}`), undefined));
  }

  async call(fn) {
    for (const b of this.el.querySelectorAll("button")) b.disabled = true;
    try {
      await fn();
      this.note = null;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const reason = err.details?.reason ? ` (${err.details.reason})` : "";
      this.note = {text: `Takeback refused${reason}: ${err.message}`, version: this.version};
    }
    this.version = null;  // read the requests again, whatever the match's version
    await this.refresh();
  }
}
