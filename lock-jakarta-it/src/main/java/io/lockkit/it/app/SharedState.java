package io.lockkit.it.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * State on disk that every server instance of a test run shares, as separate application instances
 * share a database: counters, "inside" markers that reveal overlapping critical sections, and an
 * event log. The directory is the system property {@code itapp.shared-dir} (outside the {@code lockkit.}
 * namespace, whose unknown keys lockkit warns about).
 *
 * <p>Thread-safe only in the sense the tests need: concurrent unsynchronised counter updates lose
 * increments (that is the point), marker creation is atomic.
 */
// Design notes.
// - A marker file created with CREATE_NEW is an atomic test-and-set across processes: a second
//   caller that finds it present was inside the same section at the same time, and counts an overlap.
// - Counter writes go through a temporary file and an atomic move, so a reader sees the old or the new
//   value, never a torn one: a lost update comes only from the read-pause-write race itself.
public final class SharedState {

    /** Differs for every deployment of the application (a new class loader initialises it anew). */
    public static final String DEPLOYMENT =
            java.util.UUID.randomUUID().toString().substring(0, 8);

    private SharedState() {}

    static Path dir() {
        String dir = System.getProperty("itapp.shared-dir");
        if (dir == null) {
            throw new IllegalStateException("system property itapp.shared-dir is not set");
        }
        return Path.of(dir);
    }

    static String instance() {
        return System.getProperty("itapp.instance", "?");
    }

    private static Path file(String kind, String name) {
        if (!name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("name must be [A-Za-z0-9_.-]+: " + name);
        }
        return dir().resolve(kind + "-" + name);
    }

    /** The counter's value, 0 when it was never written. */
    public static int read(String counter) {
        try {
            return Integer.parseInt(Files.readString(file("counter", counter)).trim());
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the counter's value atomically. */
    public static void write(String counter, int value) {
        Path target = file("counter", counter);
        try {
            Path tmp = Files.createTempFile(dir(), "tmp-", ".tmp");
            Files.writeString(tmp, Integer.toString(value));
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Marks the caller inside {@code section}; records an overlap when someone else already is. */
    public static void enter(String section) {
        try {
            Files.createFile(file("inside", section));
        } catch (FileAlreadyExistsException e) {
            append("overlaps", instance() + " entered " + section + " while it was occupied");
            // Mark it anyway so the exit of either occupant is balanced.
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        event(section, "enter");
    }

    /** Marks the caller outside {@code section}. */
    public static void exit(String section) {
        event(section, "exit");
        try {
            Files.deleteIfExists(file("inside", section));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The timers' period, in milliseconds. */
    static final long PERIOD_MILLIS = 2000;

    /**
     * The period {@code epochMillis} belongs to: the nearest boundary of a {@link #PERIOD_MILLIS} period
     * (as lock-cdi's {@code {period:PT2S}} names it), so a timer that fires a little early or late
     * records the same period on every instance.
     */
    static long period(long epochMillis) {
        return Math.floorDiv(epochMillis + PERIOD_MILLIS / 2, PERIOD_MILLIS) * PERIOD_MILLIS;
    }

    /**
     * Records a run of a scheduled job ({@code kind}: locked, unlocked or leader) for the period
     * {@code period}, then the wall-clock time and {@code detail}.
     */
    public static void tick(String kind, long period, String detail) {
        append("ticks", instance() + " " + kind + " " + period + " " + System.currentTimeMillis() + " " + detail);
    }

    /** Records the start ({@code granted}) or end ({@code revoked}) of this instance's term {@code token}. */
    public static void term(String what, long token, String reason) {
        append("terms", instance() + " " + what + " " + token + " " + System.currentTimeMillis() + " " + reason);
    }

    /** Appends an event line (instance, section, what, wall-clock millis) to the shared event log. */
    public static void event(String section, String what) {
        append(
                "events",
                instance() + " " + section + " " + what + " " + System.currentTimeMillis() + " "
                        + Thread.currentThread().getName());
    }

    private static synchronized void append(String log, String line) {
        try {
            Files.writeString(
                    dir().resolve(log + ".log"),
                    line + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sleeps without treating an interrupt as the end of the pause (the interrupt flag is kept). */
    static void pause(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        boolean interrupted = false;
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                Thread.sleep(Math.max(1, left / 1_000_000L));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
