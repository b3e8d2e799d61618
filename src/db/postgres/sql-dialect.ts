/**
 * The stores' SQL is written once, in the dialect both engines share; this turns a statement as
 * SQLite reads it into the statement PostgreSQL reads, at prepare time. Only lexical differences
 * are translated here; where the engines differ in meaning (full-text search, upserts, JSON), the
 * store branches on its engine instead.
 *
 * Written by hand: the query builders that speak both dialects (Kysely, Knex) run queries
 * asynchronously, and the stores are synchronous by design (better-sqlite3: one connection, no
 * await per row), so the statements stay SQL text and this small, tested translation covers the
 * differences they use:
 *   `?` and `@name` placeholders -> `$n`           `AS camelCase` -> `AS "camelCase"` (and its uses)
 *   `INSERT OR IGNORE`           -> `ON CONFLICT DO NOTHING`
 *   `IS ?` / `IS NOT ?`          -> `IS [NOT] DISTINCT FROM $n`
 *   `LIKE`                       -> `ILIKE` (SQLite's LIKE ignores ASCII case)
 *   `max(a, b)` / `min(a, b)`    -> `GREATEST` / `LEAST`
 *   `json_each(`                 -> `wk_json_each(` (a function of the PostgreSQL schema)
 *   `CAST(x AS REAL)`            -> `CAST(x AS DOUBLE PRECISION)`
 *   `AND +column` (SQLite's "no index" hint) -> `AND column`
 *   `CROSS JOIN t ON`            -> `JOIN t ON`     `WHEN ? THEN` -> `WHEN $n::bigint <> 0 THEN`
 *   `ORDER BY x [ASC]`           -> `... NULLS FIRST`, `DESC` -> `NULLS LAST` (SQLite's order)
 *   INSERT into a table with an `id` -> `RETURNING id` (for lastInsertRowid)
 */

export interface TranslatedSql {
  text: string;
  /** Parameter names in `$n` order when the statement uses `@name` placeholders; else null. */
  names: string[] | null;
  /** Number of `$n` placeholders. */
  count: number;
  /** True when the statement is an INSERT that returns the new row's id. */
  returnsId: boolean;
  /** The table an INSERT, UPDATE or DELETE writes (lower case); null for a read. */
  writes: string | null;
}

const LITERAL = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g;

/** Translates one statement; `tablesWithId` names the tables whose rows have an `id` column. */
export function translateSql(sql: string, tablesWithId: ReadonlySet<string>): TranslatedSql {
  // Literals and comments are set aside so that nothing inside them is rewritten.
  const literals: string[] = [];
  let code = sql.replace(LITERAL, (m) => {
    literals.push(m);
    return `\u{e000}${literals.length - 1}\u{e001}`;
  });

  let count = 0;
  let names: string[] | null = null;
  if (/@[A-Za-z_]\w*/.test(code)) {
    const order: string[] = [];
    code = code.replace(/@([A-Za-z_]\w*)/g, (_m, name: string) => {
      let i = order.indexOf(name);
      if (i < 0) i = order.push(name) - 1;
      return `$${i + 1}`;
    });
    names = order;
    count = order.length;
  } else {
    code = code.replace(/\?/g, () => `$${++count}`);
  }

  // Unquoted identifiers fold to lower case in PostgreSQL: quote camelCase aliases everywhere.
  const aliases = new Set<string>();
  for (const m of code.matchAll(/\bAS\s+([A-Za-z_]\w*)/gi)) {
    if (/^[a-z_]\w*[A-Z]/.test(m[1]!)) aliases.add(m[1]!);
  }
  for (const alias of aliases) {
    code = code.replace(new RegExp(`(?<![\\w."$])${alias}(?![\\w"])`, 'g'), `"${alias}"`);
  }

  code = code
    .replace(/\bIS\s+NOT\s+(\$\d+)/gi, 'IS DISTINCT FROM $1')
    .replace(/\bIS\s+(\$\d+)/gi, 'IS NOT DISTINCT FROM $1')
    .replace(/\bNOT\s+LIKE\b/gi, 'NOT ILIKE')
    .replace(/(?<!NOT )\bLIKE\b/gi, 'ILIKE')
    .replace(/\bjson_each\s*\(/gi, 'wk_json_each(')
    // SQLite takes CROSS JOIN ... ON (a join order hint); PostgreSQL wants a plain JOIN.
    .replace(/\bCROSS\s+JOIN(\s+\w+(?:\s+(?!ON\b)\w+)?\s+ON)\b/gi, 'JOIN$1')
    // An integer flag as a condition (0 or 1, as SQLite reads it).
    .replace(/\bWHEN\s+(\$\d+)\s+THEN\b/gi, 'WHEN $1::bigint <> 0 THEN')
    // SQLite's unary `+column` keeps the planner off an index; PostgreSQL has no such hint.
    .replace(/\b(AND|OR|WHERE|ON|NOT)(\s+)\+(?=[A-Za-z_])/gi, '$1$2')
    .replace(/\bAS\s+REAL\s*\)/gi, 'AS DOUBLE PRECISION)');
  code = scalarMinMax(code);
  code = nullsOrder(code);

  let returnsId = false;
  const insert = /^\s*INSERT\s+(OR\s+IGNORE\s+)?INTO\s+([A-Za-z_]\w*)/i.exec(code);
  if (insert) {
    if (insert[1]) {
      code = code.replace(/^(\s*INSERT\s+)OR\s+IGNORE\s+/i, '$1');
      if (!/\bON\s+CONFLICT\b/i.test(code)) code = `${code.trimEnd()} ON CONFLICT DO NOTHING`;
    }
    if (tablesWithId.has(insert[2]!.toLowerCase()) && !/\bRETURNING\b/i.test(code)) {
      code = `${code.trimEnd().replace(/;$/, '')} RETURNING id`;
      returnsId = true;
    }
  }

  // Private-use characters mark where each literal was (they never occur in the stores' SQL).
  const text = code.replace(/\u{e000}(\d+)\u{e001}/gu, (_m, i: string) => literals[Number(i)]!);
  const target = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([A-Za-z_]\w*)/i.exec(code);
  return { text, names, count, returnsId, writes: target ? target[1]!.toLowerCase() : null };
}

