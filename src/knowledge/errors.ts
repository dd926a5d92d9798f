/** Errors the knowledge store raises at open; their messages are meant to be shown as they are. */

/** Another process holds the embedded database file (Kuzu allows one writing process per file). */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(
      `The knowledge database ${path} is in use by another process (is another Parley running on the same ` +
        `PARLEY_DATA_DIR?). Stop it, or point PARLEY_DATA_DIR elsewhere. (${detail.split('\n')[0]})`,
    );
  }
}

/** The database was written by a newer Parley whose schema this one does not know. */
export class SchemaVersionError extends Error {
  override name = 'SchemaVersionError';
}

/** The configured Neo4j server cannot be reached or refused the credentials. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
