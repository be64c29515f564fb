// The service's own events (those of every match, whatever its game: joining, leaving, clocks, rematches)
// as sentences, and the sentence of how a match ended; a game's module phrases the game's events.

/** Why a match ended without a result (match_over's reason), as the page and the event log say it. */
const ABORTED = {
  cancelled: "The match was cancelled by its creator.",
  abandoned: "The match was abandoned: no player is left.",
  declined: "The rematch offer was declined: it will not be played.",
  withdrawn: "The rematch offer was withdrawn: it will not be played.",
};

/** How a match ended, from its match_over event (null: not over, or not yet read). */
export function endingText(over) {
  if (!over) return null;
  if (over.status !== "aborted") return "The match is over.";
  return ABORTED[over.reason] || "The match was aborted.";
}

/** How a rematch offer ended (rematch_declined's reason; null when not known yet). */
export function offerEndedText(reason) {
  return ABORTED[reason] || "The rematch will not be played.";
}

/** A service event in words, or null for an event the service does not write (a game's). */
export function describeServiceEvent(ev, seatName) {
  const who = ev.seat !== undefined && ev.seat !== null ? seatName(ev.seat) : "";
  switch (ev.type) {
    case "match_created": return `Match created: ${ev.seats.map((s) => s.name || "open seat").join(", ")}.`;
    case "match_started": return "Every seat is taken: the match starts.";
    case "seat_joined": return `${ev.name} took seat ${ev.seat}.`;
    case "seat_left": return `The player of seat ${ev.seat} left; the seat is open again.`;
    case "resigned": return `${who} resigned; a ${ev.level} bot plays the seat now.`;
    case "timeout":
      return `${who} ran out of time: a ${ev.level} bot decided for them` +
        (ev.bot_keeps_seat ? ", and plays for them until they are back." : ".");
    case "seat_returned": return `${who} is back and plays the seat again.`;
    case "rematch": return "A rematch was offered.";
    case "rematch_declined": return offerEndedText(ev.reason);
    case "match_over": return endingText(ev);
    case "takeback_requested":
      return `${who} asks to take back their last ${ev.count === 1 ? "decision" : `${ev.count} decisions`}.`;
    case "takeback_accepted": return `${who} accepted the takeback.`;
    case "takeback_declined":
      return ev.seat === ev.requested_by ? `${who} withdrew their takeback request.` : `${who} declined the takeback.`;
    case "takeback":
      return `${who} took back ${ev.count === 1 ? "their last decision" : `their last ${ev.count} decisions`}.`;
    default: return null;
  }
}
