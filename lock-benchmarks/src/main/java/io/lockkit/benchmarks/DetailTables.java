package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.micros;
import static io.lockkit.benchmarks.ReportFigures.millis;
import static io.lockkit.benchmarks.ReportFigures.num;
import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p4;
import static io.lockkit.benchmarks.ReportFigures.p6;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The report's sections under the summary for P3, P4 and P6: who gets the lock next, client
 * commands per acquisition as contenders grow, and 1,000 waiters on one lock; "Not measured." when
 * no run has the figures. Immutable.
 */
final class DetailTables {

    private static final List<String> LIBRARIES = List.of("", "raw floor", "lockkit", "Redisson");

    private final ReportFigures f;

    DetailTables(ReportFigures figures) {
        this.f = figures;
    }

    String handOffs() {
        if (f.runs().stream().allMatch(r -> r.p3().isEmpty())) {
            return "Not measured.\n";
        }
        String intro =
                "After each release, the next holder was the releasing thread itself (it came straight back and won), another "
                        + "thread of the same client, or a thread of another client (medians of the runs; hand-off p50 per kind). "
                        + "lockkit hands a released lock to the oldest waiter of the releasing client first, at most `localHandOffs` "
                        + "(8) times in a row, then to the oldest waiter overall; a waiter in the same process is woken without a "
                        + "pub/sub hop. The floor and Redisson let every woken waiter race, the releasing thread included.\n\n";
        TextTable t = TextTable.of(LIBRARIES.toArray(String[]::new)).rightFrom(1);
        String[] labels = {"same thread", "same client, other thread", "other client"};
        List<Function<Contention.HandOffs, Double>> shares = List.of(
                Contention.HandOffs::sameThreadShare,
                Contention.HandOffs::sameClientShare,
                Contention.HandOffs::otherClientShare);
        List<Function<Contention.HandOffs, Double>> p50s = List.of(
                Contention.HandOffs::sameThreadP50Micros,
                Contention.HandOffs::sameClientP50Micros,
                Contention.HandOffs::otherClientP50Micros);
        for (int k = 0; k < 3; k++) {
            Function<Contention.HandOffs, Double> share = shares.get(k);
            Function<Contention.HandOffs, Double> p50 = p50s.get(k);
            t.row(perLibrary(
                    labels[k],
                    lib -> num(100 * f.median(r -> p3(r, lib, c -> share.apply(c.handOffs()))), 0) + " %, p50 "
                            + micros(f.median(r -> p3(r, lib, c -> p50.apply(c.handOffs()))))));
        }
        t.row(perLibrary(
                "longest wait p99", lib -> millis(f.median(r -> p3(r, lib, Contention.Result::waitP99Millis)))));
        return intro + t.markdown();
    }

    /** A row of the label and one cell per library. */
    private static List<String> perLibrary(String label, Function<Library, String> cell) {
        List<String> cells = new ArrayList<>();
        cells.add(label);
        for (Library lib : Library.values()) {
            cells.add(cell.apply(lib));
        }
        return cells;
    }

    String commandsPerLevel() {
        List<Integer> c = f.contenders();
        if (c.isEmpty() || f.runs().stream().allMatch(r -> r.p4().isEmpty())) {
            return "Not measured.\n";
        }
        StringBuilder t = new StringBuilder();
        t.append("Client commands per acquisition, counted with MONITOR (median of ")
                .append(f.runCount())
                .append("); below them the commands the scripts ran per acquisition, ")
                .append(
                        "and acquisitions/s in the same window (MONITOR slows Redis: compare rates with P3, not these). ")
                .append(
                        "Contenders are spread over 4 clients (1 and 2 contenders: that many clients, one thread each).\n\n");
        List<String> header = new ArrayList<>(List.of("contenders"));
        c.forEach(n -> header.add(String.valueOf(n)));
        TextTable table = TextTable.of(header.toArray(String[]::new)).rightFrom(1);
        for (Library lib : Library.values()) {
            table.row(perLevel("**" + lib.label() + "**: client commands / acq", c, n -> num(f.p4Median(lib, n), 2)));
        }
        for (Library lib : Library.values()) {
            table.row(perLevel(
                    lib.label() + ": commands inside scripts / acq",
                    c,
                    n -> num(f.median(r -> p4(r, lib, n, Contention.Result::scriptCallsPerAcquisition)), 1)));
        }
        for (Library lib : Library.values()) {
            table.row(perLevel(
                    lib.label() + ": acq/s under MONITOR",
                    c,
                    n -> num(f.median(r -> p4(r, lib, n, Contention.Result::acquisitionsPerSecond)), 0)));
        }
        t.append(table.markdown());
        t.append("\nClient commands by name (run 1):\n\n");
        for (Library lib : Library.values()) {
            t.append(commandsByName(lib, List.of(c.get(0), c.get(c.size() - 1))));
        }
        return t.toString();
    }

