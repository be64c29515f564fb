// The web client's service worker (served as /play/sw.js, scope /play/): shows the server's Web Push
// messages as notifications, and opens (or focuses) the match page when one is clicked. The browser
// decrypts each message before it gets here; the payload is the server's: {type, title, body, tag, url,
// data} (docs/api/push.md). A notification shows text only, never markup.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let msg = {};
  try {
    msg = event.data ? event.data.json() : {};
  } catch {
    msg = {body: event.data ? event.data.text() : ""};
  }
  const options = {
    body: String(msg.body || ""),
    icon: "/play/static/icon.svg",
    data: {url: typeof msg.url === "string" ? msg.url : "/play", type: msg.type || null},
  };
  // One notification per topic (a match's turns): a newer one replaces the shown one, and says so.
  if (msg.tag) Object.assign(options, {tag: String(msg.tag), renotify: true});
  event.waitUntil(self.registration.showNotification(String(msg.title || "Tabletop"), options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  let url = new URL(event.notification.data?.url || "/play", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/play", self.location.origin);
  event.waitUntil((async () => {
    // The match's page, if open, holds the player's token in its fragment: focus it rather than open a
    // spectator's page.
    const open = await self.clients.matchAll({type: "window", includeUncontrolled: true});
    const page = open.find((w) => new URL(w.url).pathname === url.pathname);
    if (page) return page.focus();
    return self.clients.openWindow(url.href);
  })());
});