/** `max(a, b)` (SQLite's scalar form, two or more arguments) -> `GREATEST(a, b)`; min likewise. */
function scalarMinMax(code: string): string {
  const re = /\b(max|min)\s*\(/gi;
  let out = '';
  let last = 0;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const open = m.index + m[0].length - 1;
    const close = matchingParen(code, open);
    if (close < 0 || topLevelCommas(code.slice(open + 1, close)) === 0) continue;
    out += code.slice(last, m.index) + (m[1]!.toLowerCase() === 'max' ? 'GREATEST' : 'LEAST');
    last = open;
  }
  return out + code.slice(last);
}

/**
 * SQLite sorts NULLs first in ascending order and last in descending order; PostgreSQL does the
 * opposite. Every ORDER BY term without an explicit NULLS gets SQLite's order.
 */
function nullsOrder(code: string): string {
  const re = /\bORDER\s+BY\b/gi;
  let out = '';
  let last = 0;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const start = m.index + m[0].length;
    const end = clauseEnd(code, start);
    const terms = splitTopLevel(code.slice(start, end)).map((term) => {
      // Ids are never NULL, and `id DESC NULLS LAST` would keep the planner off the primary key.
      if (
        /\bNULLS\s+(FIRST|LAST)\b/i.test(term) ||
        /^\s*(?:\w+\.)?id(?:\s+(?:ASC|DESC))?\s*$/i.test(term)
      ) {
        return term;
      }
      const trimmed = term.trimEnd();
      const trail = term.slice(trimmed.length);
      return /\bDESC$/i.test(trimmed)
        ? `${trimmed} NULLS LAST${trail}`
        : `${trimmed} NULLS FIRST${trail}`;
    });
    out += code.slice(last, start) + terms.join(',');
    last = end;
  }
  return out + code.slice(last);
}

/**
 * Where an ORDER BY list ends: LIMIT, OFFSET, UNION, RETURNING, an upsert's ON CONFLICT (of an
 * INSERT ... SELECT), a closing parenthesis of its level, or the end.
 */
function clauseEnd(code: string, from: number): number {
  let depth = 0;
  for (let i = from; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && /[LOUR;]/i.test(ch)) {
      const rest = code.slice(i, i + 16);
      const ends = /^(?:LIMIT|OFFSET|UNION|RETURNING|ON\s+CONFLICT)\b/i;
      if (ends.test(rest) && /\W/.test(code[i - 1] ?? ' ')) {
        return i;
      }
      if (ch === ';') return i;
    }
  }
  return code.length;
}

function matchingParen(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

function topLevelCommas(inner: string): number {
  return splitTopLevel(inner).length - 1;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}
