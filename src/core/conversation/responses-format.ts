/**
 * The Responses converter's old path. It lives in its format's folder now,
 * `core/wire/responses/responses-format.ts`; this re-export keeps the modules that still import it
 * from here (the benchmark suites) working.
 */
export * from '../wire/responses/responses-format.js';
