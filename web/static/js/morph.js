// Bring a live element into the shape of a freshly drawn one, keeping every element
// that stays: a play removes one card, and the other 51 (and the keyboard focus, on one
// of them or on the board) are left as they were. Children are matched by their key
// (data-card, data-foundation or id), else in order among those of the same tag.
// Listeners stay those of the kept element, so only trees whose listeners depend on
// their key alone (the boards' cards) are morphed.

function keyOf(node) {
  if (node.nodeType !== 1) return null; // an element
  return node.getAttribute("data-card") ?? node.getAttribute("data-foundation") ?? (node.id || null);
}

function syncAttributes(from, to) {
  const old = from.attributes;
  for (let i = old.length - 1; i >= 0; i--) {
    const name = old[i].name;
    if (!to.hasAttribute(name)) from.removeAttribute(name);
  }
  const fresh = to.attributes;
  for (let i = 0; i < fresh.length; i++) {
    const { name, value } = fresh[i];
    if (from.getAttribute(name) !== value) from.setAttribute(name, value);
  }
}

function syncChildren(parent, to) {
  const keyed = new Map();
  const unkeyed = [];
  for (const node of parent.childNodes) {
    const key = keyOf(node);
    if (key) keyed.set(key, node);
    else unkeyed.push(node);
  }
  const kept = new Set();
  let cursor = parent.firstChild;
  for (const node of [...to.childNodes]) {
    const key = keyOf(node);
    const match = key ? keyed.get(key) : unkeyed.find((old) => !kept.has(old) && old.nodeName === node.nodeName);
    const placed = match ? morph(match, node) : node;
    kept.add(placed);
    if (placed === cursor) cursor = cursor.nextSibling;
    else parent.insertBefore(placed, cursor);
  }
  for (const node of [...parent.childNodes]) if (!kept.has(node)) node.remove();
}

/** Morph ``from`` into ``to``; the element now in the page (``from``, or ``to`` in its place). */
export function morph(from, to) {
  if (from.nodeName !== to.nodeName || keyOf(from) !== keyOf(to)) {
    from.replaceWith(to);
    return to;
  }
  if (from.nodeType === Node.TEXT_NODE) {
    if (from.data !== to.data) from.data = to.data;
    return from;
  }
  if (from.nodeType === Node.ELEMENT_NODE) {
    syncAttributes(from, to);
    syncChildren(from, to);
  }
  return from;
}
