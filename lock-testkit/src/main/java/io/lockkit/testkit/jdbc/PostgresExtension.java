package io.lockkit.testkit.jdbc;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that gives a test class one {@link PostgresServer}, started before
 * {@code @BeforeAll} and stopped after the class (nested classes share the outer class's server). The
 * server is injected into constructor, lifecycle and test method parameters of type
 * {@code PostgresServer}.
 *
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class MyTest {
 *     @Test
 *     void works(PostgresServer pg) { ... }
 * }
 *
 * class OtherTest {
 *     @RegisterExtension
 *     static final PostgresExtension PG = PostgresExtension.builder().fixture(PostgresFixture.builder().sources(Source.EMBEDDED).build()).build();
 * }
 * }</pre>
 *
 * <p>Register it on a {@code static} field: an instance field sees no {@code @BeforeAll}, so each test
 * instance would get its own server. Two registrations in one class give two servers, reachable
 * through {@link #server()}, but then {@code PostgresServer} parameters become ambiguous. Thread-safe.
 */
public final class PostgresExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(PostgresExtension.class);

    private final @Nullable PostgresFixture fixture;
    private volatile @Nullable PostgresServer server;

    /** An extension using {@code PostgresFixture.builder().build()}. */
    public PostgresExtension() {
        this(null);
    }

    private PostgresExtension(@Nullable PostgresFixture fixture) {
        this.fixture = fixture;
    }

    /** A builder for registering the extension with {@code @RegisterExtension}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The server of the test class that is running.
     *
     * @throws IllegalStateException before the extension started one, e.g. when it is registered on
     *     an instance field and nothing asked for a server yet
     */
    public PostgresServer server() {
        PostgresServer current = server;
        if (current == null) {
            throw new IllegalStateException("no PostgreSQL server started yet: register PostgresExtension with"
                    + " @ExtendWith or on a static @RegisterExtension field; it starts before @BeforeAll");
        }
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        serverFor(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == PostgresServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return serverFor(extensionContext);
    }

    private PostgresServer serverFor(ExtensionContext context) {
        // Keep the server in the class-level store even when first asked for by a method, so it
        // lives as long as the class; stores of nested classes see their outer class's server.
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        PostgresServer current =
                classContext.getStore(NAMESPACE).computeIfAbsent(this, key -> startServer(), PostgresServer.class);
        server = current;
        return current;
    }

    private PostgresServer startServer() {
        PostgresFixture source =
                fixture != null ? fixture : PostgresFixture.builder().build();
        // Stored as an AutoCloseable: JUnit closes it when the class context ends.
        return source.start();
    }

    /** Options for a {@link PostgresExtension}. Not thread-safe. */
    public static final class Builder {

        private @Nullable PostgresFixture fixture;

        private Builder() {}

        /** The fixture that starts the server. Default: {@code PostgresFixture.builder().build()}. */
        public Builder fixture(PostgresFixture fixture) {
            this.fixture = Objects.requireNonNull(fixture, "fixture");
            return this;
        }

        /** Builds the extension; the server starts when the first test class using it starts. */
        public PostgresExtension build() {
            return new PostgresExtension(fixture);
        }
    }
}
