/**
 * The Config type, inferred from the settings table: each row with a place (`at: 'server.port'`)
 * becomes that property with its parser's output type, so a value of the wrong type, or a row at the
 * wrong place, does not compile where it is used. Nothing here runs; load.ts builds the same shape.
 */
import type { z } from 'zod';

/** A row's value once read: what `fromHome` makes of it, else its parser's output. */
type ValueOf<Row> = Row extends { fromHome: (...args: never[]) => infer V }
  ? V
  : Row extends { schema: infer S extends z.ZodType }
    ? z.output<S>
    : never;

/** A row with no default and nothing from the home may be absent. */
type MayBeAbsent<Row> = Row extends { default: string } ? false : Row extends { fromHome: unknown } ? false : true;

/**
 * One value at a dotted path: 'server.port' → { server: { port: V } }. A segment ending in `?` is an
 * object that exists only when its rows without a default have values, so inside it they are required.
 */
type Placed<Path extends string, V, Optional extends boolean> = Path extends `${infer Head}.${infer Rest}`
  ? Head extends `${infer Name}?`
    ? { [K in Name]?: Placed<Rest, V, false> }
    : { [K in Head]: Placed<Rest, V, Optional> }
  : Optional extends true
    ? { [K in Path]?: V }
    : { [K in Path]: V };

type RowShape<Row> = Row extends { at: infer Path extends string }
  ? Placed<Path, ValueOf<Row>, MayBeAbsent<Row>>
  : never;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Flattens intersections into one object type per level (what an editor shows on hover). */
export type Simplify<T> = T extends readonly unknown[] | ((...args: never[]) => unknown)
  ? T
  : T extends object
    ? { [K in keyof T]: Simplify<T[K]> }
    : T;

/** The config object the rows of a table place their values in. */
export type ShapeOf<Rows extends readonly unknown[]> = Simplify<UnionToIntersection<RowShape<Rows[number]>>>;
