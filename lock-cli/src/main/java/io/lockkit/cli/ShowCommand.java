package io.lockkit.cli;

import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code lockkit show NAME}: one lock's holder, hold count, token, lease left and waiters. */
@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = {
            "Shows who holds the lock NAME.",
            "Holder, client, hold count, fencing token, lease left and waiters. Exit code 1 when it is not held."
        })
final class ShowCommand implements Callable<Integer> {

    @ParentCommand
    @SuppressWarnings("NullAway.Init") // set by picocli before call()
    LockkitCli cli;

    @Spec
    @SuppressWarnings("NullAway.Init")
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name")
    @SuppressWarnings("NullAway.Init")
    String name;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LockInfo> lock;
        try (Target target = cli.connect()) {
            lock = target.factory().inspect(name);
        }
        if (cli.json) {
            StringBuilder sb = new StringBuilder(256);
            if (lock.isPresent()) {
                Render.json(sb, lock.get(), true);
            } else {
                Render.string(sb.append("{\"name\":"), name).append(",\"held\":false}");
            }
            out.print(sb.append('\n'));
        } else if (lock.isPresent()) {
            describe(out, lock.get());
        } else {
            spec.commandLine().getErr().println("lock '" + Render.printable(name) + "' is not held");
        }
        out.flush();
        return lock.isPresent() ? LockkitCli.EXIT_OK : LockkitCli.EXIT_NOT_HELD;
    }

    static void describe(PrintWriter out, LockInfo lock) {
        String[] cells = Render.cells(lock);
        String[] labels = {"name", "holder", "client", "hold count", "fencing token", "lease left", "waiters"};
        StringBuilder sb = new StringBuilder(256);
        for (int i = 0; i < labels.length; i++) {
            sb.append(labels[i])
                    .append(':')
                    .append(" ".repeat(15 - labels[i].length()))
                    .append(cells[i])
                    .append('\n');
        }
        out.print(sb);
    }
}
