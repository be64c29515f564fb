// Replay mode of /play/{match_id}: step through a match's decisions, drawing each step's view with the
// game's own board module (the same drawing as the live board) in a board of its own, shown in place of
// the live one: the page goes on drawing the live board (hidden) and wiring its choices into it, and
// nothing drawn here is ever one of them. A finished match replays from any
// seat's view or the spectator's; a seat of a match in play replays its own past decisions, from its
// own view or the spectator's only (the server refuses the rest: no secret leaks from this page).
//
// The record (GET /v1/matches/{id}/record?include=views, format "tabletop-record/1", or "/2" when
// something was taken back) is read once per perspective and kept: stepping is drawing only, with no
// request. The steps are the live line, the decisions in force: step 0 is the view before the first
// decision (the record's initial_view), step k the view after the k-th decision not taken back. A
// taken-back decision is no step (its view is of a position the match left); where a takeback happened
// the list of moves says so, and so does the step it went back to.
import {ApiError} from "./api.js";
import {clear, h} from "./dom.js";

/** The perspectives a page may offer: any seat's or the spectator's once the match is finished; the
 * page's own seat and the spectator's while it is in play (a spectator's page: nothing to replay until
 * the match is over, as the server keeps a match's past from spectators no more than its present). */
export function perspectives(match) {
  if (match.status === "finished") {
    return [...match.seats.map((s) => `seat:${s.seat}`), "spectator"];
  }
  if (match.status === "active" && match.your_seat !== null && match.your_seat !== undefined) {
    return [`seat:${match.your_seat}`, "spectator"];
  }
  return [];
}

/** The record's query for a perspective: a seat's own view in play is the server's default for its token;
 * once over, the perspective is named (the default then is the full record). */
function recordQuery(match, perspective) {
  const q = new URLSearchParams({include: "views"});
  if (perspective === "spectator") {
    q.set("as", "spectator");
  } else if (match.status !== "active") {
    q.set("as", "seat");
    q.set("seat", perspective.split(":")[1]);
  }
  return q;
}

/** The record's live line: `steps`, its decisions not taken back, in order, and `takebacks`, each
 * record takeback with `at`, the step it went back to (how many of the live decisions precede the
 * first decision it took back). */
export function liveLine(rec) {
  const steps = rec.decisions.filter((d) => !d.taken_back);
  const takebacks = (rec.takebacks || []).map((t) => {
    const first = Math.min(...t.decisions);
    return {...t, at: steps.filter((d) => d.n < first).length};
  });
  return {steps, takebacks};
}

/**
 * The replay of one page. `page` gives what the live page knows: its api and match id, the match
 * document (`match()`), the board module (`board()`), the game document (`game()`), seat names and
 * colours, and action and event phrasing.
 */
export class Replay {
  constructor(page) {
    this.page = page;
    this.active = false;
    this.records = new Map();  // perspective -> record, each read once
    this.perspective = null;
    this.line = null;  // the live line of the record shown (liveLine)
    this.step = 0;
    this.busy = false;
    document.addEventListener("keydown", (e) => this.key(e));
  }

  $(id) { return document.getElementById(id); }

  /** Offers the replay when the match has one for this page (the "Replay" button), after each render. */
  offer() {
    const m = this.page.match();
    const open = this.$("replay-open");
    open.hidden = this.active || !perspectives(m).length;
    open.textContent = m.status === "finished" ? "Replay the match" : "Replay my decisions so far";
  }

  async open() {
    const m = this.page.match();
    const offered = perspectives(m);
    if (!offered.length) return;
    this.active = true;
    this.records.clear();  // a match in play moved on since: read its record again
    this.perspective = null;
    this.live(false);
    this.offer();
    const mine = m.your_seat !== null && m.your_seat !== undefined ? `seat:${m.your_seat}` : null;
    await this.show(mine && offered.includes(mine) ? mine : "spectator", m.status === "finished" ? 0 : null);
  }

  close() {
    this.active = false;
    this.live(true);
    delete document.body.dataset.replayStep;
    delete document.body.dataset.replayPerspective;
    this.offer();
  }

  /** Shows the live board and its words, or the replay in their place. */
  live(on) {
    this.$("replay").hidden = on;
    this.$("board").hidden = !on;
    this.$("summary-box").hidden = !on;
  }

  /** Shows `perspective`'s record at `step` (null: its last step), reading the record if not read yet. */
  async show(perspective, step) {
    if (this.busy) {  // one read at a time: the choice goes back to the view shown
      if (this.perspective) this.$("replay-perspective").value = this.perspective;
      return;
    }
    this.busy = true;
    const note = this.$("replay-note");
    try {
      if (!this.records.has(perspective)) {
        note.textContent = "Reading the record…";
        const q = recordQuery(this.page.match(), perspective);
        const id = encodeURIComponent(this.page.matchId);
        this.records.set(perspective, await this.page.api.get(`/v1/matches/${id}/record?${q}`));
      }
      note.textContent = "";
      this.perspective = perspective;
      this.controls();
      const last = this.line.steps.length;
      this.go(step === null ? last : Math.min(step, last));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      note.textContent = `The record could not be read: ${err.message}`;
      if (this.perspective) this.$("replay-perspective").value = this.perspective;
    } finally {
      this.busy = false;
    }
  }

  record() { return this.records.get(this.perspective); }

