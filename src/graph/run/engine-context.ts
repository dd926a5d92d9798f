/**
 * The engine's context: its deps with defaults filled in, plus what every run of the engine shares
 * (the caller ledger restored from the data dir, the specialist directory).
 */
import type { EngineDeps, SpanRunner } from './engine-deps.ts';
import { CallerLedger } from '../spending/ledger.ts';
import { ledgerPath, ledgerWriter, readLedgerFile } from '../spending/ledger-file.ts';
import { SpecialistDirectory } from '../../knowledge/specialist-directory.ts';
import type { EngineContext } from './state.ts';
import { contextWindowOf } from '../../llm/context-windows.ts';
import { silentLogger } from '../../log.ts';
import { tracingOff, withSpan } from '../../telemetry.ts';

/**
 * Default spans through src/telemetry.ts. With telemetry off, fn runs bare: a no-op span still
 * costs two async frames per span, which every in-flight run would hold.
 */
const otelSpan: SpanRunner = (name, attributes, fn) => (tracingOff() ? fn() : withSpan(name, attributes, () => fn()));

/**
 * The deps with defaults filled in, plus the engine-wide caller ledger (restored from the data
 * dir's ledger file, so a restart keeps every caller's and thread's window spend).
 */
export function createEngineContext(deps: EngineDeps): EngineContext {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const file = ledgerPath(deps.config.store.dataDir);
  const restore = file ? readLedgerFile(file, logger) : undefined;
  return {
    ...deps,
    now,
    logger,
    span: deps.span ?? otelSpan,
    prices:
      deps.prices ?? ('prices' in deps.model ? (deps.model as { prices?: EngineDeps['prices'] }).prices : undefined),
    maxOutputTokens: deps.maxOutputTokens ?? (() => undefined),
    contextWindow: deps.contextWindow ?? ((_role, model) => contextWindowOf({}, model)),
    ownModelRoles: deps.ownModelRoles ?? [],
    ledger: new CallerLedger(deps.config.budget.caller, now, { thread: deps.config.budget.thread, restore }),
    saveLedger: file ? ledgerWriter(file, logger) : undefined,
    directory: new SpecialistDirectory(deps.store, { now }),
  };
}
