package io.lockkit.testkit;

import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that gives a test class one {@link TestServer}, started before
 * {@code @BeforeAll} and stopped after the class (nested classes share the outer class's server). The
 * server is injected into constructor, lifecycle and test method parameters of its type; when the
 * extension was given a way to build a {@link ContractBackend} over the server, parameters of that
 * type are injected too, so a contract test is a constructor:
 *
 * <pre>{@code
 * @ExtendWith(MyBackendExtension.class)
 * class MyProviderContractTest extends LockContractTest {
 *     MyProviderContractTest(ContractBackend backend) {
 *         super(backend);
 *     }
 * }
 * }</pre>
 *
 * <p>The one extension behind every fixture: lock-testkit-redis's {@code RedisExtension} and
 * lock-testkit-jdbc's {@code PostgresExtension} are this class with their fixture's server, and a
 * provider's tests subclass it for their own servers (a cluster, a database with the provider's
 * table). It lives in lock-testkit, which knows no server, so that both fixture artifacts share it
 * without pulling each other's dependencies. Register it on a {@code static} field or with
 * {@code @ExtendWith}: an instance field sees no {@code @BeforeAll}, so each test instance would get
 * its own server. Two registrations in one class give two servers, reachable through
 * {@link #server()}, but then parameters of the server's type become ambiguous. Thread-safe.
 *
 * @param <S> the type of server
 */
public class ServerExtension<S extends TestServer> implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ServerExtension.class);

    private final Class<S> type;
    private final Supplier<? extends S> start;
    private final @Nullable Function<? super S, ? extends ContractBackend> backend;
    private volatile @Nullable S server;

    /**
     * An extension whose servers {@code start} starts, injected where a {@code type} is asked for.
     *
     * @throws IllegalArgumentException when an argument is null
     */
    protected ServerExtension(Class<S> type, Supplier<? extends S> start) {
        this(type, start, null);
    }

    /**
     * An extension as {@link #ServerExtension(Class, Supplier)} that also injects a
     * {@link ContractBackend} made by {@code backend} over the class's server.
     *
     * @throws IllegalArgumentException when {@code type} or {@code start} is null
     */
    protected ServerExtension(
            Class<S> type,
            Supplier<? extends S> start,
            @Nullable Function<? super S, ? extends ContractBackend> backend) {
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        if (start == null) {
            throw new IllegalArgumentException("start must not be null");
        }
        this.type = type;
        this.start = start;
        this.backend = backend;
    }

    /**
     * An extension for {@code @RegisterExtension} whose servers {@code start} starts.
     *
     * @throws IllegalArgumentException when an argument is null
     */
    public static <S extends TestServer> ServerExtension<S> of(Class<S> type, Supplier<? extends S> start) {
        return new ServerExtension<>(type, start);
    }

    /**
     * The server of the test class that is running.
     *
     * @throws IllegalStateException before the extension started one, e.g. when it is registered on
     *     an instance field and nothing asked for a server yet
     */
    public S server() {
        S current = server;
        if (current == null) {
            throw new IllegalStateException("no " + type.getSimpleName() + " started yet: register "
                    + getClass().getSimpleName() + " with @ExtendWith or on a static @RegisterExtension field;"
                    + " it starts before @BeforeAll");
        }
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        serverFor(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> asked = parameterContext.getParameter().getType();
        return asked == type || (backend != null && asked == ContractBackend.class);
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        S current = serverFor(extensionContext);
        if (parameterContext.getParameter().getType() == type || backend == null) {
            return current;
        }
        return backend.apply(current);
    }

    private S serverFor(ExtensionContext context) {
        // Keep the server in the class-level store even when first asked for by a method, so it
        // lives as long as the class; stores of nested classes see their outer class's server.
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        // Stored as an AutoCloseable: JUnit closes it when the class context ends.
        S current = classContext.getStore(NAMESPACE).computeIfAbsent(this, key -> start.get(), type);
        server = current;
        return current;
    }
}
