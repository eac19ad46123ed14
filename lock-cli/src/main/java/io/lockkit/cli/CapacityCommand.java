package io.lockkit.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code lockkit capacity NAME PERMITS}: sets the capacity stored with a semaphore's name, for every
 * client. Holders over a reduced capacity keep their permits until they release or lapse; no permit
 * is granted until the held ones fit.
 */
@Command(
        name = "capacity",
        mixinStandardHelpOptions = true,
        description = {
            "Sets the number of permits of the semaphore NAME, for every client.",
            "Holders over a reduced capacity keep their permits until they release them or their leases lapse;"
                    + " no permit is granted until the permits held fit the new capacity. Waiters are woken."
        })
final class CapacityCommand implements Callable<Integer> {

    @Mixin
    CommandContext.Name context = new CommandContext.Name();

    @Parameters(index = "1", paramLabel = "PERMITS", description = "the new capacity, at least 1")
    int permits;

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        try (Target target = context.connect()) {
            target.factory().operations().setCapacity(context.name, permits);
        }
        if (context.json()) {
            StringBuilder sb = new StringBuilder(128);
            Render.string(sb.append("{\"name\":"), context.name)
                    .append(",\"capacity\":")
                    .append(permits)
                    .append("}\n");
            out.print(sb);
        } else {
            out.print("capacity of '" + Render.printable(context.name) + "' set to " + permits + "\n");
        }
        out.flush();
        return LockkitCli.EXIT_OK;
    }
}
