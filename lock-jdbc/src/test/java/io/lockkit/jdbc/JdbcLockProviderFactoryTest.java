package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ForwardingLockProvider;
import io.lockkit.spi.support.ProviderFactories;
import io.lockkit.testkit.LockProviderFactoryContract;
import io.lockkit.testkit.jdbc.PostgresExtension;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

@DisplayName("JdbcLockProviderFactory: the jdbc provider from lockkit.jdbc.* keys (real PostgreSQL and H2)")
class JdbcLockProviderFactoryTest extends LockProviderFactoryContract {

    private static final LockProviderFactory FACTORY =
            ProviderFactories.named("jdbc", JdbcLockProviderFactoryTest.class.getClassLoader());

    @RegisterExtension
    static final PostgresExtension PG = new PostgresExtension();

    private PostgresServer pg;

    @BeforeEach
    void server() {
        pg = PG.server();
    }

    private static ProviderSettings settings(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return ProviderSettings.of(values, ORIGIN);
    }

    /** Takes and releases {@code name} on {@code provider}, closes it, and returns the token it got. */
    private static long lockOnce(LockProvider provider, String name) throws InterruptedException {
        try (DistributedLockFactory locks = DistributedLockFactory.create(provider);
                LockHandle hold = locks.acquire(name, LockOptions.noWait())) {
            assertThat(hold.isValid()).isTrue();
            return hold.fencingToken();
        }
    }

    /** An environment with named DataSources and a default one, recording which providers it was asked to wrap. */
    private static class Container implements ProviderEnvironment {
        final Map<String, DataSource> named = new HashMap<>();
        DataSource byDefault;
        final List<LockProvider> wrapped = new CopyOnWriteArrayList<>();

        @Override
        public <T> Optional<T> resource(Class<T> type, String name) {
            DataSource found = named.get(name);
            if (found == null) {
                throw new IllegalStateException("no resource is named " + name);
            }
            return Optional.of(type.cast(found));
        }

        @Override
        public <T> Optional<T> defaultInstance(Class<T> type) {
            return Optional.ofNullable(byDefault).map(type::cast);
        }

        @Override
        public LockProvider outsideTransactions(LockProvider provider) {
            wrapped.add(provider);
            return new ForwardingLockProvider(provider) {};
        }
    }

