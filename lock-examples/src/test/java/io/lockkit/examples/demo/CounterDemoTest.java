package io.lockkit.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Runs the demo's coordinator in-process with small numbers; the workers are real JVMs. */
class CounterDemoTest {

    private static final String[] SMALL = {"--workers=2", "--threads=2", "--increments=20"};

    @Test
    @DisplayName("worker JVMs incrementing under the lock lose no update, and the demo exits 0")
    void incrementsUnderTheLockAreAllFound() {
        Run run = run(SMALL);

        assertThat(run.status).as(run.output).isEqualTo(CounterDemo.EXIT_OK);
        assertThat(run.output)
                .contains(
                        "increments expected: 80",
                        "increments found:    80",
                        "lost updates:        0",
                        "acquisitions:        80 in ",
                        "wait for the lock:   p50 ",
                        "fencing tokens:      first ",
                        "token order:         increasing in each worker; unique and in write order across workers",
                        "workers:             2 of 2 exited with status 0",
                        "OK: no lost updates");
        assertNoProcessLeft();
    }

    @Test
    @DisplayName(
            "with --backend jdbc (embedded PostgreSQL) worker JVMs incrementing a row under the lock lose no update")
    void incrementsUnderAJdbcLockAreAllFound() {
        Run run = run("--backend", "jdbc", SMALL[0], SMALL[1], SMALL[2]);

        assertThat(run.status).as(run.output).isEqualTo(CounterDemo.EXIT_OK);
        assertThat(run.output)
                .contains(
                        "postgresql ",
                        "each increment: SELECT, pause 1 ms, UPDATE, holding lock",
                        "increments expected: 80",
                        "increments found:    80",
                        "lost updates:        0",
                        "token order:         increasing in each worker; unique and in write order across workers",
                        "workers:             2 of 2 exited with status 0",
                        "OK: no lost updates");
        assertNoProcessLeft();
    }

    @Test
    @DisplayName("without the lock the same increments lose updates, and the demo reports them and exits 1")
    void lostUpdatesWithoutTheLockAreReported() {
        Run run = run(SMALL[0], SMALL[1], SMALL[2], "--no-lock");

        assertThat(run.status).as(run.output).isEqualTo(CounterDemo.EXIT_LOST_UPDATES);
        assertThat(run.output)
                .contains("increments expected: 80", "WITHOUT the lock", "FAILED: ")
                .doesNotContain("lost updates:        0\n");
        assertNoProcessLeft();
    }

    @Test
    @DisplayName("a bad argument is named, the usage printed, and the demo exits 2 without starting anything")
    void badArgumentsPrintTheUsage() {
        Run run = run("--workers=0");

        assertThat(run.status).isEqualTo(CounterDemo.EXIT_USAGE);
        assertThat(run.output).contains("workers must be between 1 and 64, was 0", "Usage: CounterDemo", "--no-lock");
    }

    private static void assertNoProcessLeft() {
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive))
                .as("processes left behind by the demo")
                .isEmpty();
    }

    private static Run run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            status = CounterDemo.run(args, out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        return new Run(status, output);
    }

    private static final class Run {
        final int status;
        final String output;

        Run(int status, String output) {
            this.status = status;
            this.output = output;
        }
    }
}
