package io.lockkit.testkit.redis;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

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
 * <p>Register it on a {@code static} field: an instance field sees no {@code @BeforeAll}, so each test
 * instance would get its own server. Two registrations in one class give two servers, reachable
 * through {@link #server()}, but then {@code RedisServer} parameters become ambiguous. Thread-safe.
 */
public final class RedisExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);

    private final @Nullable RedisFixture fixture;
    private final List<String> serverArgs;
    private volatile @Nullable RedisServer server;

    /** An extension using {@code RedisFixture.builder().build()} and no extra server arguments. */
    public RedisExtension() {
        this(null, List.of());
    }

    private RedisExtension(@Nullable RedisFixture fixture, List<String> serverArgs) {
        this.fixture = fixture;
        this.serverArgs = serverArgs;
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
    public RedisServer server() {
        RedisServer current = server;
        if (current == null) {
            throw new IllegalStateException("no Redis server started yet: register RedisExtension with"
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
        return parameterContext.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return serverFor(extensionContext);
    }

    private RedisServer serverFor(ExtensionContext context) {
        // Keep the server in the class-level store even when first asked for by a method, so it
        // lives as long as the class; stores of nested classes see their outer class's server.
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        RedisServer current =
                classContext.getStore(NAMESPACE).computeIfAbsent(this, key -> startServer(), RedisServer.class);
        server = current;
        return current;
    }

    private RedisServer startServer() {
        RedisFixture source = fixture != null ? fixture : RedisFixture.builder().build();
        // Stored as an AutoCloseable: JUnit closes it when the class context ends.
        return source.start(serverArgs.toArray(new String[0]));
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
