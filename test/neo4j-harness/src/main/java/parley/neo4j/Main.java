package parley.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.graphdb.Result;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Starts a real Neo4j with the in-process test harness (org.neo4j.test:neo4j-harness) on 127.0.0.1:PORT,
 * its files under FOLDER, and prints two lines the caller waits for:
 *
 *   neo4j-version 2026.08.1
 *   neo4j-bolt bolt://127.0.0.1:PORT
 *
 * It stops (and flushes) when its standard input closes, the parent's way of saying "done" that also
 * fires when the parent dies, or on SIGTERM/SIGINT. Auth is off, as in every harness instance: the
 * server is reachable only from loopback and lives as long as one test file.
 *
 * Usage: java -jar neo4j-harness-runner.jar PORT FOLDER [PAGE_CACHE_MB]
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: neo4j-harness-runner PORT FOLDER [PAGE_CACHE_MB]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path folder = Path.of(args[1]);
    long pageCacheMb = args.length > 2 ? Long.parseLong(args[2]) : 128;

    Neo4j neo4j =
        Neo4jBuilders.newInProcessBuilder(folder)
            // Bolt only: Parley speaks Bolt (neo4j-driver); no HTTP server, no browser.
            .withDisabledServer()
            .withConfig(BoltConnector.enabled, true)
            .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
            .withConfig(GraphDatabaseSettings.pagecache_memory, pageCacheMb * 1024 * 1024)
            .build();

    AtomicBoolean closed = new AtomicBoolean();
    Runnable stop =
        () -> {
          if (closed.compareAndSet(false, true)) neo4j.close();
        };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "neo4j-harness-stop"));

    System.out.println("neo4j-version " + version(neo4j));
    System.out.println("neo4j-bolt " + neo4j.boltURI());
    System.out.flush();

    InputStream in = System.in;
    byte[] buffer = new byte[256];
    while (in.read(buffer) != -1) {
      // Nothing is read from the parent: only the end of the stream matters.
    }
    stop.run();
    System.exit(0);
  }

  private static String version(Neo4j neo4j) {
    return neo4j
        .defaultDatabaseService()
        .executeTransactionally(
            "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] + ' ' + edition AS v",
            java.util.Map.of(),
            (Result result) -> String.valueOf(result.next().get("v")));
  }
}
