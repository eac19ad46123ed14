package io.lockkit.benchmarks;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The Markdown report of {@link JdbcBenchmarkMain}: per database, the medians over the rounds of
 * every figure, the goals' ratios (each taken within a round, then the median), and every round.
 */
final class JdbcReport {

    /** P1 cells per peer (in JdbcBenchmarkMain.Peer order): p50 us, median ratio to the floor. */
    private static final int P1_CELLS = 2;

    /** P3 cells per peer: acquisitions/s, hand-off p50, p99, same-client p50, other-client p50, same share %, lost. */
    private static final int P3_CELLS = 7;

    private static final String[] P1_PEERS = {"floor", "lockkit", "spring", "lockkit SPI only"};
    private static final String[] P3_PEERS = {"floor", "lockkit", "spring"};

    /** P7 cells per peer (in P3_PEERS order): the other-client hand-off p50. */
    private static final int P7_CELLS = 1;

    private JdbcReport() {}

    static String render(
            Map<JdbcDatabase, List<String[]>> rounds,
            Map<JdbcDatabase, List<double[]>> breakdowns,
            String pinning,
            int cpus,
            int repeats,
            List<String> load) {
        StringBuilder b = new StringBuilder();
        b.append("# JDBC lock benchmarks (P1, P3, P7) on PostgreSQL and MariaDB\n\n");
        b.append("Generated ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).withNano(0))
                .append(" by\n\n```sh\n")
                .append("mvn -B -q -pl lock-benchmarks -am package -DskipTests && cd lock-benchmarks && \\\n")
                .append("  java -cp target/classes:'target/lib/*' io.lockkit.benchmarks.JdbcBenchmarkMain results/jdbc")
                .append(" --repeats ")
                .append(repeats)
                .append("\n```\n\n");
        b.append(String.format(
                Locale.ROOT,
                "JDK %s, %d CPUs, %s. The databases take turns, one round (P1, P3 and P7) each, %d times; load average"
                        + " (1, 5, 15 min) before and after each round: %s.%n%n",
                System.getProperty("java.version"),
                cpus,
                pinning,
                repeats,
                String.join("; ", load)));
        b.append(
                "P1: one thread, lock + unlock of an uncontended name; the libraries take turns of 0.5 s, 10 turns each;"
                        + " \"× floor\" is the median over turns of the p50 against the floor's p50 in the same turn. \"lockkit SPI only\""
                        + " calls the provider's acquire and release directly, without the core: the database's share of lockkit's pair.\n"
                        + "P3: 4 clients (own pools) × 8 threads, one hot name, no pause; hand-off = from the releasing thread's unlock"
                        + " call to the next holder's lock return, split by whether the next holder is of the releasing client (same)"
                        + " or of another (other). floor = one upsert over an expired row to acquire, one DELETE to release, waiters"
                        + " poll every 1 ms; spring = Spring Integration 7.1.2 `JdbcLockRegistry` over `DefaultLockRepository` (its"
                        + " default 100 ms between tries). Every library on HikariCP pools of the same size.\n"
                        + "P7: as P3 with 4 clients × 1 thread, each asking again only after another client took the lock"
                        + " and holding it 2 ms, so that every release hands it to another client (process): the other-client"
                        + " hand-off p50.\n\n");
        for (Map.Entry<JdbcDatabase, List<String[]>> e : rounds.entrySet()) {
            database(b, e.getKey(), e.getValue());
            breakdown(b, breakdowns.get(e.getKey()));
        }
        return b.toString();
    }

    private static void database(StringBuilder b, JdbcDatabase db, List<String[]> rows) {
        b.append("## ").append(db.name()).append(' ').append(db.version()).append("\n\n");
        double p1Ratio = median(rows, r -> cell(r, 1 * P1_CELLS + 1));
        double p1Spi = median(rows, r -> cell(r, 3 * P1_CELLS + 1));
        double p3Ratio = median(rows, r -> p3(r, 1, 0) / p3(r, 2, 0));
        double handOffRatio = median(rows, r -> p3(r, 1, 1) / p3(r, 2, 1));
        double p7Spring = median(rows, r -> p7(r, 1) / p7(r, 2));
        double p7Floor = median(rows, r -> p7(r, 1) / p7(r, 0));
        b.append(String.format(
                Locale.ROOT,
                "Goals (medians of the rounds' ratios): P1 lockkit × floor **%.2f** (goal ≤ 1.3; the provider alone %.2f);"
                        + " P3 acquisitions/s lockkit ÷ spring **%.2f** (goal ≥ 1.5); P3 hand-off p50 lockkit ÷ spring **%.2f**"
                        + " (goal ≤ 0.5); P7 other-client hand-off p50 lockkit ÷ spring **%.2f** (goal ≤ 0.5), lockkit ÷ floor"
                        + " %.2f.%n%n",
                p1Ratio,
                p1Spi,
                p3Ratio,
                handOffRatio,
                p7Spring,
                p7Floor));
        TextTable libraries = TextTable.of(
                "library",
                "P1 p50 µs",
                "P1 × floor",
                "P3 acquisitions/s",
                "P3 hand-off p50 µs",
                "hand-off p99 µs",
                "same client p50 µs",
                "other client p50 µs",
                "same client share",
                "P3 lost updates",
                "P7 other-client hand-off p50 µs");
        for (int i = 0; i < P1_PEERS.length; i++) {
            libraries.row(libraryRow(rows, i));
        }
        b.append(libraries.markdown());
        b.append(
                "\nEvery round (P1 p50 µs floor / lockkit / spring / SPI only; P3 acquisitions/s and hand-off p50 µs"
                        + " lockkit / spring; lockkit's hand-off p50 same / other client; P7 other-client hand-off p50 µs):\n\n");
        TextTable every = TextTable.of(
                "round",
                "P1 p50 µs",
                "P1 lockkit × floor",
                "P3 acq/s lockkit / spring",
                "P3 hand-off p50 lockkit / spring",
                "lockkit same / other client",
                "P7 other client lockkit / spring / floor");
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            every.row(
                    Integer.toString(i + 1),
                    fmt(cell(r, 0)) + " / " + fmt(cell(r, P1_CELLS)) + " / " + fmt(cell(r, 2 * P1_CELLS)) + " / "
                            + fmt(cell(r, 3 * P1_CELLS)),
                    String.format(Locale.ROOT, "%.2f", cell(r, P1_CELLS + 1)),
                    lockkitVersusSpring(r, 0),
                    lockkitVersusSpring(r, 1),
                    fmt(p3(r, 1, 3)) + " / " + fmt(p3(r, 1, 4)),
                    fmt(p7(r, 1)) + " / " + fmt(p7(r, 2)) + " / " + fmt(p7(r, 0)));
        }
        b.append(every.markdown());
        b.append('\n');
    }

