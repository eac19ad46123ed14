package io.lockkit.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Processes the tests start, and the JDK tools they run against them. Every process started here is
 * remembered, and a shutdown hook stops the ones still alive, by pid, when the test JVM exits
 * (also after a failure or an interrupted build).
 */
final class Processes {

    private static final Set<ProcessHandle> STARTED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> STARTED.forEach(Processes::stopTree), "lockkit-it-process-reaper"));
    }

    private Processes() {}

    /** Starts {@code command} in {@code dir} with stdout and stderr appended to {@code log}. */
    static Process start(List<String> command, Path dir, Path log, java.util.Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(env);
        try {
            Files.writeString(
                    log,
                    "$ " + String.join(" ", command) + "\n",
                    StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            Process process = builder.start();
            STARTED.add(process.toHandle());
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Stops a process and its descendants: SIGTERM, then SIGKILL after 30 s. */
    static void stopTree(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>();
        root.descendants().forEach(all::add);
        all.add(root);
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle handle : all) {
            try {
                handle.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
            }
        }
        STARTED.remove(root);
    }

    /**
     * Runs a diagnostic command ({@code GC.run}, {@code Thread.print}, ...) in the JVM {@code pid}
     * and returns its output, as {@code jcmd pid command} prints it. Through the attach API in this
     * JVM where the build exports {@code jdk.attach/sun.tools.attach} to the tests (failsafe's
     * argLine): a command then takes milliseconds, where a {@code jcmd} process takes one to three
     * seconds of a loaded two-core machine to start, and the class-loader checks run about twenty
     * commands per server. Elsewhere (an IDE run without that export) it runs {@code jcmd}.
     */
    static String jcmd(long pid, String command) {
        java.lang.reflect.Method execute = ATTACHED_JCMD;
        if (execute == null) {
            List<String> args = new ArrayList<>(List.of(Long.toString(pid)));
            args.addAll(List.of(command.split(" ")));
            return jdkTool("jcmd", args.toArray(String[]::new));
        }
        try {
            com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
            java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
            try (java.io.InputStream in = (java.io.InputStream) execute.invoke(vm, command)) {
                // Read as jcmd does, until the end: readAllBytes() stopped after 4,096 bytes on JDK 17.
                byte[] buffer = new byte[256];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    output.write(buffer, 0, n);
                }
            } finally {
                vm.detach();
            }
            return output.toString(StandardCharsets.UTF_8);
        } catch (com.sun.tools.attach.AttachNotSupportedException | IOException | ReflectiveOperationException e) {
            throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + e, e);
        }
    }

    /** HotSpotVirtualMachine.executeJCmd, where this JVM may call it; else null. */
    private static final java.lang.reflect.@org.jspecify.annotations.Nullable Method ATTACHED_JCMD = attachedJcmd();

    private static java.lang.reflect.@org.jspecify.annotations.Nullable Method attachedJcmd() {
        try {
            Class<?> hotSpot = Class.forName("sun.tools.attach.HotSpotVirtualMachine");
            if (!hotSpot.getModule().isExported("sun.tools.attach", Processes.class.getModule())) {
                return null;
            }
            return hotSpot.getMethod("executeJCmd", String.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Runs a JDK tool ({@code jcmd}, ...) to completion and returns its output. */
    static String jdkTool(String tool, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Settings.javaHome().resolve("bin").resolve(tool).toString());
        command.addAll(List.of(args));
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish");
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Unpacks a zip into {@code target} once (a marker file records that it is complete). */
    static void unzipOnce(Path zip, Path target) {
        Path done = target.resolve(".unpacked");
        if (Files.exists(done)) {
            return;
        }
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IllegalStateException("zip entry outside the target: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(in, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.writeString(done, zip.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + zip, e);
        }
    }

    /** Copies a directory tree. */
    static void copyTree(Path from, Path to) {
        try (var paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory tree if it exists. */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Duration elapsedSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
