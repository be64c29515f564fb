// "Notify me": Web Push for a player's page (a player token in the URL fragment). Registers the service
// worker (/play/sw.js), asks the browser's permission, subscribes with the server's VAPID public key and
// registers the subscription with the API (POST /v1/me/push-subscriptions), so the player's turns,
// challenges, results and clock warnings reach this browser while the page is closed. A seat token
// (anonymous play) has no player to notify: the button stays hidden. See docs/api/push.md.
import {Api, ApiError, tokenFromFragment} from "./api.js";

const TYPES = ["your_turn", "challenge_received", "match_over", "clock_warning"];
const SCOPE = "/play/";
const $ = (id) => document.getElementById(id);

/** base64url text -> bytes (an applicationServerKey). */
function bytes(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function sameKey(buffer, text) {
  if (!buffer) return false;
  const a = new Uint8Array(buffer), b = bytes(text);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Subscribe this browser and register it for the player; resolves to the API's document. */
export async function subscribe(api) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("notifications are blocked for this site in the browser");
  await navigator.serviceWorker.register("/play/sw.js", {scope: SCOPE});
  const reg = await navigator.serviceWorker.ready;
  const {public_key: key} = await api.get("/v1/push/vapid-public-key");
  let sub = await reg.pushManager.getSubscription();
  // A subscription made with another server key cannot carry this server's messages: renew it.
  if (sub && !sameKey(sub.options?.applicationServerKey, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  if (!sub) sub = await reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: bytes(key)});
  const {endpoint, keys} = sub.toJSON();
  return api.post("/v1/me/push-subscriptions", {endpoint, keys, types: TYPES});
}

/** This browser's subscription as the API knows it (null: none). */
async function current(api) {
  const reg = await navigator.serviceWorker.getRegistration(SCOPE);
  const sub = reg ? await reg.pushManager.getSubscription() : null;
  if (!sub) return null;
  const {subscriptions} = await api.get("/v1/me/push-subscriptions");
  return subscriptions.find((s) => s.endpoint === sub.endpoint) || null;
}

async function unsubscribe(api, doc) {
  await api.call("DELETE", `/v1/me/push-subscriptions/${encodeURIComponent(doc.id)}`);
  const reg = await navigator.serviceWorker.getRegistration(SCOPE);
  const sub = reg ? await reg.pushManager.getSubscription() : null;
  if (sub) await sub.unsubscribe();
}

async function wire() {
  const token = tokenFromFragment();
  const box = $("notify");
  if (!box || !token || !token.startsWith("tp.") || !supported()) return;
  const api = new Api(token);
  const button = $("notify-me"), status = $("notify-status");
  let doc = null;
  const show = () => {
    button.textContent = doc ? "Stop notifications" : "Notify me";
    box.dataset.state = doc ? "on" : "off";
  };
  try { doc = await current(api); } catch { doc = null; }
  show();
  box.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = doc ? "Turning notifications off…" : "Asking the browser…";
    try {
      if (doc) {
        await unsubscribe(api, doc);
        doc = null;
        status.textContent = "Notifications are off for this browser.";
      } else {
        doc = await subscribe(api);
        status.textContent = "You will be notified of your turns, challenges, results and clock warnings.";
      }
    } catch (err) {
      status.textContent = `Notifications unavailable: ${err instanceof ApiError ? err.message : err.message || err}`;
      box.dataset.state = "error";
      button.disabled = false;
      return;
    }
    show();
    button.disabled = false;
  });
}

wire();
