/**
 * Who is asking: the caller identity every layer scopes by (http/ resolves it, hitl/ and knowledge/
 * filter by it, graph/ stamps runs with it). It imports nothing of ours, so any folder may depend on it.
 */

export interface Caller {
  /**
   * Stable identity: an API key id ("key-…"), or "anonymous" with auth off. Everything a run
   * produces belongs to its caller; also the subject of per-caller budgets and rate limits.
   */
  id: string;
  /** An operator's key (PARLEY_ADMIN_KEYS): sees and acts on every caller's runs and approvals. */
  admin?: boolean;
}

/**
 * The one local caller: every request when auth is off, and the local processes (`parley run`,
 * `parley acp`, `parley mcp` over stdio), so a single user's runs all share one execution memory.
 */
export const LOCAL_CALLER: Caller = Object.freeze({ id: 'anonymous' });

/**
 * Whether `caller` may see a thing owned by `ownerId`: its owner, or an admin. No caller means an
 * internal, unscoped look-up (the engine itself, the CLI); adapters always pass the request's caller.
 */
export function canSee(caller: Caller | undefined, ownerId: string | undefined): boolean {
  return caller === undefined || caller.admin === true || caller.id === ownerId;
}

/** The owner id to filter a listing by: undefined (everything) for an admin or an unscoped look-up. */
export function ownerFilter(caller: Caller | undefined): string | undefined {
  return caller === undefined || caller.admin === true ? undefined : caller.id;
}
