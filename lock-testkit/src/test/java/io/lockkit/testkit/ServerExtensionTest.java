package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.lockkit.LocalLockProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The generic server extension behind every fixture, over a server of its own that only counts its
 * starts and stops: one server per test class, shared by constructor, lifecycle methods, tests and
 * nested classes, stopped after the class, and the kit's backend injected where it is asked for.
 */
@DisplayName("ServerExtension")
class ServerExtensionTest {

    /** A server that records its life; the one instance a test class sees is the one the class started. */
    static final class CountingServer implements TestServer {
        static final AtomicInteger STARTED = new AtomicInteger();
        static final List<CountingServer> CLOSED = new CopyOnWriteArrayList<>();
        final LocalLockProvider backend = new LocalLockProvider();

        CountingServer() {
            STARTED.incrementAndGet();
        }

        @Override
        public void close() {
            CLOSED.add(this);
        }
    }

    /** The extension as a provider's tests declare it: a server, and the kit's backend over it. */
    static final class CountingExtension extends ServerExtension<CountingServer> {
        CountingExtension() {
            super(CountingServer.class, CountingServer::new, server -> server.backend::newClient);
        }
    }

    @ExtendWith(CountingExtension.class)
    static class SampleTest {
        static CountingServer fromBeforeAll;
        final CountingServer fromConstructor;
        final ContractBackend backend;

        SampleTest(CountingServer server, ContractBackend backend) {
            this.fromConstructor = server;
            this.backend = backend;
        }

        @BeforeAll
        static void remember(CountingServer server) {
            fromBeforeAll = server;
        }

        @Test
        void sharedByConstructorBeforeAllAndTests(CountingServer server) {
            assertThat(server).isSameAs(fromConstructor).isSameAs(fromBeforeAll);
            assertThat(CountingServer.CLOSED).doesNotContain(server);
        }

        @Test
        void theBackendIsTheServers() {
            try (var provider = backend.newProvider()) {
                assertThat(provider).isNotNull();
            }
            assertThat(backend.backendControl()).isEmpty();
        }

        @Nested
        class NestedTests {
            @Test
            void nestedClassesShareTheOuterServer(CountingServer server) {
                assertThat(server).isSameAs(fromBeforeAll);
            }
        }
    }

    @Test
    @DisplayName("one server per class, shared everywhere in it, closed after it")
    void oneServerPerClass() {
        int startedBefore = CountingServer.STARTED.get();
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(SampleTest.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(3).succeeded(3));
        assertThat(CountingServer.STARTED.get() - startedBefore).isEqualTo(1);
        assertThat(CountingServer.CLOSED).contains(SampleTest.fromBeforeAll);
    }

    @Test
    @DisplayName("server() before the extension started one says how to register it")
    void serverBeforeStartIsRefused() {
        assertThatThrownBy(() -> ServerExtension.of(CountingServer.class, CountingServer::new)
                        .server())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no CountingServer started yet")
                .hasMessageContaining("@RegisterExtension");
    }

    @Test
    @DisplayName("a null type or start is refused, naming it")
    void nullArgumentsAreRefused() {
        assertThatThrownBy(() -> ServerExtension.of(null, CountingServer::new))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("type");
        assertThatThrownBy(() -> ServerExtension.of(CountingServer.class, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("start");
    }
}
