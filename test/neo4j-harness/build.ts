/**
 * `npm run neo4j:harness`: builds the Neo4j test harness runner into .cache/neo4j-harness/<hash>/
 * (test/support/neo4j.ts), unless it is built already, and says which Neo4j and which JDK the tests
 * will use. .ci/run calls it once so the first Neo4j test does not spend its timeout on Maven.
 */
import { NEO4J_VERSION, ensureHarness, neo4jJavaHome, neo4jMissing } from '../support/neo4j.ts';

const missing = neo4jMissing();
if (missing) {
  console.log(`neo4j harness: ${missing}`);
} else {
  const started = Date.now();
  const jar = ensureHarness((line) => console.log(line));
  console.log(
    `neo4j harness: Neo4j ${NEO4J_VERSION} on the JDK at ${neo4jJavaHome()}: ${jar} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}
