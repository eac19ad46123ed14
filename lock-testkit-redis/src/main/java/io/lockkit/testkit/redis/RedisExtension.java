package io.lockkit.testkit.redis;

import io.lockkit.testkit.ServerExtension;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * JUnit Jupiter extension that gives a test class one {@link RedisServer}, started before
 * {@code @BeforeAll} and stopped after the class (nested classes share the outer class's server). The
 * server is injected into constructor, lifecycle and test method parameters of type
 * {@code RedisServer}.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * class MyTest {
 *     @Test
 *     void works(RedisServer redis) { ... }
 * }
 *
 * class OtherTest {
 *     @RegisterExtension
 *     static final RedisExtension REDIS = RedisExtension.builder().serverArgs("--maxmemory", "10mb").build();
 * }
 * }</pre>
 *
 * <p>The kit's {@link ServerExtension} over {@link RedisFixture}: register it on a {@code static}
 * field (see there for why, and for two registrations in one class). Thread-safe.
 */
public final class RedisExtension extends ServerExtension<RedisServer> {

    /** An extension using {@code RedisFixture.builder().build()} and no extra server arguments. */
    public RedisExtension() {
        this(null, List.of());
    }

    private RedisExtension(@Nullable RedisFixture fixture, List<String> serverArgs) {
        super(
                RedisServer.class,
                () -> (fixture != null ? fixture : RedisFixture.builder().build())
                        .start(serverArgs.toArray(new String[0])));
    }

    /** A builder for registering the extension with {@code @RegisterExtension}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options for a {@link RedisExtension}. Not thread-safe. */
    public static final class Builder {

        private @Nullable RedisFixture fixture;
        private List<String> serverArgs = List.of();

        private Builder() {}

        /** The fixture that starts the server. Default: {@code RedisFixture.builder().build()}. */
        public Builder fixture(RedisFixture fixture) {
            this.fixture = Objects.requireNonNull(fixture, "fixture");
            return this;
        }

        /** Extra {@code redis-server} arguments, as for {@link RedisFixture#start(String...)}. Default: none. */
        public Builder serverArgs(String... serverArgs) {
            Objects.requireNonNull(serverArgs, "serverArgs");
            for (String arg : serverArgs) {
                Objects.requireNonNull(arg, "serverArgs must not contain null");
            }
            this.serverArgs = List.of(serverArgs);
            return this;
        }

        /** Builds the extension; the server starts when the first test class using it starts. */
        public RedisExtension build() {
            return new RedisExtension(fixture, serverArgs);
        }
    }
}