    /** P3 cell {@code c} of a round, "lockkit / spring (ratio×)". */
    private static String lockkitVersusSpring(String[] round, int c) {
        double lockkit = p3(round, 1, c);
        double spring = p3(round, 2, c);
        return String.format(Locale.ROOT, "%s / %s (%.2f×)", fmt(lockkit), fmt(spring), lockkit / spring);
    }

    /** Library {@code peer}'s medians: P1, and P3 where it took part ("–" where not). */
    private static List<String> libraryRow(List<String[]> rows, int peer) {
        List<String> cells = new ArrayList<>();
        cells.add(P1_PEERS[peer]);
        cells.add(fmt(median(rows, r -> cell(r, peer * P1_CELLS))));
        cells.add(String.format(Locale.ROOT, "%.2f", median(rows, r -> cell(r, peer * P1_CELLS + 1))));
        if (peer < P3_PEERS.length) {
            for (int c : new int[] {0, 1, 2, 3, 4}) {
                cells.add(fmt(median(rows, r -> p3(r, peer, c))));
            }
            cells.add(String.format(Locale.ROOT, "%.0f%%", median(rows, r -> p3(r, peer, 5))));
            cells.add(fmt(median(rows, r -> p3(r, peer, 6))));
            cells.add(fmt(median(rows, r -> p7(r, peer))));
        } else {
            cells.addAll(java.util.Collections.nCopies(8, "–"));
        }
        return cells;
    }

    private static void breakdown(StringBuilder b, List<double[]> rounds) {
        b.append("Where P1's time goes: p50 µs of single statements on one connection, one thread, in turns (median"
                + " over the rounds):\n\n");
        TextTable statements = TextTable.of("statement", "p50 µs");
        for (int i = 0; i < JdbcBenchmarkMain.BREAKDOWN.length; i++) {
            List<Double> values = new ArrayList<>();
            for (double[] r : rounds) {
                values.add(r[i]);
            }
            statements.row(JdbcBenchmarkMain.BREAKDOWN[i], fmt(Stats.median(values)));
        }
        b.append(statements.markdown()).append('\n');
    }

    private static double cell(String[] row, int index) {
        return Double.parseDouble(row[index]);
    }

    /** P3 cell {@code c} of peer {@code peer} (index into P3_PEERS). */
    private static double p3(String[] row, int peer, int c) {
        return cell(row, P1_PEERS.length * P1_CELLS + peer * P3_CELLS + c);
    }

    /** The P7 cell of peer {@code peer} (index into P3_PEERS), after every P3 cell. */
    private static double p7(String[] row, int peer) {
        return cell(row, P1_PEERS.length * P1_CELLS + P3_PEERS.length * P3_CELLS + peer * P7_CELLS);
    }

    private static double median(List<String[]> rows, ToDoubleFunction<String[]> value) {
        List<Double> values = new ArrayList<>();
        for (String[] r : rows) {
            values.add(value.applyAsDouble(r));
        }
        return Stats.median(values);
    }

    private static String fmt(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,.0f", v);
    }
}
