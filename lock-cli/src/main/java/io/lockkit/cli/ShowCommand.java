package io.lockkit.cli;

import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code lockkit show NAME}: one lock's holder, hold count, token, lease left and waiters. */
@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = {
            "Shows who holds the lock NAME.",
            "Holder, client, hold count, fencing token, lease left and waiters. Exit code 1 when it is not held."
        })
final class ShowCommand implements Callable<Integer> {

    @Mixin
    CommandContext.Name context = new CommandContext.Name();

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        Optional<LockInfo> lock;
        try (Target target = context.connect()) {
            lock = target.factory().operations().inspect(context.name);
        }
        if (context.json()) {
            StringBuilder sb = new StringBuilder(256);
            if (lock.isPresent()) {
                Render.json(sb, lock.get(), true);
            } else {
                Render.string(sb.append("{\"name\":"), context.name).append(",\"held\":false}");
            }
            out.print(sb.append('\n'));
        } else if (lock.isPresent()) {
            describe(out, lock.get());
        } else {
            context.err().println("lock '" + Render.printable(context.name) + "' is not held");
        }
        out.flush();
        return lock.isPresent() ? LockkitCli.EXIT_OK : LockkitCli.EXIT_NOT_HELD;
    }

    static void describe(PrintWriter out, LockInfo lock) {
        String[] cells = Render.cells(lock);
        String[] labels = {"name", "holder", "client", "hold count", "fencing token", "lease left", "waiters"};
        StringBuilder sb = new StringBuilder(256);
        for (int i = 0; i < labels.length; i++) {
            if (cells[i].isEmpty()) {
                continue; // a shared name's client and count: per holder, below
            }
            sb.append(labels[i])
                    .append(':')
                    .append(" ".repeat(15 - labels[i].length()))
                    .append(cells[i])
                    .append('\n');
        }
        for (LockInfo.Holder h : lock.shared() ? lock.holders() : java.util.List.<LockInfo.Holder>of()) {
            sb.append("  holder ")
                    .append(Render.printable(h.owner()))
                    .append(": ")
                    .append(h.permits())
                    .append(h.permits() == 1 ? " permit" : " permits")
                    .append(", hold count ")
                    .append(h.holdCount())
                    .append('\n');
        }
        out.print(sb);
    }
}
