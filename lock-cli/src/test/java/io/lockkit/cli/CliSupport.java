package io.lockkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/** Running the CLI in-process, holders in other JVMs, and strict JSON parsing, for the CLI tests. */
final class CliSupport {

    private CliSupport() {}

    /** What one run of the CLI left behind. */
    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs the CLI with the given environment and console, capturing its output. */
    static Result run(LockkitCli.Environment environment, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = LockkitCli.execute(args, new PrintWriter(out), new PrintWriter(err), environment);
        return new Result(code, out.toString(), err.toString());
    }

    /** Runs the CLI with no environment variables and no console. */
    static Result run(String... args) {
        return run(LockkitCli.Environment.of(Map.of(), null), args);
    }

    /** A fresh lock name prefix, so tests sharing one Redis do not see each other's locks. */
    static String uniquePrefix() {
        return "t" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + ":";
    }

    /** Parses {@code text} as exactly one strict JSON document (RFC 8259; nothing after it). */
    static JsonElement json(String text) {
        try (JsonReader reader = new JsonReader(new StringReader(text))) {
            reader.setStrictness(Strictness.STRICT);
            JsonElement element = new Gson().getAdapter(JsonElement.class).read(reader);
            assertThat(reader.peek())
                    .as("nothing after the JSON document in %s", text)
                    .isEqualTo(JsonToken.END_DOCUMENT);
            return element;
        } catch (IOException e) {
            throw new UncheckedIOException("not strict JSON: " + text, e);
        }
    }

    /**
     * A {@link HolderMain} in a JVM of its own on this test's class path, holding {@code names}; its
     * output lines are collected. Destroy it (by its handle) when done.
     */
    static final class RemoteHolder implements AutoCloseable {
        private final Process process;
        /** HolderMain's default lease. */
        private static final long LEASE_SECONDS = 1;

        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        RemoteHolder(String uri, List<String> names) throws IOException {
            this(uri, names, LEASE_SECONDS);
        }

        /** A holder whose watchdog lease is {@code leaseSeconds} (renewed every third of it). */
        RemoteHolder(String uri, List<String> names, long leaseSeconds) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    javaBinary().toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    "-Xmx64m",
                    "-XX:TieredStopAtLevel=1",
                    "-Dholder.leaseSeconds=" + leaseSeconds,
                    HolderMain.class.getName(),
                    uri));
            command.addAll(names);
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Thread reader = new Thread(
                    () -> {
                        try (BufferedReader r = new BufferedReader(
                                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                            for (String line = r.readLine(); line != null; line = r.readLine()) {
                                lines.add(line);
                            }
                        } catch (IOException e) {
                            lines.add("(output closed: " + e + ")");
                        }
                    },
                    "holder-output-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits until the holder has taken its locks; fails with its output when it died instead. */
        RemoteHolder awaitReady() {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                if (!process.isAlive() && !contains("READY")) {
                    throw new AssertionError("the holder JVM exited with " + process.exitValue() + ": " + lines);
                }
                return contains("READY");
            });
            return this;
        }

        boolean contains(String line) {
            synchronized (lines) {
                return lines.stream().anyMatch(l -> l.startsWith(line));
            }
        }

        long pid() {
            return process.pid();
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }

        @Override
        public String toString() {
            return "holder JVM " + process.pid() + " " + lines;
        }

        private static Path javaBinary() {
            return Paths.get(System.getProperty("java.home"), "bin", "java");
        }
    }

    /** A console that answers {@code answer} and remembers the question. */
    static final class ScriptedConsole implements LockkitCli.Prompt {
        private final @Nullable String answer;
        volatile @Nullable String question;

        ScriptedConsole(@Nullable String answer) {
            this.answer = answer;
        }

        @Override
        public @Nullable String ask(String q) {
            this.question = q;
            return answer;
        }
    }
}
