package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The factory's client id: by default it names the host and the process, differs per factory, and
 * fits what backends store; it can be set, bad values are refused, it is logged at start and shown
 * by {@code inspect} and {@code locks()}.
 */
@DisplayName("client ids")
class ClientIdTest {

    private final List<DistributedLockFactory> factories = new ArrayList<>();
    private LogCapture log;

    @BeforeEach
    void listen() {
        log = new LogCapture(ProviderLockFactory.class);
    }

    @AfterEach
    void stopListening() {
        factories.forEach(DistributedLockFactory::close);
        log.close();
    }

    private DistributedLockFactory factory(DistributedLockFactory.Builder builder) {
        DistributedLockFactory f = builder.build();
        factories.add(f);
        return f;
    }

    private DistributedLockFactory factory() {
        return factory(DistributedLockFactory.builder(new LocalLockProvider()));
    }

    @Test
    @DisplayName("by default it is <host>/<pid>/<suffix>: this machine's name and this process's id")
    void defaultNamesTheHostAndTheProcess() throws IOException {
        String id = factory().clientId();
        String host = ClientIds.host();
        assertThat(id)
                .startsWith(
                        ClientIds.sanitize(host) + "/" + ProcessHandle.current().pid() + "/")
                .matches("[A-Za-z0-9._@+-]+/[0-9]+/[0-9a-z]{6}")
                .hasSizeLessThanOrEqualTo(ClientIds.MAX_LENGTH);
        // The host is this machine's name by one of the accounts the JVM can give.
        Set<String> names = new HashSet<>();
        Stream.of(System.getenv("HOSTNAME"), System.getenv("COMPUTERNAME"))
                .filter(n -> n != null && !n.isBlank())
                .forEach(n -> names.add(n.strip()));
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(kernel)) {
            names.add(Files.readString(kernel, StandardCharsets.US_ASCII).strip());
        }
        names.add(InetAddress.getLocalHost().getHostName());
        assertThat(names).contains(host);
    }

    @Test
    @DisplayName("factories of one JVM get different ids")
    void factoriesOfOneJvmDiffer() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            ids.add(factory().clientId());
        }
        assertThat(ids).hasSize(50);
    }

    @Test
    @DisplayName("a long or odd host name is cut and cleaned to fit, keeping pid and suffix")
    void longHostNamesAreCutToFit() {
        String longest = ClientIds.compose("h".repeat(253), "4194304", "k3x9q0");
        assertThat(longest).hasSize(ClientIds.MAX_LENGTH).endsWith("/4194304/k3x9q0");
        assertThat(ClientIds.check(longest)).isEqualTo(longest);
        String maxPid = Long.toString(Long.MAX_VALUE);
        assertThat(ClientIds.compose("h".repeat(253), maxPid, "k3x9q0"))
                .hasSize(ClientIds.MAX_LENGTH)
                .endsWith("/" + maxPid + "/k3x9q0");
        assertThat(ClientIds.compose("web 1:prod~x/y", "7", "000001")).isEqualTo("web-1-prod-x-y/7/000001");
        assertThat(ClientIds.compose("  ", "7", "000001")).isEqualTo("unknown-host/7/000001");
        assertThat(ClientIds.compose("höst", "7", "000001")).isEqualTo("h-st/7/000001");
        // The longest owner id (a thread's, with the largest thread id) fits the JDBC lock table's
        // owner VARCHAR(200) (lock-jdbc tests it against the tables themselves).
        assertThat((longest + ":t" + Long.MAX_VALUE).length()).isLessThanOrEqualTo(200);
    }

    @Test
    @DisplayName("an id set on the builder is the factory's, and owners are made of it")
    void idCanBeSet() throws Exception {
        DistributedLockFactory f =
                factory(DistributedLockFactory.builder(new LocalLockProvider()).clientId("orders-7d9f8c-x2k4p.1"));
        assertThat(f.clientId()).isEqualTo("orders-7d9f8c-x2k4p.1");
        try (LockHandle h = f.acquire("set-id")) {
            LockInfo info = f.operations().inspect("set-id").orElseThrow();
            assertThat(info.clientId()).isEqualTo("orders-7d9f8c-x2k4p.1");
            assertThat(info.owner()).isEqualTo("orders-7d9f8c-x2k4p.1:h1");
        }
    }

    @Test
    @DisplayName("bad ids are refused at the setter, naming the argument")
    void badIdsAreRefused() {
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(new LocalLockProvider());
        for (String bad : new String[] {"", "a b", "a:b", "~o", "tab\there", "é", "x".repeat(65)}) {
            assertThatThrownBy(() -> b.clientId(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("clientId ");
        }
        assertThatThrownBy(() -> b.clientId(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientId must not be null");
        assertThat(b.clientId("x".repeat(64)).build().clientId()).isEqualTo("x".repeat(64));
    }

    @Test
    @DisplayName("the factory logs its client id once at start, at INFO")
    void idIsLoggedOnceAtStart() throws Exception {
        DistributedLockFactory f = factory();
        try (LockHandle h = f.acquire("logged")) {
            f.operations().inspect("logged");
        }
        List<LogRecord> naming = log.records().stream()
                .filter(r ->
                        r.getParameters() != null && List.of(r.getParameters()).contains(f.clientId()))
                .toList();
        assertThat(naming).hasSize(1);
        assertThat(naming.get(0).getLevel()).isEqualTo(Level.INFO);
        assertThat(java.text.MessageFormat.format(
                        naming.get(0).getMessage(), naming.get(0).getParameters()))
                .contains("client " + f.clientId(), "LocalLockProvider");
    }

    @Test
    @DisplayName(
            "inspect and locks() show the holder's client id: this factory's for its holds, the other's for another's")
    void inspectAndListingShowTheClientId() throws Exception {
        LocalLockProvider backend = new LocalLockProvider();
        DistributedLockFactory mine = factory(DistributedLockFactory.builder(backend));
        DistributedLockFactory theirs = factory(DistributedLockFactory.builder(backend.newClient()));
        try (LockHandle a = mine.acquire("cid:a");
                LockHandle b = theirs.acquire("cid:b")) {
            assertThat(mine.operations().inspect("cid:a").orElseThrow().clientId())
                    .isEqualTo(mine.clientId());
            assertThat(mine.operations().inspect("cid:b").orElseThrow().clientId())
                    .isEqualTo(theirs.clientId());
            try (Stream<LockInfo> listed = mine.operations().locks("cid:")) {
                assertThat(listed.map(i -> i.name() + "=" + i.clientId()))
                        .containsExactlyInAnyOrder("cid:a=" + mine.clientId(), "cid:b=" + theirs.clientId());
            }
        }
    }
}