    private static List<String> perLevel(String label, List<Integer> levels, Function<Integer, String> cell) {
        List<String> cells = new ArrayList<>();
        cells.add(label);
        levels.forEach(n -> cells.add(cell.apply(n)));
        return cells;
    }

    /** "- lockkit: 1 contender: EVALSHA 2.00; 64 contenders: …" from run 1. */
    private String commandsByName(Library lib, List<Integer> levels) {
        StringBuilder t = new StringBuilder();
        t.append("- ").append(lib.label()).append(':');
        for (int n : levels) {
            f.runs().stream()
                    .findFirst()
                    .map(r -> r.p4().get(lib))
                    .flatMap(l -> l.stream().filter(x -> x.contenders() == n).findFirst())
                    .ifPresent(x -> t.append(' ')
                            .append(n)
                            .append(n == 1 ? " contender: " : " contenders: ")
                            .append(perAcquisition(x.clientCommands(), x.acquisitions()))
                            .append(';'));
        }
        t.setLength(t.length() - 1);
        return t.append('\n').toString();
    }

    private static String perAcquisition(Map<String, Long> commands, long acquisitions) {
        return commands.entrySet().stream()
                .map(e -> String.format(
                        Locale.ROOT,
                        "%s %.2f",
                        e.getKey().toUpperCase(Locale.ROOT),
                        acquisitions == 0 ? Double.NaN : (double) e.getValue() / acquisitions))
                .collect(Collectors.joining(", "));
    }

    String waiterFlood() {
        if (f.runs().stream().allMatch(r -> r.p6().isEmpty())) {
            return "Not measured.\n";
        }
        String intro =
                "One client; the main thread holds the lock while 1,000 platform threads call `lock()`; counted once all are parked, against a baseline taken after one uncontended lock and unlock on the fresh client. Connections are counted by client name in `CLIENT LIST`.\n\n";
        TextTable t = TextTable.of(LIBRARIES.toArray(String[]::new)).rightFrom(1);
        t.row(perLibrary(
                "extra platform threads",
                lib -> num(waiters(lib, w -> w.extraPlatformThreads()), 0) + " (" + f.extraNames(lib) + ")"));
        t.row(perLibrary("connections before the waiters", lib -> num(waiters(lib, w -> w.baselineConnections()), 0)));
        t.row(perLibrary(
                "extra connections while they wait", lib -> "+" + num(waiters(lib, w -> w.extraConnections()), 0)));
        t.row(perLibrary(
                "pub/sub connections while they wait", lib -> num(waiters(lib, w -> w.pubSubConnections()), 0)));
        t.row(perLibrary(
                "1,000 hand-offs drained in (median; every run)",
                lib -> millis(f.median(r -> p6(r, lib, WaiterFlood.Result::drainMillis))) + " ("
                        + f.perRun(r -> p6(r, lib, WaiterFlood.Result::drainMillis), v -> num(v, 0)) + ")"));
        t.row(perLibrary(
                "errors",
                lib -> num(
                        f.runs().stream()
                                .mapToDouble(r -> r.p6().containsKey(lib)
                                        ? r.p6().get(lib).errors()
                                        : 0)
                                .sum(),
                        0)));
        return intro + t.markdown();
    }

    private double waiters(Library lib, java.util.function.ToIntFunction<WaiterFlood.Result> count) {
        return f.median(r -> p6(r, lib, w -> (double) count.applyAsInt(w)));
    }
}
