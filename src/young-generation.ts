/**
 * V8 allocates new objects in a young generation of two semi-spaces, which it doubles (up to 16 MB
 * each on 64-bit Node 20) whenever many objects survive a scavenge, and shrinks only once its memory
 * reducer finds the process idle, 10-20 s later. `parley serve` starts with exactly such a burst
 * (loading the server's chunks, opening Kuzu, the first ingestion) and then sits idle: ~14 MB of RSS
 * held for nothing (docs/performance.md, "Idle RSS"). So the young generation keeps its initial
 * size while the service starts, and grows as before once the start-up ingestion is over: under
 * load a large one means fewer scavenges and fewer short-lived objects promoted to the old generation.
 *
 * `--semi-space-growth-factor` is read each time V8 considers growing, so it can change at run time;
 * one set by the user (NODE_OPTIONS or node's own arguments) is left alone. Newer V8s raise a factor
 * below 2 back to 2 (a minimum-value implication on the flag), so there the hold is a harmless no-op.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--semi-space-growth-factor';
/** V8's default, what `releaseYoungGeneration` restores. */
const V8_GROWTH_FACTOR = 2;

const setByUser = () => [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('semi-space'));

/** Until released, the young generation stays at the size it has. */
export function holdYoungGeneration(): void {
  if (!setByUser()) setFlagsFromString(`${FLAG}=1`);
}

/** The young generation grows again under allocation pressure, as V8 does by default. */
export function releaseYoungGeneration(): void {
  if (!setByUser()) setFlagsFromString(`${FLAG}=${V8_GROWTH_FACTOR}`);
}
