package io.lockkit.cli;

import io.lockkit.LockException;
import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lockkit watch [PREFIX]}: the held locks as a table redrawn every interval, until
 * interrupted or for {@code --iterations} frames. Each frame streams the whole listing but keeps
 * only the first {@code --limit} names (a bounded heap), so memory stays flat however many locks
 * there are. A frame that fails (Redis away) is reported and the next one tries again.
 */
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        description = {
            "Shows the held locks whose names start with PREFIX as a live table.",
            "Holder, client, count, token, lease left and waiters, redrawn every --interval until interrupted (Ctrl-C) or for"
                    + " --iterations frames. With --json: one JSON document per line and frame. A frame that Redis fails is reported"
                    + " on stderr (with --json also as an error line) and the next one tries again; exit code 3 when the last frame"
                    + " failed."
        })
final class WatchCommand implements Callable<Integer> {

    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Mixin
    CommandContext.Prefix context = new CommandContext.Prefix();

    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            defaultValue = "1s",
            converter = DurationConverter.class,
            description =
                    "time between frames, e.g. 500ms, 2s, PT1.5S; a bare number is seconds (default: ${DEFAULT-VALUE})")
    Duration interval = Duration.ofSeconds(1);

    @Option(
            names = {"-n", "--iterations"},
            paramLabel = "N",
            defaultValue = "0",
            description = "stop after N frames (default: 0, until interrupted)")
    int iterations;

    @Option(
            names = "--limit",
            paramLabel = "ROWS",
            defaultValue = "50",
            description = "show at most ROWS locks per frame, the first by name (default: ${DEFAULT-VALUE})")
    int limit = 50;

    @Override
    public Integer call() throws InterruptedException {
        if (iterations < 0) {
            throw new Target.UsageException(
                    "--iterations must be 0 (until interrupted) or positive, was " + iterations);
        }
        if (limit < 1) {
            throw new Target.UsageException("--limit must be positive, was " + limit);
        }
        PrintWriter out = context.out();
        PrintWriter err = context.err();
        boolean clear = !context.json() && context.environment().console() != null;
        boolean failed = false;
        try (Target target = context.connect()) {
            for (int frame = 0; iterations == 0 || frame < iterations; frame++) {
                if (frame > 0) {
                    Thread.sleep(interval.toMillis()); // the refresh rate the operator asked for
                }
                try {
                    Frame f = frame(target);
                    failed = false;
                    print(out, target, f, clear, frame);
                } catch (LockException e) {
                    failed = true;
                    String time = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
                    String message = Failures.explain(e, target.at());
                    err.println("lockkit: " + time + " " + message);
                    if (context.json()) {
                        StringBuilder sb =
                                new StringBuilder(256).append("{\"time\":\"").append(time);
                        Render.string(sb.append("\",\"prefix\":"), context.prefix)
                                .append(',');
                        out.print(Render.errorFields(sb, LockkitCli.EXIT_BACKEND, "backend", message)
                                .append("}\n"));
                    }
                }
                out.flush();
            }
        }
        return failed ? LockkitCli.EXIT_BACKEND : LockkitCli.EXIT_OK;
    }

    /** One look at the locks: how many are held, and the first {@code limit} of them by name. */
    record Frame(Instant at, long count, List<LockInfo> shown) {}

    private Frame frame(Target target) {
        Comparator<LockInfo> byName = Comparator.comparing(LockInfo::name);
        PriorityQueue<LockInfo> first = new PriorityQueue<>(limit + 1, byName.reversed());
        long count = 0;
        Instant at = Instant.now();
        try (Stream<LockInfo> locks = target.factory().operations().locks(context.prefix)) {
            Iterator<LockInfo> it = locks.iterator();
            while (it.hasNext()) {
                LockInfo lock = it.next();
                count++;
                first.add(lock);
                if (first.size() > limit) {
                    first.poll();
                }
            }
        }
        List<LockInfo> shown = new ArrayList<>(first);
        shown.sort(byName);
        return new Frame(at, count, shown);
    }

    private void print(PrintWriter out, Target target, Frame f, boolean clear, int frame) {
        String time = f.at().truncatedTo(ChronoUnit.SECONDS).toString();
        if (context.json()) {
            StringBuilder sb = new StringBuilder(256);
            sb.append("{\"time\":\"").append(time).append("\",\"prefix\":");
            Render.string(sb, context.prefix)
                    .append(",\"count\":")
                    .append(f.count())
                    .append(",\"locks\":[");
            for (int i = 0; i < f.shown().size(); i++) {
                Render.json(sb.append(i == 0 ? "" : ","), f.shown().get(i), false);
            }
            out.print(sb.append("]}\n"));
            return;
        }
        if (clear) {
            out.print(CLEAR_SCREEN);
        } else if (frame > 0) {
            out.print("\n");
        }
        String showing = f.count() > f.shown().size() ? " (first " + f.shown().size() + " by name)" : "";
        out.print("lockkit watch  " + target.description() + "  " + time + "  every "
                + (interval.toMillis() % 1000 == 0 ? interval.toSeconds() + "s" : Render.lease(interval)) + "\n");
        out.print(ListCommand.summary(f.count(), context.prefix) + showing + "\n\n");
        Table table = new Table(out, Render.HEADERS, Render.RIGHT);
        for (LockInfo lock : f.shown()) {
            table.add(Render.cells(lock));
        }
        table.finish();
    }
}
