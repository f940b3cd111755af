// The page's words in the player's language. `t(key, params)` reads the catalogues that
// `python -m web.catalogues` writes from lang/'s .po files (web/static/i18n/LANG.json):
// placeholders are `{name}`, a plural takes its form from `count` through
// Intl.PluralRules, and English stands behind every language key by key, as in the
// terminal client (lang/catalogues.py). Numbers, dates and times go through Intl.
//
// The page awaits `startLanguage()` once before it draws; its language switch calls
// `switchLanguage(code)`, which remembers the choice in localStorage and calls every
// `onLanguageChange` listener, which draws again. docs/translating.md says how to add
// a key or a language.

import { ENGLISH, LANGUAGES, PSEUDO } from "./languages.js";

const REMEMBERED = "flowergarden.language";
const CODES = new Set(LANGUAGES.map((language) => language.code));
const ENGLISH_PLURALS = new Intl.PluralRules(ENGLISH);

const state = {
  language: ENGLISH,
  locale: ENGLISH,
  messages: {},
  english: {},
  plurals: ENGLISH_PLURALS,
};
const listeners = new Set();

export { LANGUAGES, PSEUDO };

/** The page's language for a tag ("de-AT", "nl", "it_IT"), or null when it has none. */
export function supported(tag) {
  const code = String(tag ?? "").trim().split(/[-_.@]/)[0].toLowerCase();
  return CODES.has(code) ? code : null;
}

function rememberedLanguage() {
  try {
    return globalThis.localStorage?.getItem(REMEMBERED) ?? null;
  } catch {
    return null; // storage refused (a private window's settings): choose afresh
  }
}

/**
 * The language to speak: the one the player chose last time, else the first of the
 * browser's languages the page has, else English.
 */
export function chooseLanguage(
  preferred = globalThis.navigator?.languages ?? [],
  remembered = rememberedLanguage(),
) {
  if (remembered === PSEUDO || CODES.has(remembered)) return remembered;
  for (const tag of preferred) {
    const code = supported(tag);
    if (code) return code;
  }
  return ENGLISH;
}

/** Speak a catalogue already read (a JSON document of web/static/i18n), English behind it. */
export function install(catalogue, english = catalogue) {
  state.language = catalogue.language;
  state.locale = catalogue.locale;
  state.messages = catalogue.messages;
  state.english = english.messages;
  state.plurals = new Intl.PluralRules(catalogue.locale);
  if (globalThis.document) document.documentElement.lang = catalogue.locale;
}

async function load(code) {
  const response = await fetch(new URL(`../i18n/${code}.json`, import.meta.url));
  if (!response.ok) throw new Error(`no catalogue for ${code} (${response.status})`);
  return response.json();
}

/** Read a language's catalogue (and English's) and speak it; the listeners draw again. */
export async function useLanguage(code) {
  const [catalogue, english] = await Promise.all([
    load(code),
    code === ENGLISH ? null : load(ENGLISH),
  ]);
  install(catalogue, english ?? catalogue);
  for (const listener of listeners) listener(code);
  return code;
}

/** Speak the language chosen for this browser (chooseLanguage); the page awaits it first. */
export const startLanguage = () => useLanguage(chooseLanguage());

/** The page's switch: speak `code` from now on, and remember it for the next visit. */
export async function switchLanguage(code) {
  if (code !== PSEUDO && !CODES.has(code)) throw new Error(`no catalogue for ${code}`);
  try {
    globalThis.localStorage?.setItem(REMEMBERED, code);
  } catch {
    // storage refused: the switch holds for this visit only
  }
  return useLanguage(code);
}

/** Call `listener(code)` after each change of language; returns the function that stops it. */
export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The language spoken now ("en", "de", "nl", "it", or the pseudo-language). */
export const language = () => state.language;

function lookup(messages, key, count, rules) {
  if (!Object.hasOwn(messages, key)) return null;
  const found = messages[key];
  if (typeof found === "string") return found;
  if (typeof count !== "number") throw new Error(`${key} needs a count`);
  return found[rules.select(count)] ?? found.other ?? null;
}

function paramText(value) {
  return typeof value === "number" ? formatNumber(value) : String(value);
}

/**
 * The text of `key` with its `{placeholders}` filled from `params` (numbers written the
 * language's way); a plural's form follows `params.count`. A key the language lacks is
 * said in English, and one no catalogue has comes back as itself.
 */
export function t(key, params = {}) {
  const template =
    lookup(state.messages, key, params.count, state.plurals) ??
    lookup(state.english, key, params.count, ENGLISH_PLURALS) ??
    key;
  return template.replace(/\{(\w+)\}/g, (_, name) => {
    if (!Object.hasOwn(params, name)) throw new Error(`${key} needs the parameter ${name}`);
    return paramText(params[name]);
  });
}

/**
 * A number the language's way: "1.234,5" in German, "1,234.5" in English. Grouped from
 * four digits in every language, as Babel writes them in the terminal client (Babel does
 * not read CLDR's minimum grouping digits, by which Intl writes "1234,5" in Italian).
 */
export const formatNumber = (value, options = {}) =>
  new Intl.NumberFormat(state.locale, { useGrouping: "always", ...options }).format(value);

/** Seconds with `digits` decimals and the language's unit: "41.2 sec", "41,2 Sek.". */
export const formatSeconds = (seconds, digits = 1) =>
  formatNumber(seconds, {
    style: "unit",
    unit: "second",
    unitDisplay: "short",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });

/** A date the language's way (a Date, or what new Date takes). */
export const formatDate = (value, options = { dateStyle: "medium" }) =>
  new Intl.DateTimeFormat(state.locale, options).format(new Date(value));

/** A time of day to the minute, the language's way. */
export const formatTime = (value, options = { timeStyle: "short" }) =>
  new Intl.DateTimeFormat(state.locale, options).format(new Date(value));
