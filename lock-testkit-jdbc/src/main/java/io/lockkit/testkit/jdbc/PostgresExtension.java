package io.lockkit.testkit.jdbc;

import io.lockkit.testkit.ServerExtension;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>The kit's {@link ServerExtension} over {@link PostgresFixture}: register it on a {@code static}
 * field (see there for why, and for two registrations in one class). Thread-safe.
 */
public final class PostgresExtension extends ServerExtension<PostgresServer> {

    /** An extension using {@code PostgresFixture.builder().build()}. */
    public PostgresExtension() {
        this(null);
    }

    private PostgresExtension(@Nullable PostgresFixture fixture) {
        super(
                PostgresServer.class,
                () -> (fixture != null ? fixture : PostgresFixture.builder().build()).start());
    }

    /** A builder for registering the extension with {@code @RegisterExtension}. */
    public static Builder builder() {
        return new Builder();
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