    private static DataSource postgresDataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(PG.server().jdbcUrl());
        return dataSource;
    }

    private static DataSource h2DataSource(String database) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Override
    protected String providerName() {
        return "jdbc";
    }

    @Override
    protected Map<String, String> validSettings() {
        return Map.of("lockkit.jdbc.url", PG.server().jdbcUrl(), "lockkit.jdbc.create-schema", "true");
    }

    @Override
    protected Map<String, String> malformedSettings() {
        return Map.of(
                "lockkit.jdbc.timeout", "soon",
                "lockkit.jdbc.table", "locks; drop",
                "lockkit.jdbc.url", "jdbc:oracle:thin:@db:1521/app");
    }

    @Test
    @DisplayName("jdbc:mariadb: and jdbc:h2: URLs name it too, an unsupported database's none")
    void urlsOfEachDatabase() {
        ClassLoader loader = getClass().getClassLoader();
        for (String url : List.of("jdbc:postgresql://db/app", "jdbc:mariadb://db/app", "jdbc:h2:mem:x")) {
            assertThat(ProviderFactories.forUri(url, loader)).as(url).isInstanceOf(JdbcLockProviderFactory.class);
        }
        assertThatThrownBy(() -> ProviderFactories.forUri("jdbc:oracle:thin:@db:1521/app", loader))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:postgresql:");
        assertThat(FACTORY.uriKey()).contains("lockkit.jdbc.url");
    }

    @Test
    @DisplayName("lockkit.jdbc.url on PostgreSQL: own pool, the configured table created, the environment's threads")
    void urlOnPostgres() throws Exception {
        AtomicInteger made = new AtomicInteger();
        ThreadFactory threads = r -> {
            Thread t = new Thread(r, "factory-test-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        Container container = new Container() {
            @Override
            public Optional<ThreadFactory> threadFactory() {
                return Optional.of(threads);
            }
        };
        LockProvider provider = FACTORY.create(
                settings(
                        "lockkit.jdbc.url", pg.jdbcUrl(),
                        "lockkit.jdbc.table", "factory_locks",
                        "lockkit.jdbc.create-schema", "true",
                        "lockkit.jdbc.timeout", "3s"),
                container);
        assertThat(container.wrapped)
                .as("its own pool is never in a container's transaction")
                .isEmpty();
        assertThat(provider).isInstanceOf(JdbcLockProvider.class);
        try (DistributedLockFactory locks = DistributedLockFactory.create(provider)) {
            LockHandle held = locks.acquire("factory-pg", LockOptions.noWait());
            assertThat(pg.query("SELECT count(*) FROM factory_locks WHERE name = 'factory-pg'"))
                    .isEqualTo(1L);
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockHandle h = locks.acquire("factory-pg", LockOptions.waitAtMost(Duration.ofSeconds(20)))) {
                    return h.isValid();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            // A wait starts the LISTEN thread: it comes from the environment's factory.
            await().atMost(Duration.ofSeconds(20)).until(() -> made.get() > 0);
            held.close();
            assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    @DisplayName("lockkit.jdbc.datasource: the environment's DataSource of that name, run outside transactions")
    void namedDataSource() throws Exception {
        JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
        Container container = new Container();
        container.named.put("java:comp/env/jdbc/locks", postgresDataSource());
        LockProvider provider =
                FACTORY.create(settings("lockkit.jdbc.datasource", "java:comp/env/jdbc/locks"), container);
        assertThat(container.wrapped).singleElement().isInstanceOf(JdbcLockProvider.class);
        assertThat(provider).isInstanceOf(ForwardingLockProvider.class);
        assertThat(lockOnce(provider, "factory-named")).isPositive();
        assertThatThrownBy(() -> FACTORY.create(settings("lockkit.jdbc.datasource", "java:comp/nothing"), container))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("lockkit: lockkit.jdbc.datasource = 'java:comp/nothing' (from " + ORIGIN
                        + ") names no DataSource the application can look up")
                .hasMessageContaining("no resource is named java:comp/nothing");
        assertThatThrownBy(() -> FACTORY.create(
                        settings("lockkit.jdbc.datasource", "java:comp/env/jdbc/locks"), ProviderEnvironment.none()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set lockkit.jdbc.url instead");
    }

    @Test
    @DisplayName("neither key: the environment's default DataSource (H2 here); none at all fails naming both keys")
    void defaultDataSource() throws Exception {
        Container container = new Container();
        container.byDefault = h2DataSource("factory_default");
        LockProvider provider = FACTORY.create(settings("lockkit.jdbc.create-schema", "true"), container);
        assertThat(container.wrapped).hasSize(1);
        assertThat(lockOnce(provider, "factory-default")).isPositive();
        assertThatThrownBy(() -> FACTORY.create(settings(), ProviderEnvironment.none()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("javax.sql.DataSource bean")
                .hasMessageContaining("lockkit.jdbc.datasource")
                .hasMessageContaining("lockkit.jdbc.url");
        assertThat(FACTORY.describeTarget(settings())).contains("javax.sql.DataSource bean");
    }

    @Test
    @DisplayName("user and password go with the URL only; both database keys at once are refused")
    void credentialsAndContradictions() throws Exception {
        String url = "jdbc:h2:mem:factory_credentials;DB_CLOSE_DELAY=-1";
        LockProvider provider = FACTORY.create(
                settings(
                        "lockkit.jdbc.url", url,
                        "lockkit.jdbc.user", "lockkit_owner",
                        "lockkit.jdbc.password", "secret",
                        "lockkit.jdbc.create-schema", "true"),
                ProviderEnvironment.none());
        assertThat(lockOnce(provider, "factory-credentials")).isPositive();
        assertThatThrownBy(() -> FACTORY.create(
                        settings(
                                "lockkit.jdbc.url", url,
                                "lockkit.jdbc.user", "lockkit_owner",
                                "lockkit.jdbc.password", "wrong",
                                "lockkit.jdbc.create-schema", "true"),
                        ProviderEnvironment.none()))
                .isInstanceOf(LockException.class)
                .hasMessageStartingWith("lockkit: the lock backend refused the provider at application start: "
                        + "lockkit.jdbc.url = '" + url + "' (from " + ORIGIN + ")")
                .hasMessageContaining("Wrong user name or password");
        Container container = new Container();
        container.byDefault = h2DataSource("factory_credentials");
        assertThatThrownBy(() -> FACTORY.create(settings("lockkit.jdbc.password", "secret"), container))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lockkit.jdbc.password (from " + ORIGIN
                        + ") applies to lockkit.jdbc.url only; a DataSource has its own credentials");
        assertThatThrownBy(() -> FACTORY.create(
                        settings("lockkit.jdbc.url", url, "lockkit.jdbc.datasource", "java:comp/DefaultDataSource"),
                        container))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "lockkit.jdbc.url and lockkit.jdbc.datasource (from " + ORIGIN + ") are both set; keep one");
        assertThat(container.wrapped).isEmpty();
    }

    @Test
    @DisplayName("a malformed value fails naming the key; a database that does not answer is a backend failure")
    void badValuesAndAnAbsentDatabase() throws Exception {
        assertThatThrownBy(() -> FACTORY.create(
                        settings("lockkit.jdbc.url", pg.jdbcUrl(), "lockkit.jdbc.timeout", "soon"),
                        ProviderEnvironment.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("lockkit.jdbc.timeout = 'soon' (from " + ORIGIN + ")");
        assertThatThrownBy(() -> FACTORY.create(
                        settings("lockkit.jdbc.url", pg.jdbcUrl(), "lockkit.jdbc.table", "locks; drop"),
                        ProviderEnvironment.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("lockkit.jdbc.table (from " + ORIGIN + "): ");
        assertThatThrownBy(() -> FACTORY.create(
                        settings("lockkit.jdbc.url", "jdbc:oracle:thin:@db:1521/app"), ProviderEnvironment.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no supported database");
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closed + "/postgres?user=postgres&password=hush";
        assertThatThrownBy(() -> FACTORY.create(
                        settings(
                                "lockkit.jdbc.url", url,
                                "lockkit.jdbc.create-schema", "true",
                                "lockkit.jdbc.timeout", "1s"),
                        ProviderEnvironment.none()))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("lockkit: the lock backend did not answer at application start: "
                        + "lockkit.jdbc.url = 'jdbc:postgresql://127.0.0.1:" + closed
                        + "/postgres?user=postgres&password=***' (from " + ORIGIN + ")")
                .hasMessageNotContaining("hush");
    }

    @Test
    @DisplayName("a database host that does not resolve: the first line names UnknownHostException, which PostgreSQL's"
            + " 'The connection attempt failed' keeps in its cause")
    void unresolvableHostIsNamed() {
        String url = "jdbc:postgresql://lockkit-test.invalid:5432/app"; // RFC 2606: never resolves
        assertThatThrownBy(() -> FACTORY.create(
                        settings(
                                "lockkit.jdbc.url",
                                url,
                                "lockkit.jdbc.create-schema",
                                "true",
                                "lockkit.jdbc.timeout",
                                "1s"),
                        ProviderEnvironment.none()))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("lockkit: the lock backend did not answer at application start: "
                        + "lockkit.jdbc.url = '" + url + "'")
                .hasMessageContaining("UnknownHostException: lockkit-test.invalid")
                .hasMessageNotContaining("\n");
    }
}
