package io.lockkit.cdi.internal;

import io.lockkit.cdi.internal.engine.TransactionCompletion;
import jakarta.enterprise.inject.Instance;
import java.util.List;

/**
 * Finds the container's Jakarta Transactions synchronization registry: a bean of that type (Quarkus,
 * Narayana's CDI extension, most servers), else the standard JNDI name. Touches no JTA type itself,
 * so lock-cdi runs where the API is absent.
 */
final class Transactions {

    static final String REGISTRY = "jakarta.transaction.TransactionSynchronizationRegistry";
    static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    private static final System.Logger LOG = System.getLogger(Transactions.class.getName());

    private Transactions() {}

    /** Transaction completion over the registry found, or {@link TransactionCompletion#NONE}. */
    @SuppressWarnings("BanJNDI") // looks up a fixed or configured name the application chose, never request input
    static TransactionCompletion find(Instance<Object> beans) {
        Class<?> registryType;
        try {
            registryType = Class.forName(REGISTRY, false, Transactions.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return TransactionCompletion.NONE;
        }
        Object registry = null;
        try {
            Instance<?> candidates = beans.select(registryType);
            if (candidates.isResolvable()) {
                registry = candidates.get();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no " + REGISTRY + " bean", e);
        }
        if (registry == null) {
            try {
                registry = new javax.naming.InitialContext().lookup(JNDI_NAME);
            } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "no " + JNDI_NAME + "; @Locked releases do not wait for transactions",
                        e);
            }
        }
        return registryType.isInstance(registry) ? JtaSupport.completion(registry) : TransactionCompletion.NONE;
    }

    static final String MANAGER = "jakarta.transaction.TransactionManager";
    /** Where servers bind their TransactionManager (none is standard): WildFly, Payara/GlassFish, others. */
    static final List<String> MANAGER_JNDI_NAMES =
            List.of("java:/TransactionManager", "java:appserver/TransactionManager", "java:comp/TransactionManager");

    /**
     * {@code provider}, its calls made outside the caller's JTA transaction when the container has a
     * TransactionManager (a bean, else one of {@link #MANAGER_JNDI_NAMES}); else {@code provider}.
     */
    @SuppressWarnings("BanJNDI") // looks up a fixed or configured name the application chose, never request input
    static io.lockkit.spi.LockProvider suspending(io.lockkit.spi.LockProvider provider, Instance<Object> beans) {
        Class<?> managerType;
        try {
            managerType = Class.forName(MANAGER, false, Transactions.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return provider;
        }
        Object manager = null;
        try {
            Instance<?> candidates = beans.select(managerType);
            if (candidates.isResolvable()) {
                manager = candidates.get();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no " + MANAGER + " bean", e);
        }
        for (int i = 0; manager == null && i < MANAGER_JNDI_NAMES.size(); i++) {
            try {
                manager = new javax.naming.InitialContext().lookup(MANAGER_JNDI_NAMES.get(i));
            } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
                // not bound here
            }
        }
        if (!managerType.isInstance(manager)) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "no TransactionManager: the JDBC provider needs connections outside of"
                            + " JTA transactions (a non-JTA DataSource)");
            return provider;
        }
        return JtaSupport.suspending(provider, manager);
    }

    /** Loaded only once the JTA API is known to be present. */
    private static final class JtaSupport {
        static io.lockkit.spi.LockProvider suspending(io.lockkit.spi.LockProvider provider, Object manager) {
            return new JtaSuspension(provider, (jakarta.transaction.TransactionManager) manager);
        }

        static TransactionCompletion completion(Object registry) {
            return new JtaCompletion((jakarta.transaction.TransactionSynchronizationRegistry) registry);
        }
    }
}
