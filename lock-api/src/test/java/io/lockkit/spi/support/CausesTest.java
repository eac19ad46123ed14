package io.lockkit.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Causes.describe puts a failure's root cause into its message")
class CausesTest {

    @Test
    @DisplayName("a driver's vague message gets the unresolved host from its cause, with the cause's class")
    void unknownHostFromTheCause() {
        RuntimeException inner =
                new IllegalStateException("Failed to create socket.", new UnknownHostException("redis"));
        RuntimeException outer = new IllegalStateException("Failed to create socket.", inner);
        assertThat(Causes.describe(outer)).isEqualTo("Failed to create socket (UnknownHostException: redis)");
    }

    @Test
    @DisplayName("suppressed exceptions count as causes, each said once (a refused connect per address)")
    void suppressedConnectFailures() {
        RuntimeException e = new IllegalStateException("Failed to connect to localhost:6379.");
        e.addSuppressed(new ConnectException("Connection refused"));
        e.addSuppressed(new ConnectException("Connection refused"));
        assertThat(Causes.describe(e))
                .isEqualTo("Failed to connect to localhost:6379 (ConnectException: Connection refused)");
    }

    @Test
    @DisplayName("the causes of a suppressed exception count too (a cluster's seed node that did not resolve)")
    void causesOfSuppressed() {
        RuntimeException e = new IllegalStateException("Could not initialize cluster slots cache.");
        e.addSuppressed(new IllegalStateException("Failed to create socket.", new UnknownHostException("node-1")));
        assertThat(Causes.describe(e))
                .isEqualTo("Could not initialize cluster slots cache (IllegalStateException: Failed to create socket;"
                        + " UnknownHostException: node-1)");
    }

    @Test
    @DisplayName("a cause whose words the message already carries adds nothing")
    void nothingTwice() {
        SQLException refused = new SQLException(
                "Socket fail to connect to 127.0.0.1:1. Connection refused",
                new ConnectException("Connection refused"));
        assertThat(Causes.describe(refused)).isEqualTo("Socket fail to connect to 127.0.0.1:1. Connection refused");
        RuntimeException wrapped = new IllegalStateException(
                "java.net.SocketTimeoutException: Read timed out", new SocketTimeoutException("Read timed out"));
        assertThat(Causes.describe(wrapped)).isEqualTo("java.net.SocketTimeoutException: Read timed out");
    }

    @Test
    @DisplayName("a one-word cause is shown with its class even when the message repeats the word")
    void oneWordCauseKeepsItsClass() {
        SQLException e = new SQLException(
                "Socket fail to connect to db.invalid. db.invalid", new UnknownHostException("db.invalid"));
        assertThat(Causes.describe(e))
                .isEqualTo("Socket fail to connect to db.invalid. db.invalid (UnknownHostException: db.invalid)");
    }

    @Test
    @DisplayName("describing a described message adds nothing again")
    void idempotent() {
        RuntimeException driver =
                new IllegalStateException("Failed to create socket.", new UnknownHostException("redis"));
        RuntimeException ours =
                new IllegalStateException("Redis could not be reached: " + Causes.describe(driver), driver);
        assertThat(Causes.describe(ours)).isEqualTo(ours.getMessage());
    }

    @Test
    @DisplayName("no message: the class name; a cause without a message: its class; at most three causes")
    void edges() {
        assertThat(Causes.describe(new IllegalStateException())).isEqualTo("java.lang.IllegalStateException");
        assertThat(Causes.describe(new IllegalStateException("failed", new SocketTimeoutException())))
                .isEqualTo("failed (SocketTimeoutException)");
        RuntimeException many = new IllegalStateException("failed");
        for (int i = 1; i <= 5; i++) {
            many.addSuppressed(new ConnectException("attempt " + i + " refused"));
        }
        assertThat(Causes.describe(many))
                .isEqualTo("failed (ConnectException: attempt 1 refused; ConnectException: attempt 2 refused;"
                        + " ConnectException: attempt 3 refused)");
    }

    @Test
    @DisplayName("a cause's message is shown on one line and cut at 200 characters")
    void causesStayOnOneLine() {
        RuntimeException e = new IllegalStateException(
                "failed", new IllegalStateException("first line\n  second line\r\nthird " + "x".repeat(300)));
        String described = Causes.describe(e);
        assertThat(described)
                .startsWith("failed (IllegalStateException: first line second line third xxx")
                .doesNotContain("\n")
                .doesNotContain("\r")
                .endsWith("…)");
        assertThat(described.length()).isLessThan(260);
    }

    @Test
    @DisplayName("a cause chain with a cycle ends")
    void cycle() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalStateException b = new IllegalStateException("b b", a);
        a.initCause(b);
        assertThat(Causes.describe(a)).isEqualTo("a (IllegalStateException: b b)");
    }
}
