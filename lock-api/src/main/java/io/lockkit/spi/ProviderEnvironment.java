package io.lockkit.spi;

import java.util.Optional;
import java.util.concurrent.ThreadFactory;

/**
 * What the application's container offers a {@link LockProviderFactory} beside configuration.
 * Every method has a default for the plain-Java case (no container), so containers implement
 * what they have and factories ask for what they need; a factory that needs something the
 * environment lacks says so in its {@code IllegalArgumentException} or {@code
 * IllegalStateException}, naming the key that would supply it instead.
 */
public interface ProviderEnvironment {

    /** No container: nothing to look up, the provider's own threads, no transactions to leave. */
    static ProviderEnvironment none() {
        return new ProviderEnvironment() {};
    }

    /**
     * The factory for the provider's threads: the container's managed one when it has one, else
     * empty (the provider makes its own daemon threads).
     */
    default Optional<ThreadFactory> threadFactory() {
        return Optional.empty();
    }

    /**
     * The resource of {@code type} the container knows by {@code name} (a JNDI name in Jakarta EE,
     * e.g. a {@code javax.sql.DataSource} at {@code java:comp/DefaultDataSource}).
     *
     * @return empty when the container has no names to look up
     * @throws IllegalStateException when the container has names but {@code name} finds nothing,
     *     or something that is not a {@code type}, saying which
     */
    default <T> Optional<T> resource(Class<T> type, String name) {
        return Optional.empty();
    }

    /**
     * The application's one default instance of {@code type} (a CDI {@code @Default} bean), e.g.
     * its {@code javax.sql.DataSource}.
     *
     * @return empty when there is none, or no container to ask
     * @throws IllegalStateException when there are several, saying so
     */
    default <T> Optional<T> defaultInstance(Class<T> type) {
        return Optional.empty();
    }

    /**
     * {@code provider}, made to run its calls outside the caller's transaction: for a provider
     * whose backend connections a container may enlist in the current transaction (a managed
     * {@code DataSource}), where a rollback would undo a lock and a commit publish it late. The
     * default returns {@code provider} as it is (there is no transaction manager to leave).
     */
    default LockProvider outsideTransactions(LockProvider provider) {
        return provider;
    }
}