  /** The perspective's seat (a board draws that seat's hand as "yours"), null for a spectator. */
  seat() {
    return this.perspective.startsWith("seat:") ? Number(this.perspective.split(":")[1]) : null;
  }

  /** A takeback in words. */
  tookBack(t) {
    const k = t.decisions.length;
    return `${this.page.seatName(t.seat)} took back ${k} decision${k === 1 ? "" : "s"}`;
  }

  /** The controls for the record shown: the perspective choice, the slider and the list of moves (the
   * live line's, numbered by step, with a line where each takeback happened). */
  controls() {
    const m = this.page.match();
    this.line = liveLine(this.record());
    const {steps, takebacks} = this.line;
    const n = steps.length;
    const pick = clear(this.$("replay-perspective"));
    for (const p of perspectives(m)) {
      const seat = p.startsWith("seat:") ? Number(p.split(":")[1]) : null;
      const name = seat === null ? "Spectator" : `${this.page.seatName(seat)} (seat ${seat})` +
        (seat === m.your_seat ? " — you" : "");
      pick.append(h("option", {value: p, selected: p === this.perspective || null}, name));
    }
    pick.value = this.perspective;
    const slider = this.$("replay-slider");
    slider.max = String(n);
    const list = clear(this.$("replay-moves"));
    const marks = (k) => takebacks.filter((t) => t.at === k).forEach((t) =>
      list.append(h("li", {class: "takeback", "data-after-step": k}, this.tookBack(t))));
    list.append(h("li", {}, h("button", {type: "button", "data-step": 0}, "Start")));
    marks(0);
    steps.forEach((d, i) => {
      const mine = d.seat === this.seat();
      list.append(h("li", {class: mine ? "mine" : null}, h("button", {type: "button", "data-step": i + 1},
        `${i + 1}. ${this.page.seatName(d.seat)}: ${this.page.describe(d.action)}`)));
      marks(i + 1);
    });
  }

  /** Draws step `k` of the record shown. */
  go(k) {
    const rec = this.record();
    const {steps, takebacks} = this.line;
    const n = steps.length;
    this.step = Math.max(0, Math.min(n, k));
    const decision = this.step ? steps[this.step - 1] : null;
    const view = decision ? decision.view : rec.initial_view;
    document.body.dataset.replayStep = String(this.step);
    document.body.dataset.replayPerspective = this.perspective;
    this.$("replay-slider").value = String(this.step);
    this.$("replay-position").textContent = this.step ? `Move ${this.step} of ${n}` : `Start (${n} moves)`;
    for (const b of this.$("replay-moves").querySelectorAll("button")) {
      const here = Number(b.dataset.step) === this.step;
      if (here) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
      if (here) b.scrollIntoView({block: "nearest"});
    }
    this.$("replay-first").disabled = this.$("replay-back").disabled = this.step === 0;
    this.$("replay-forward").disabled = this.$("replay-last").disabled = this.step === n;
    const told = clear(this.$("replay-decision"));
    if (decision) {
      told.append(h("p", {}, h("strong", {}, `${this.page.seatName(decision.seat)}: `),
        this.page.describe(decision.action)));
      const events = (decision.events || []).filter((ev) => ev.type !== "action");
      if (events.length) told.append(h("ul", {}, events.map((ev) => h("li", {}, this.page.describeEvent(ev)))));
    } else {
      told.append(h("p", {}, "Before the first decision."));
    }
    for (const t of takebacks.filter((t) => t.at === this.step)) {
      told.append(h("p", {class: "takeback"}, `Then ${this.tookBack(t)}, back to this position.`));
    }
    this.draw(view);
  }

  /** The step's view, drawn by the game's board module, with the board in words. */
  draw(view) {
    const board = clear(this.$("replay-board"));
    const summary = clear(this.$("replay-summary"));
    const module = this.page.board();
    if (!module || !view) return;
    const seatColour = (seat) => this.page.seatColour(view, seat);
    const ctx = {seatName: this.page.seatName, seatColour, you: this.seat(), game: this.page.game(), view};
    try {
      board.append(module.render(view, ctx));
      summary.append(h("ul", {}, module.summary(view, ctx).map((line) => h("li", {}, line))));
    } catch (err) {
      board.append(h("p", {class: "error"}, `The board could not be drawn: ${err.message}`));
      console.error(err);
    }
  }

  /** Arrow keys step, Home and End jump, anywhere on the page but in a field that takes the keys. */
  key(e) {
    if (!this.active || !this.record() || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest?.("input, textarea, select")) return;
    const to = {ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: Infinity}[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }

  /** Wires the controls of match.html's replay section (once). */
  wire() {
    this.$("replay-open").addEventListener("click", () => this.open());
    this.$("replay-close").addEventListener("click", () => this.close());
    this.$("replay-first").addEventListener("click", () => this.go(0));
    this.$("replay-back").addEventListener("click", () => this.go(this.step - 1));
    this.$("replay-forward").addEventListener("click", () => this.go(this.step + 1));
    this.$("replay-last").addEventListener("click", () => this.go(Infinity));
    this.$("replay-slider").addEventListener("input", (e) => this.go(Number(e.target.value)));
    this.$("replay-perspective").addEventListener("change", (e) => this.show(e.target.value, this.step));
    this.$("replay-moves").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-step]");
      if (b) this.go(Number(b.dataset.step));
    });
  }
}
