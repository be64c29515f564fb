// Small DOM helpers. Text always goes in as text nodes (never innerHTML): names and actions come from
// other players and must not become markup.
const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: h("button", {class: "x", onclick: f}, "text"). */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as h. */
export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** An <svg> root with a title (its text alternative) and a viewBox. */
export function svgRoot(width, height, label, ...children) {
  return s("svg", {viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "board-svg"},
    s("title", {}, label), ...children);
}

/** Text in SVG, with an optional class. */
export function label(x, y, text, cls = "", anchor = "start") {
  return s("text", {x, y, class: cls, "text-anchor": anchor}, text);
}

/** A rectangle with an optional tooltip title. */
export function box(x, y, w, hgt, cls, title) {
  return s("rect", {x, y, width: w, height: hgt, rx: 4, class: cls}, title ? s("title", {}, title) : null);
}

export function circle(cx, cy, r, fillColour, title, cls = "piece") {
  return s("circle", {cx, cy, r, fill: fillColour, class: cls}, title ? s("title", {}, title) : null);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** "pyrotechnist_y" -> "pyrotechnist y", "draw_display" -> "draw display". */
export function words(id) {
  return String(id).replaceAll("_", " ").replaceAll("-", " ");
}

/** Colours for seats of games that name none. */
export const SEAT_COLOURS = ["#d9463b", "#2f6fd6", "#2f9e5a", "#e0a526", "#8a4fc7"];

/** A CSS colour for a game's colour name. */
export function colour(name, seat) {
  const table = {red: "#d9463b", blue: "#2f6fd6", green: "#2f9e5a", yellow: "#e0b526", violet: "#8a4fc7",
    purple: "#8a4fc7", orange: "#ee8a2b", white: "#f4f1e8", black: "#333", brown: "#8b5a2b"};
  return table[name] || SEAT_COLOURS[seat % SEAT_COLOURS.length] || "#888";
}

/** Marks a board element as the thing some actions name (their parameter values, space separated), so
 * the page can offer those actions from the board: "WEI1", "palace:0", "ministry:bingbu space:3". */
export function keyed(el, key) {
  el.setAttribute("data-key", key);
  return el;
}

/** "1 card", "2 cards": a number with its noun. */
export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
