package io.lockkit.cli;

import io.lockkit.LockException;
import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lockkit list [PREFIX]}: every held lock whose name starts with the prefix, streamed page by
 * page from the factory's {@code locks(prefix)} as it arrives (Redis SCAN order, not sorted), so
 * the client's memory does not grow with the number of locks. Nothing is written before the first
 * page has arrived, so a Redis that cannot be reached leaves stdout to the error alone; with
 * {@code --json}, a page that fails later closes the document with the error's fields.
 */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the held locks whose names start with PREFIX.",
            "All locks when PREFIX is not given; in the order Redis's SCAN finds them, streamed. Exit code 0 also when none is held."
        })
final class ListCommand implements Callable<Integer> {

    @Mixin
    CommandContext.Prefix context = new CommandContext.Prefix();

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        int code = LockkitCli.EXIT_OK;
        try (Target target = context.connect();
                Stream<LockInfo> locks = target.factory().operations().locks(context.prefix)) {
            Iterator<LockInfo> it = locks.iterator();
            boolean any = it.hasNext(); // the first page, before anything is written
            if (context.json()) {
                code = writeJson(out, context.err(), context.prefix, it, target.at());
            } else {
                Table table = new Table(out, Render.HEADERS, Render.RIGHT);
                while (any && it.hasNext()) {
                    table.add(Render.cells(it.next()));
                }
                table.finish();
                out.print(summary(table.rows(), context.prefix) + "\n");
            }
        }
        out.flush();
        return code;
    }

    /**
     * The listing as one document; a page that fails ends it with the error's fields (exit code 3),
     * so it is still one valid document. Returns the exit code.
     */
    static int writeJson(PrintWriter out, PrintWriter err, String prefix, Iterator<LockInfo> it, String target) {
        StringBuilder sb = new StringBuilder(256);
        out.print(Render.string(sb.append("{\"prefix\":"), prefix).append(",\"locks\":["));
        long count = 0;
        try {
            while (it.hasNext()) {
                sb.setLength(0);
                if (count > 0) {
                    sb.append(',');
                }
                out.print(Render.json(sb.append('\n'), it.next(), false));
                count++;
            }
        } catch (LockException e) {
            String message = Failures.explain(e, target);
            err.println("lockkit: " + message + " (after " + count + " locks)");
            sb.setLength(0);
            sb.append("\n],\"count\":").append(count).append(',');
            out.print(Render.errorFields(sb, LockkitCli.EXIT_BACKEND, "backend", message)
                    .append("}\n"));
            return LockkitCli.EXIT_BACKEND;
        }
        out.print("\n],\"count\":" + count + "}\n");
        return LockkitCli.EXIT_OK;
    }

    static String summary(long count, String prefix) {
        String what = count == 1 ? "1 lock held" : count + " locks held";
        return prefix.isEmpty() ? what : what + " under prefix '" + Render.printable(prefix) + "'";
    }
}
