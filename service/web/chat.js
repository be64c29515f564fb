// The match's chat on the match page (issue 47 point 2, docs/api/chat.md): the players' channel for a
// seat, the spectators' channel of a public match for everyone; new messages arrive as `chat` events of
// the match's event stream (match.js hands them here), deletions as `chat_deleted`.  A seat writes and
// mutes; a spectator of this page (no player token) reads.  Every name and text goes in as a text node
// (dom.js's h): a message is never markup, whatever it holds.
import {ApiError} from "./api.js";
import {clear, h} from "./dom.js";

export class Chat {
  /** `el`: the page's chat section. */
  constructor({api, matchId, el}) {
    Object.assign(this, {api, matchId, el});
    this.channel = null;  // the channel shown; null until the match is read
    this.seat = null;
    this.muted = new Set();
    this.shown = new Map();  // message id -> its list item
  }

  path(suffix = "") {
    return `/v1/matches/${encodeURIComponent(this.matchId)}/chat${suffix}`;
  }

  /** Sets the panel up the first time the match is drawn: its channel, the page so far, my mutes. */
  async update(match) {
    if (this.channel !== null) return;
    const seat = match.your_seat ?? null;
    const channel = seat !== null ? "players" : match.visibility === "public" ? "spectators" : null;
    if (channel === null) return;
    this.channel = channel;
    this.seat = seat;
    this.draw();
    try {
      if (seat !== null) this.muted = new Set((await this.api.get(this.path("/mutes"))).authors);
      const page = await this.api.get(`${this.path()}?channel=${channel}&limit=200`);
      page.messages.forEach((m) => this.add(m));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.say(err.message);
    }
  }

  draw() {
    const el = clear(this.el);
    el.hidden = false;
    const title = this.channel === "players" ? "Chat with the players" : "Spectators' chat";
    this.list = h("ol", {id: "chat-messages", class: "chat-messages", "aria-live": "polite"});
    this.note = h("p", {id: "chat-note", role: "status"});
    el.append(h("h2", {id: "chat-heading"}, title), this.list, this.note);
    if (this.seat === null) return;  // a spectator of this page has no identity to write under
    const input = h("input", {id: "chat-text", type: "text", maxlength: 500, "aria-label": "Message",
      autocomplete: "off"});
    const form = h("form", {id: "chat-form", onsubmit: (e) => { e.preventDefault(); this.send(input); }},
      input, h("button", {type: "submit", id: "chat-send"}, "Send"));
    el.append(form);
  }

  say(text) {
    if (this.note) this.note.textContent = text;
  }

  async send(input) {
    const text = input.value;
    if (!text.trim()) return;
    try {
      const message = await this.api.post(this.path(), {channel: this.channel, text});
      input.value = "";
      this.say("");
      this.add(message);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.say(err.message);
    }
  }

  /** Shows a message once (a page and the event stream may both bring it), unless its author is muted. */
  add(message) {
    if (!this.list || message.channel !== this.channel || this.shown.has(message.id)) return;
    if (this.muted.has(message.author)) return;
    const mine = this.seat !== null && message.author === `seat:${this.seat}`;
    const item = h("li", {"data-id": message.id, "data-author": message.author, class: "chat-message"},
      h("span", {class: "chat-name"}, message.name), ": ",
      h("span", {class: "chat-text"}, message.erased ? "(erased)" : message.text),
      this.seat !== null && !mine
        ? h("button", {type: "button", class: "chat-mute", title: "Hide this author's messages",
          onclick: () => this.mute(message.author)}, "Mute")
        : null);
    this.shown.set(message.id, item);
    this.list.append(item);
    while (this.list.children.length > 500) this.list.removeChild(this.list.firstChild);
    this.list.scrollTop = this.list.scrollHeight;
  }

  async mute(author) {
    try {
      this.muted = new Set((await this.api.call("PUT", this.path(`/mutes/${encodeURIComponent(author)}`))).data.authors);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.say(err.message);
      return;
    }
    for (const item of [...this.list.children]) {
      if (item.dataset.author === author) item.remove();
    }
  }

  /** An event of the match's stream: whether it was the chat's (match.js leaves it out of its log). */
  onEvent(ev) {
    if (ev.type === "chat") {
      this.add(ev.message);
      return true;
    }
    if (ev.type === "chat_deleted") {
      this.shown.get(ev.message_id)?.remove();
      return true;
    }
    return false;
  }
}
