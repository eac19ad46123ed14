package io.lockkit.cli;

import io.lockkit.LockInfo;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lockkit release NAME --force [--yes]}: frees a lock whoever holds it, after asking on the
 * console (or not, with {@code --yes}). The holder is not interrupted: its factory learns of the
 * loss at its next renewal and reports it (loss listener, {@code LockHandle.lost()}).
 */
@Command(
        name = "release",
        mixinStandardHelpOptions = true,
        description = {
            "Frees the lock NAME, whoever holds it.",
            "Its holder learns of the loss at its next renewal. Asks \"Release NAME held by HOLDER? [y/N]\" on the console"
                    + " unless --yes is given; without a console and without --yes it refuses (exit code 4). Exit code 1 when the"
                    + " lock is not held."
        })
final class ReleaseCommand implements Callable<Integer> {

    @Mixin
    CommandContext.Name context = new CommandContext.Name();

    @Option(
            names = "--force",
            required = true,
            description = "required: the lock is taken from a holder that may still be working under it")
    boolean force;

    @Option(
            names = {"-y", "--yes"},
            description = "release without asking")
    boolean yes;

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        PrintWriter err = context.err();
        String shown = Render.printable(context.name);
        try (Target target = context.connect()) {
            Optional<LockInfo> held = target.factory().operations().inspect(context.name);
            if (held.isEmpty()) {
                err.println("lock '" + shown + "' is not held; nothing released");
                return json(out, false, null, LockkitCli.EXIT_NOT_HELD);
            }
            LockInfo lock = held.get();
            String holder =
                    Render.printable(Render.holder(lock)) + " (client " + Render.printable(lock.clientId()) + ")";
            if (!yes) {
                LockkitCli.Prompt console = context.environment().console();
                if (console == null) {
                    err.println("lockkit: not releasing '" + shown + "' held by " + holder
                            + ": there is no console to confirm on; add --yes to release without asking");
                    return json(out, false, lock, LockkitCli.EXIT_REFUSED);
                }
                String answer = console.ask("Release " + shown + " held by " + holder + "? [y/N] ");
                String a = answer == null ? "" : answer.trim().toLowerCase(Locale.ROOT);
                if (!a.equals("y") && !a.equals("yes")) {
                    err.println("not released");
                    return json(out, false, lock, LockkitCli.EXIT_REFUSED);
                }
            }
            if (!target.factory().operations().forceRelease(context.name)) {
                err.println("lock '" + shown + "' was freed before the release; nothing released");
                return json(out, false, null, LockkitCli.EXIT_NOT_HELD);
            }
            if (!context.json()) {
                out.print("released '" + shown + "', held by " + holder
                        + "; the holder learns of the loss at its next renewal\n");
            }
            return json(out, true, lock, LockkitCli.EXIT_OK);
        } finally {
            out.flush();
        }
    }

    /** With --json: {"name":…,"released":…,"holder":{lock as it was}|null}; returns {@code code}. */
    private int json(PrintWriter out, boolean released, @org.jspecify.annotations.Nullable LockInfo was, int code) {
        if (context.json()) {
            StringBuilder sb = new StringBuilder(256);
            Render.string(sb.append("{\"name\":"), context.name)
                    .append(",\"released\":")
                    .append(released)
                    .append(",\"holder\":");
            if (was == null) {
                sb.append("null");
            } else {
                Render.json(sb, was, false);
            }
            out.print(sb.append("}\n"));
        }
        return code;
    }
}
