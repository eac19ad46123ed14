package io.lockkit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;

/**
 * P8 on PostgreSQL (embedded 17.6): the bytes of a held lock's row ({@code pg_column_size}), and
 * what remains of {@code --names} distinct names (100,000 unless given) once each was locked and
 * released by lockkit on 16 threads: rows and {@code pg_total_relation_size} of every lockkit table,
 * before and after a {@code VACUUM}, and after as many other names and another {@code VACUUM}, twice. Writes {@code memory-jdbc.md} to {@code --out}
 * ({@code results/raw} unless given) and prints it.
 */
public final class JdbcMemoryMain {

    static final String COMMAND = "mvn -B -q -pl lock-benchmarks -am package -DskipTests && cd lock-benchmarks && "
            + "java -cp target/classes:'target/lib/*' io.lockkit.benchmarks.JdbcMemoryMain";
    private static final int THREADS = 16;

    private JdbcMemoryMain() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("results/raw");
        int names = 100_000;
        for (String a : args) {
            if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else if (a.startsWith("--names=")) {
                names = Integer.parseInt(a.substring("--names=".length()));
            }
        }
        StringBuilder md = new StringBuilder();
        try (JdbcDatabase db = JdbcDatabase.postgres()) {
            io.lockkit.jdbc.JdbcLockProvider.builder()
                    .jdbcUrl(db.url())
                    .createSchema(true)
                    .build()
                    .close();
            measure(db, names, md);
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("memory-jdbc.md"), md.toString());
        System.out.println(md);
    }

    private static void measure(JdbcDatabase db, int names, StringBuilder md) throws Exception {
        try (JdbcPeers.Client lockkit = JdbcPeers.open(JdbcBenchmarkMain.Peer.LOCKKIT, db, THREADS);
                Connection c = DriverManager.getConnection(db.url())) {
            md.append(String.format(
                    Locale.ROOT,
                    "PostgreSQL %s (embedded); command: `%s --names=%d`%n%n",
                    db.version(),
                    COMMAND,
                    names));
            Lock held = lockkit.lock("p8:held");
            held.lock();
            md.append(String.format(
                    Locale.ROOT,
                    "One held lock: %s; its row: %s B (`pg_column_size` of the row).%n%n",
                    rows(c),
                    first(c, "SELECT pg_column_size(l.*) FROM lockkit_locks l")));
            held.unlock();
            Map<String, long[]> before = tables(c);
            long t0 = System.nanoTime();
            lockAndRelease(lockkit, "mass:", names);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            Map<String, long[]> after = tables(c);
            exec(c, "VACUUM");
            Map<String, long[]> vacuumed = tables(c);
            // A second batch of other names after the VACUUM: does the table reuse the freed space?
            lockAndRelease(lockkit, "again:", names);
            exec(c, "VACUUM");
            Map<String, long[]> again = tables(c);
            lockAndRelease(lockkit, "third:", names);
            exec(c, "VACUUM");
            Map<String, long[]> third = tables(c);
            md.append(String.format(
                    Locale.ROOT,
                    "%,d names locked and released in %.1f s.%n%n"
                            + "| table | rows before | rows after | rows per name | total size before | after | after VACUUM | after as many other names and VACUUM | again | of it the heap (the rest: indexes, TOAST) | bytes per name (after − before) |%n"
                            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n",
                    names,
                    millis / 1000.0));
            sizeRows(md, names, before, after, vacuumed, again, third);
        }
    }

    /** One row per table: rows and sizes at each step ({rows, total size, heap size} per table). */
    @SafeVarargs
    private static void sizeRows(StringBuilder md, int names, Map<String, long[]>... steps) {
        Map<String, long[]> before = steps[0];
        Map<String, long[]> after = steps[1];
        Map<String, long[]> vacuumed = steps[2];
        Map<String, long[]> again = steps[3];
        Map<String, long[]> third = steps[4];
        for (String table : after.keySet()) {
            long[] b = before.getOrDefault(table, new long[3]);
            long[] a = after.get(table);
            long[] v = vacuumed.getOrDefault(table, new long[3]);
            long[] v2 = again.getOrDefault(table, new long[3]);
            long[] v3 = third.getOrDefault(table, new long[3]);
            md.append(String.format(
                    Locale.ROOT,
                    "| `%s` | %,d | %,d | %.4f | %,d | %,d | %,d | %,d | %,d | %,d | %.1f |%n",
                    table,
                    b[0],
                    a[0],
                    (a[0] - b[0]) / (double) names,
                    b[1],
                    a[1],
                    v[1],
                    v2[1],
                    v3[1],
                    v3[2],
                    (a[1] - b[1]) / (double) names));
        }
    }

    private static void lockAndRelease(JdbcPeers.Client client, String prefix, int names) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            Thread th = new Thread(() -> {
                for (int i = first; i < names; i += THREADS) {
                    Lock l = client.lock(prefix + i);
                    l.lock();
                    l.unlock();
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
    }

    /** Rows of every lockkit table, as "table: n" pairs. */
    private static String rows(Connection c) throws SQLException {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, long[]> t : tables(c).entrySet()) {
            sb.append(sb.length() == 0 ? "" : ", ")
                    .append(t.getKey())
                    .append(' ')
                    .append(t.getValue()[0])
                    .append(" rows");
        }
        return sb.toString();
    }

    /** Every lockkit table: {rows, pg_total_relation_size, pg_relation_size (the heap alone)}. */
    private static Map<String, long[]> tables(Connection c) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lockkit%' ORDER BY 1")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        Map<String, long[]> tables = new TreeMap<>();
        for (String t : names) {
            tables.put(t, new long[] {
                Long.parseLong(first(c, "SELECT count(*) FROM " + t)),
                Long.parseLong(first(c, "SELECT pg_total_relation_size('" + t + "')")),
                Long.parseLong(first(c, "SELECT pg_relation_size('" + t + "')"))
            });
        }
        return tables;
    }

    private static String first(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? String.valueOf(rs.getObject(1)) : "none";
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
