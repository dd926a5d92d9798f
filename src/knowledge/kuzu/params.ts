/**
 * How the store's parameters bind to Kuzu's node API, which converts each JS value to a Kuzu value
 * on the main thread and types a list by its first element (LIST(type of element 0)); a JS number
 * binds as INT64 when whole, DOUBLE otherwise.
 *
 * A list of objects (a batch's rows) binds one of two ways, chosen by the statement:
 * - as columns, when the statement names them: a statement reading `$steps_id[i]` over
 *   `UNWIND range(1, size($steps_id)) AS i` gets, for a parameter `steps`, one list per field it
 *   names (`steps_id`, `steps_runId`, …). Kuzu copies a LIST(STRUCT) parameter row by row as it
 *   unwinds it; the same 1,280 step rows cost it ~2.5× the CPU of one list per field
 *   (docs/performance.md, 2026-11-27). Every value travels as a string: a number as its exact
 *   decimal (the statement CASTs it back), null or undefined as '' (the statement turns '' back into
 *   null with nullif where the field may be null), since a list typed by a first element that is a
 *   whole number or null cannot hold the rest;
 * - else as a LIST(STRUCT), every number inside as its exact decimal string (a field that is 0 in
 *   the first element and 0.5 in another would otherwise read back the double's bits as an integer:
 *   0.5 → 4602678819172646912), and the statement CASTs it back.
 * Only the columns a statement names are sent: Kuzu rejects a parameter its statement does not use.
 */

/**
 * Kuzu 0.11.3 crashes the process (SIGSEGV) when an empty list is bound as a parameter. Every
 * list parameter of ours is a set of ids used with IN (UNWIND lists are never sent empty), so an
 * empty one is sent as a list holding one id no record can have.
 */
const NO_ID = '\u0000';

type Rows = Record<string, unknown>[];

/** A column reference: `$<parameter>_<field>`, both names letters and digits only. */
const COLUMN = /\$([A-Za-z][A-Za-z0-9]*)_([A-Za-z][A-Za-z0-9]*)\b/g;

/** The columns each statement names, by parameter (statements are the store's constants: few). */
const columnsByStatement = new Map<string, Map<string, string[]>>();

function columnsOf(statement: string): Map<string, string[]> {
  let columns = columnsByStatement.get(statement);
  if (!columns) {
    columns = new Map();
    for (const [, param, field] of statement.matchAll(COLUMN)) {
      const fields = columns.get(param!) ?? [];
      if (!fields.includes(field!)) fields.push(field!);
      columns.set(param!, fields);
    }
    columnsByStatement.set(statement, columns);
  }
  return columns;
}

function columnValue(value: unknown, param: string, field: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined) return '';
  throw new TypeError(`Kuzu column ${param}_${field} takes strings, numbers or null, got ${typeof value}`);
}

function bindColumns(out: Record<string, unknown>, param: string, rows: Rows, fields: string[]): void {
  if (rows.length === 0)
    throw new TypeError(`Kuzu columns of ${param}: no rows (a batch statement runs only with rows)`);
  for (const field of fields) {
    if (!(field in rows[0]!)) throw new TypeError(`Kuzu column ${param}_${field}: the rows have no field ${field}`);
    out[`${param}_${field}`] = rows.map((row) => columnValue(row[field], param, field));
  }
}

function bindValue(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  if (v.length === 0) return [NO_ID];
  if (typeof v[0] !== 'object' || v[0] === null) return v;
  return (v as Rows).map((item) => {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(item)) out[key] = typeof field === 'number' ? String(field) : field;
    return out;
  });
}

/** The statement's parameters as Kuzu binds them (see the top of this file). */
export function bindParams(statement: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  const columns = columnsOf(statement);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const fields = columns.get(key);
    if (fields && Array.isArray(value)) bindColumns(out, key, value as Rows, fields);
    else out[key] = bindValue(value);
  }
  return out;
}
