// A few DOM helpers: h() builds an element, swap() replaces a container's children and
// keeps the keyboard focus on the element that had it (by its data-focus or id), so
// that a redraw never throws a keyboard player back to the top of the page.

/** h("button", {class: "card", "data-card": "QH", onclick}, "Q♥"): an element. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = value;
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  element.append(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

const focusKey = (element) => element?.dataset?.focus ?? (element?.id ? `#${element.id}` : null);

function find(container, key) {
  if (key.startsWith("#")) return container.querySelector(`#${CSS.escape(key.slice(1))}`);
  return container.querySelector(`[data-focus="${CSS.escape(key)}"]`);
}

/**
 * Replace ``container``'s children with ``nodes``; if the focus was inside, put it back on
 * the element of the same key, or else on ``fallback(key)``'s answer.
 */
export function swap(container, nodes, fallback = null) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? focusKey(active) : null;
  container.replaceChildren(...nodes.flat(Infinity).filter(Boolean));
  if (key === null) return;
  const again = find(container, key) ?? fallback?.(key) ?? null;
  again?.focus({ preventScroll: true });
}

/** Set an element's text only when it changed (timers tick four times a second). */
export function setText(element, text) {
  if (element && element.textContent !== text) element.textContent = text;
}

export const byId = (id) => document.getElementById(id);

/**
 * ``text`` as nodes, each of ``names`` in it kept on one line (a span of class "whole"):
 * a line may otherwise break after the hyphen of "BOT-Hare".
 */
export function keepWhole(text, names) {
  const found = names.filter(Boolean).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!found.length) return [text];
  return text.split(new RegExp(`(${found.join("|")})`)).map((part, i) => (i % 2 ? h("span", { class: "whole" }, part) : part));
}
