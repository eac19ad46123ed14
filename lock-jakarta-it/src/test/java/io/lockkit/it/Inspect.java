package io.lockkit.it;

import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** What the tests look at from outside the servers: thread dumps, loaded classes, Redis clients, shared files. */
final class Inspect {

    private Inspect() {}

    /**
     * Threads of a JVM that belong to lockkit: named {@code lockkit…}, or running lockkit code
     * (a frame of {@code io.lockkit} outside the test application's own package).
     */
    static List<String> lockkitThreads(long pid) {
        String dump = Processes.jcmd(pid, "Thread.print");
        requireComplete(dump, List.of("Full thread dump"), "JNI global refs");
        return Arrays.stream(dump.split("\n\\s*\n"))
                .map(String::strip)
                .filter(block -> block.startsWith("\""))
                .filter(block -> {
                    String name = block.substring(1, block.indexOf('"', 1)).toLowerCase(Locale.ROOT);
                    boolean lockkitFrame = block.lines()
                            .anyMatch(line -> line.strip().startsWith("at io.lockkit.")
                                    && !line.strip().startsWith("at io.lockkit.it."));
                    return name.startsWith("lockkit") || lockkitFrame;
                })
                .map(block -> block.lines().findFirst().orElse(""))
                .collect(Collectors.toList());
    }

    /** How many class loaders of a JVM hold a class of this name, after two full GCs (jcmd GC.run). */
    static int loadedCopies(long pid, String className) {
        Processes.jcmd(pid, "GC.run");
        Processes.jcmd(pid, "GC.run");
        String hierarchy = Processes.jcmd(pid, "VM.class_hierarchy");
        requireComplete(
                hierarchy, List.of("java.lang.Object/null", "java.lang.Thread/null", "java.lang.ClassLoader/null"), "");
        Matcher matcher = Pattern.compile("(?m)^[|\\s-]*" + Pattern.quote(className) + "/")
                .matcher(hierarchy);
        int copies = 0;
        while (matcher.find()) {
            copies++;
        }
        return copies;
    }

    /**
     * {@link #loadedCopies} until it is at most {@code bound}, for up to 20 seconds: a class loader
     * that is already unreachable can outlive a GC or two (a server's soft caches, a cleaner not yet
     * run), a leaked one does not go away. Returns the last count.
     */
    static int loadedCopiesSettling(long pid, String className, int bound) {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        int copies = loadedCopies(pid, className);
        while (copies > bound && System.nanoTime() < deadline) {
            Processes.jcmd(pid, "GC.run");
            copies = loadedCopies(pid, className);
        }
        return copies;
    }

    /**
     * Fails unless {@code output} holds each of {@code parts} and its last line holds {@code last}:
     * an empty or cut-off output would make the "nothing left" checks pass without looking.
     */
    private static void requireComplete(String output, List<String> parts, String last) {
        List<String> lines = output.strip().lines().toList();
        if (!parts.stream().allMatch(output::contains)
                || lines.isEmpty()
                || !lines.get(lines.size() - 1).contains(last)) {
            throw new IllegalStateException("incomplete jcmd output (" + output.length() + " chars), ending: "
                    + output.substring(Math.max(0, output.length() - 300)));
        }
    }

    /** The first {@code limit} rows of the JVM's class histogram (taken after a full GC) of classes named with one of {@code prefixes}. */
    static List<String> liveObjects(long pid, int limit, String... prefixes) {
        String histogram = Processes.jcmd(pid, "GC.class_histogram");
        return histogram
                .lines()
                .filter(line -> Arrays.stream(prefixes).anyMatch(prefix -> line.contains(" " + prefix)))
                .map(line -> line.strip().replaceAll("\\s+", " "))
                .limit(limit)
                .collect(Collectors.toList());
    }

    /** The Redis clients connected under {@code name} ({@code CLIENT LIST} lines). */
    static List<String> redisClients(RedisServer redis, String name) {
        Object reply = redis.command("CLIENT", "LIST");
        String text = reply instanceof byte[] bytes
                ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
                : String.valueOf(reply);
        return text.lines().filter(line -> line.contains(" name=" + name + " ")).collect(Collectors.toList());
    }

    /** The lines of a log in the shared directory that mention {@code what}. */
    static List<String> sharedLog(Path shared, String log, String what) {
        Path file = shared.resolve(log + ".log");
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            return Files.readAllLines(file).stream()
                    .filter(line -> line.contains(what))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
